import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

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
