import ArgumentParser
import Diagnostics
import Flows
import Foundation
import LicenseActivation
import Licensing

struct LicenseCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "license",
    abstract: "Activate a license, run an activation server, make keys, issue and show licenses, check license.conf.",
    discussion: """
      A license (license.dat) is signed with Ed25519 and binds a product, an EID, a machine \
      (or container mode), an expiry and the features it grants. Every license problem exits \
      with 3 (docs/licensing.md).

      Examples:
        workbench license keygen --out keys
        workbench license serve --key keys/private.key.json --product workbench \\
          --allow ACME-1:3 --state activations.json
        workbench license activate --public-key keys/public.key.json
        workbench license issue --key keys/private.key.json --product workbench --eid ACME-1 \\
          --this-machine --days 365 --features card,face --out license.dat
        workbench license show --public-key keys/public.key.json
        workbench license check-config
      """,
    subcommands: [
      LicenseActivateCommand.self, LicenseServeCommand.self, LicenseKeygenCommand.self, LicenseIssueCommand.self,
      LicenseShowCommand.self, LicenseCheckConfigCommand.self,
    ])
}

struct LicenseKeygenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keygen",
    abstract: "Make a new Ed25519 key pair for signing licenses.",
    discussion: """
      Writes private.key.json (mode 0600: it signs licenses, keep it secret) and \
      public.key.json (it checks them) into the folder, which is made when missing. \
      Never overwrites a key.
      """)

  @Option(name: .long, help: ArgumentHelp("The folder for the two key files.", valueName: "dir"))
  var out: String

  func run() throws {
    let pair = LicenseKeyPair.generate()
    let paths: (privateKeyPath: String, publicKeyPath: String)
    do { paths = try pair.write(toFolder: out) } catch { throw fail(error) }
    standardOutput("wrote \(paths.privateKeyPath) (the signing key: keep it secret)")
    standardOutput("wrote \(paths.publicKeyPath) (\(pair.publicKey))")
  }
}

struct LicenseIssueCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "issue",
    abstract: "Sign a license for a product, an EID and one machine (or container mode).",
    discussion: """
      The license holds from now for --days days. Bind it to a machine with --fingerprint \
      (what `workbench license show` prints as "this machine" there) or --this-machine, or \
      to none with --container. An existing --out file is replaced.
      """)

  @Option(name: .long, help: ArgumentHelp("The private key file (private.key.json).", valueName: "file"))
  var key: String

  @Option(name: .long, help: ArgumentHelp("The product the license is for.", valueName: "id"))
  var product: String

  @Option(name: .long, help: ArgumentHelp("The customer's entitlement ID.", valueName: "eid"))
  var eid: String

  @Option(name: .long, help: ArgumentHelp("Bind to the machine with this fingerprint.", valueName: "hex"))
  var fingerprint: String?

  @Flag(name: .long, help: "Bind to this machine.")
  var thisMachine = false

  @Flag(name: .long, help: "Container mode: not bound to a machine.")
  var container = false

  @Option(name: .long, help: ArgumentHelp("How many days the license holds.", valueName: "n"))
  var days: Int

  @Option(
    name: .long, help: ArgumentHelp("The features it grants: card, face, plugins, record.", valueName: "list"))
  var features: String

  @Option(name: .long, help: ArgumentHelp("The license file to write.", valueName: "file"))
  var out: String

  func validate() throws {
    let bindings = [fingerprint != nil, thisMachine, container].filter { $0 }.count
    guard bindings == 1 else {
      throw ValidationError("give exactly one of --fingerprint HEX, --this-machine or --container")
    }
    if let fingerprint, MachineFingerprint(fingerprint) == nil {
      throw ValidationError("--fingerprint takes the \(MachineFingerprint.length) hex digits `license show` prints")
    }
  }

  func run() throws {
    let binding: LicenseBinding =
      container ? .container : .machine(fingerprint.flatMap(MachineFingerprint.init) ?? MachineFingerprint.current())
    let now = Date()
    do {
      let privateKey = try LicensePrivateKey.read(path: key)
      let data = try LicenseIssuer(privateKey: privateKey).issue(
        product: product, eid: eid, binding: binding, days: days, features: LicenseIssuer.features(fromList: features),
        now: now)
      try LicenseFiles.write(data, to: out, replacing: true)
      let inspection = LicenseVerifier(publicKeys: [privateKey.publicKey]).inspect(
        data: data, path: out, product: nil, fingerprint: MachineFingerprint.current(), now: now)
      if let license = inspection.license {
        standardOutput("wrote \(out)")
        standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: nil, now: now)))
      }
    } catch {
      throw fail(error)
    }
  }
}

struct LicenseShowCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Print what a license grants, until when, and whether it holds on this machine.",
    discussion: """
      Without --license, shows the license that `run` checks: Filename of license.conf \
      (--config, else configs/license.conf), for its ProductID and EID, checked with the \
      public key beside it (license-public.key.json) unless --public-key names one. \
      Exits 0 when the license verifies on this machine (and is for --product and grants \
      every --feature, when given), 3 otherwise, with every reason on standard error.
      """)

  @Option(name: .long, help: ArgumentHelp("The license file (default: Filename of license.conf).", valueName: "file"))
  var license: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "license.conf (XML) or vllicense.plist (default: configs/license.conf).", valueName: "file"))
  var config: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The public key that checks the license (default: license-public.key.json beside license.conf).",
      valueName: "file"))
  var publicKey: String?

  @Option(name: .long, help: ArgumentHelp("Also check that the license is for this product.", valueName: "id"))
  var product: String?

  @Option(
    name: .customLong("feature"),
    help: ArgumentHelp("Also check that the license grants this feature (repeatable).", valueName: "name"))
  var features: [String] = []

  func run() throws {
    var licensePath = license
    var product = product
    var eid: String?
    let keyPath: String
    do throws(WorkbenchError) {
      if license == nil || config != nil {
        let gate = LicenseGate.locate(
          configOption: config, publicKeyOption: publicKey, folders: [try bundledConfigsFolder()])
        let loaded = try LicenseConfigLoader.load(path: gate.configPath)
        licensePath = licensePath ?? loaded.licensePath
        product = product ?? loaded.productID
        eid = loaded.eid
        keyPath = gate.publicKeyPath
      } else if let publicKey {
        keyPath = publicKey
      } else {
        keyPath =
          LicenseGate.locate(
            configOption: nil, publicKeyOption: nil, folders: [try bundledConfigsFolder()]
          ).publicKeyPath
      }
    } catch {
      throw fail(error)
    }
    let key: LicensePublicKey
    do { key = try LicensePublicKey.read(path: keyPath) } catch { throw fail(error) }
    let fingerprint = MachineFingerprint.current()
    let now = Date()
    let inspection = LicenseVerifier(publicKeys: [key]).inspect(
      path: licensePath ?? LicenseConfig.defaultFilename, product: product, eid: eid, fingerprint: fingerprint,
      now: now, requiredFeatures: features)
    standardOutput(LicenseReport.render(inspection, fingerprint: fingerprint, now: now))
    if let error = inspection.error { throw fail(error) }
  }
}

/// configs/ of the workbench folder, as it is shown.
private func bundledConfigsFolder() throws(WorkbenchError) -> String {
  WorkbenchHome.display(try WorkbenchHome.locate().configs)
}

struct LicenseCheckConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-config",
    abstract: "Check license.conf (or vllicense.plist) and print the effective values.",
    discussion: """
      Without --config, reads configs/license.conf of the workbench folder. Lists every \
      problem, each with its key and rule, and exits 3 when there is one.
      """)

  @Option(
    name: .long, help: ArgumentHelp("license.conf (XML) or vllicense.plist.", valueName: "file"))
  var config: String?

  func run() throws {
    let path: String
    if let config {
      path = config
    } else {
      do { path = WorkbenchHome.display(try WorkbenchHome.locate().configs + "/license.conf") } catch {
        throw fail(error)
      }
    }
    do {
      standardOutput(try LicenseConfigLoader.load(path: path).render())
    } catch {
      DiagnosticPrinter.print(error)
      let count = error.diagnostics.count
      standardError("\(count) problem\(count == 1 ? "" : "s") in \(path)")
      throw ExitCode(error.status.rawValue)
    }
  }
}

/// configs/license.conf of the workbench folder, as it is shown.
private func defaultLicenseConfigPath() throws(WorkbenchError) -> String {
  WorkbenchHome.display(try WorkbenchHome.locate().configs + "/license.conf")
}

struct LicenseActivateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "activate",
    abstract: "Get a license from the activation server of license.conf and store it.",
    discussion: """
      Sends EID, ProductID and this machine's fingerprint (none in container mode) to Server, \
      checks the license it answers with against --public-key and stores it at Filename. When \
      Filename already holds a license that holds on this machine, the server is not asked \
      (--force asks anyway). Waits ConnectionTimeout seconds at most (0: forever). An \
      unreachable server, a refusal, a timeout and an answer that is not a license each exit \
      with 3.
      """)

  @Option(
    name: .long,
    help: ArgumentHelp(
      "license.conf (XML) or vllicense.plist (default: configs/license.conf).", valueName: "file"))
  var config: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The public key that checks the license (default: license-public.key.json beside the configuration).",
      valueName: "file"))
  var publicKey: String?

  @Flag(name: .long, help: "Ask the server even when the license file already holds a valid license.")
  var force = false

  func run() throws {
    let activator: LicenseActivator
    do throws(WorkbenchError) {
      let path: String
      if let config { path = config } else { path = try defaultLicenseConfigPath() }
      let key = try LicensePublicKey.read(path: publicKey ?? LicenseGate.defaultPublicKeyPath(besides: path))
      activator = LicenseActivator(
        config: try LicenseConfigLoader.load(path: path), verifier: LicenseVerifier(publicKeys: [key]),
        fingerprint: MachineFingerprint.current())
    } catch {
      throw fail(error)
    }
    let licensePath = activator.config.licensePath
    let force = force
    let outcome: ActivationOutcome
    do {
      outcome = try Blocking.run { () async throws(ActivationError) -> ActivationOutcome in
        try await activator.activate(force: force)
      }
    } catch {
      throw fail(error.error)
    }
    let now = Date()
    switch outcome {
    case .alreadyActivated(let license):
      standardOutput(
        "\(licensePath) already holds a license for this machine; the server was not asked "
          + "(--force activates again)")
      standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: activator.fingerprint, now: now)))
    case .activated(let license, let replaced):
      if let replaced {
        var reasons: [String] = []
        for failure in replaced.failures where !reasons.contains(failure.kind.summary) {
          reasons.append(failure.kind.summary)
        }
        standardOutput("replaced \(licensePath), which did not hold here (\(reasons.joined(separator: ", ")))")
      }
      standardOutput("activated at \(activator.config.server): wrote \(licensePath)")
      standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: activator.fingerprint, now: now)))
    }
  }
}

struct LicenseServeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run an activation server that issues licenses signed with a private key.",
    discussion: """
      The reference activation server, for on-premises use and tests: it answers \
      POST /v1/activate and GET /v1/health (docs/licensing.md). It activates the EIDs of \
      --allow and --allow-file, each on at most LIMIT machines (default 1); activating the \
      same machine again takes no new slot. With --state, the activations are kept in that \
      file, so a restart keeps them. Listens on 127.0.0.1 unless --host says otherwise; \
      --port 0 picks a free port. Prints one line per request; Ctrl-C or SIGTERM stops it.

      Example:
        workbench license serve --key keys/private.key.json --product workbench \\
          --allow ACME-0001:3 --state activations.json
      """)

  @Option(name: .long, help: ArgumentHelp("The private key that signs the licenses.", valueName: "file"))
  var key: String

  @Option(name: .long, help: ArgumentHelp("The product it issues licenses for.", valueName: "id"))
  var product: String

  @Option(
    name: .customLong("allow"),
    help: ArgumentHelp("An EID it activates, on at most LIMIT machines (repeatable).", valueName: "eid[:limit]"))
  var allow: [String] = []

  @Option(
    name: .long,
    help: ArgumentHelp("A JSON object from EID to limit, e.g. {\"ACME-0001\": 3}.", valueName: "file"))
  var allowFile: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The address to listen on (default 127.0.0.1; another one makes it reachable from elsewhere).",
      valueName: "address"))
  var host: String?

  @Option(name: .long, help: ArgumentHelp("The port (0 picks a free one).", valueName: "n"))
  var port: Int = ActivationProtocol.defaultPort

  @Option(name: .long, help: ArgumentHelp("How many days each license holds.", valueName: "n"))
  var days: Int = 365

  @Option(
    name: .long, help: ArgumentHelp("The features each license grants: card, face, plugins, record.", valueName: "list")
  )
  var features: String = LicenseFeature.known.joined(separator: ",")

  @Option(name: .long, help: ArgumentHelp("The file that keeps the activations across restarts.", valueName: "file"))
  var state: String?

  func validate() throws {
    guard !allow.isEmpty || allowFile != nil else {
      throw ValidationError("give the EIDs it activates: --allow EID[:LIMIT] (repeatable) or --allow-file FILE")
    }
    if let host, host.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--host must not be empty")
    }
  }

  func run() throws {
    let server: ActivationServer
    do throws(WorkbenchError) {
      var allowed: [AllowedEID] = []
      if let allowFile { allowed = try AllowedEID.read(path: allowFile) }
      for text in allow { allowed.append(try AllowedEID.parse(text)) }
      let configuration = ActivationServerConfiguration(
        host: host ?? ActivationProtocol.defaultHost, port: port, product: product, allowed: allowed, days: days,
        features: try LicenseIssuer.features(fromList: features), privateKey: try LicensePrivateKey.read(path: key),
        statePath: state)
      server = try ActivationServer(configuration: configuration) { line in standardOutput(line) }
    } catch {
      throw fail(error)
    }
    let configuration = server.configuration
    do {
      try Blocking.run { () async throws(WorkbenchError) in
        var used: [String: Int] = [:]
        for eid in configuration.limits.keys { used[eid] = await server.activationCount(eid: eid) }
        let summary = configuration.limits.keys.sorted().map { eid in
          "\(eid) (\(used[eid] ?? 0) of \(configuration.limits[eid] ?? 0) used)"
        }
        try await server.run(stopOnSignals: true) { port in
          let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
          standardOutput(
            "activation server for product '\(configuration.product)' listening on http://\(host):\(port) "
              + "(signing with the key of public key \(configuration.privateKey.publicKey.id); "
              + "licenses hold \(configuration.days) days)")
          if !ActivationServerConfiguration.isLoopback(configuration.host) {
            standardOutput("note: --host \(configuration.host) makes it reachable from other machines")
          }
          standardOutput("allowed: " + summary.joined(separator: ", "))
          standardOutput(
            configuration.statePath.map { "activations kept in \($0)" }
              ?? "activations kept in memory only (--state FILE keeps them across restarts)")
          standardOutput("Ctrl-C stops it")
        }
      }
    } catch {
      throw fail(error)
    }
    Blocking.run { () async in
      standardOutput("stopped after \(await server.requestCount) requests")
    }
  }
}
