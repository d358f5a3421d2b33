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
      POST /v1/activate, GET /v1/health and GET /v1/metrics (docs/licensing.md). It activates \
      the EIDs of --allow and --allow-file, each on at most LIMIT machines (default 1); \
      activating the same machine again takes no new slot. With --state, the activations are \
      kept in that file, so a restart keeps them. Listens on 127.0.0.1 unless --host says \
      otherwise; --port 0 picks a free port. Prints one line per request; Ctrl-C or SIGTERM \
      stops it.

      A connection over --max-connections is answered 503 and closed. A client that does not \
      send its request head within --header-timeout seconds (of connecting, or of the first \
      byte of its next request), its body within --body-timeout seconds of the head, or \
      nothing for --idle-timeout seconds after an answer, is disconnected.

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

  @Option(
    name: .customLong("max-connections"),
    help: ArgumentHelp("Connections open at once; one more is answered 503 and closed.", valueName: "n"))
  var maximumConnections: Int = ActivationServerLimits.defaultMaximumConnections

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Seconds for the whole request head, from connecting or from the next request's first byte.",
      valueName: "seconds"))
  var headerTimeout: Double = Double(ActivationServerLimits.defaultHeaderTimeout.components.seconds)

  @Option(
    name: .long, help: ArgumentHelp("Seconds for the whole request body, from its head.", valueName: "seconds"))
  var bodyTimeout: Double = Double(ActivationServerLimits.defaultBodyTimeout.components.seconds)

  @Option(
    name: .long,
    help: ArgumentHelp("Seconds a kept-alive connection may wait for its next request.", valueName: "seconds"))
  var idleTimeout: Double = Double(ActivationServerLimits.defaultIdleTimeout.components.seconds)

  func validate() throws {
    guard !allow.isEmpty || allowFile != nil else {
      throw ValidationError("give the EIDs it activates: --allow EID[:LIMIT] (repeatable) or --allow-file FILE")
    }
    if let host, host.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--host must not be empty")
    }
    // Checked here as well as by the server: a value out of range (1e30,
    // nan) cannot even be made into a Duration.
    let range = ActivationServerLimits.timeoutRange
    for (option, value) in [
      ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout),
    ] where !range.contains(value) {
      let given = value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
      throw ValidationError(
        "\(option) must be from \(range.lowerBound) to \(Int(range.upperBound)) seconds, got \(given)")
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
        statePath: state,
        connectionLimits: ActivationServerLimits(
          headerTimeout: .seconds(headerTimeout), bodyTimeout: .seconds(bodyTimeout),
          idleTimeout: .seconds(idleTimeout), maximumConnections: maximumConnections))
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
          let limits = configuration.connectionLimits
          standardOutput(
            "limits: \(limits.maximumConnections) connections, header \(ActivationServerLimits.text(limits.headerTimeout)), "
              + "body \(ActivationServerLimits.text(limits.bodyTimeout)), idle \(ActivationServerLimits.text(limits.idleTimeout)); "
              + "metrics at http://\(host):\(port)\(ActivationProtocol.metricsPath)")
          standardOutput("Ctrl-C stops it")
        }
      }
    } catch {
      throw fail(error)
    }
    let connections = server.connectionStatistics
    let slow = [ConnectionTimeout.header, .body].map { connections.timeouts[$0] ?? 0 }
    if connections.refused > 0 || slow.contains(where: { $0 > 0 }) {
      func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
      standardOutput(
        "refused \(count(connections.refused, "connection")) over --max-connections "
          + "\(configuration.connectionLimits.maximumConnections); closed \(count(slow[0], "connection")) whose "
          + "request head and \(slow[1]) whose body did not arrive in time")
    }
    Blocking.run { () async in
      standardOutput("stopped after \(await server.requestCount) requests")
    }
  }

}
