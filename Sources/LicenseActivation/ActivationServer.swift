import Diagnostics
import Foundation
import Hummingbird
import JSONCore
import Licensing
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// An EID the server activates, and on how many machines at most.
public struct AllowedEID: Sendable, Equatable {
  public var eid: String
  /// How many machines (fingerprints) may hold a license of this EID; each
  /// container-mode activation takes one too.
  public var limit: Int

  /// The limit of `--allow EID` without `:LIMIT`.
  public static let defaultLimit = 1
  public static let maximumLimit = 1_000_000

  public init(eid: String, limit: Int = AllowedEID.defaultLimit) {
    self.eid = eid
    self.limit = limit
  }

  /// `EID` or `EID:LIMIT`, as given after `--allow`.
  public static func parse(_ text: String) throws(WorkbenchError) -> AllowedEID {
    var eid = text
    var limit = defaultLimit
    if let colon = text.lastIndex(of: ":") {
      let count = text[text.index(after: colon)...]
      guard let number = Int(count), (1...maximumLimit).contains(number) else {
        throw WorkbenchError(
          .usage, "--allow \(text): the limit after ':' must be a whole number from 1 to \(maximumLimit)",
          help: "write --allow EID or --allow EID:LIMIT, e.g. --allow ACME-0001:3")
      }
      eid = String(text[..<colon])
      limit = number
    }
    guard !eid.trimmingCharacters(in: .whitespaces).isEmpty else {
      throw WorkbenchError(.usage, "--allow \(text): the EID is empty", help: "e.g. --allow ACME-0001:3")
    }
    return AllowedEID(eid: eid, limit: limit)
  }

  /// An allow file: one JSON object from EID to limit, `{"ACME-0001": 3, "ACME-0002": 1}`.
  public static func read(path: String) throws(WorkbenchError) -> [AllowedEID] {
    let help = "an allow file is a JSON object from EID to the number of machines, e.g. {\"ACME-0001\": 3}"
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(
        .usage, "cannot read the allow file", at: SourceLocation(file: path),
        help: "check the path and the file's permissions; " + help)
    }
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      throw WorkbenchError(
        .usage, "not JSON: \(error)", at: SourceLocation(file: path, line: error.line), help: help)
    }
    guard let object = document.objectValue else {
      throw WorkbenchError(
        .usage, "the allow file holds \(document.kindName), not an object", at: SourceLocation(file: path),
        help: help)
    }
    var allowed: [AllowedEID] = []
    var problems: [Diagnostic] = []
    for (eid, value) in object {
      guard let limit = value.integerValue, (1...Int64(maximumLimit)).contains(limit) else {
        problems.append(
          Diagnostic(
            "the limit of '\(eid)' must be a whole number from 1 to \(maximumLimit), got \(value.jsonText)",
            at: SourceLocation(file: path, key: eid), help: help))
        continue
      }
      if eid.trimmingCharacters(in: .whitespaces).isEmpty {
        problems.append(Diagnostic("an EID is empty", at: SourceLocation(file: path), help: help))
        continue
      }
      allowed.append(AllowedEID(eid: eid, limit: Int(limit)))
    }
    guard problems.isEmpty else { throw WorkbenchError(.usage, problems) }
    return allowed
  }
}

/// What `workbench license serve` runs with.
public struct ActivationServerConfiguration: Sendable {
  /// The address to listen on; loopback unless `--host` says otherwise.
  public var host: String
  /// 0 picks a free port (the server says which).
  public var port: Int
  /// The product it issues licenses for.
  public var product: String
  /// The EIDs it activates, each with its limit. An EID given twice keeps the last limit.
  public var allowed: [AllowedEID]
  /// How long each license holds, from its activation.
  public var days: Int
  public var features: [String]
  public var privateKey: LicensePrivateKey
  /// The file that keeps the activations across restarts; nil keeps them in memory only.
  public var statePath: String?
  /// The timeouts and the connection limit.
  public var connectionLimits: ActivationServerLimits

  public init(
    host: String = ActivationProtocol.defaultHost, port: Int = ActivationProtocol.defaultPort, product: String,
    allowed: [AllowedEID], days: Int = 365, features: [String] = LicenseFeature.known,
    privateKey: LicensePrivateKey, statePath: String? = nil,
    connectionLimits: ActivationServerLimits = ActivationServerLimits()
  ) {
    self.host = host
    self.port = port
    self.product = product
    self.allowed = allowed
    self.days = days
    self.features = features
    self.privateKey = privateKey
    self.statePath = statePath
    self.connectionLimits = connectionLimits
  }

  /// The limit of each allowed EID.
  public var limits: [String: Int] {
    Dictionary(allowed.map { ($0.eid, $0.limit) }, uniquingKeysWith: { _, last in last })
  }

  /// Whether `host` is a loopback address (127.0.0.0/8, ::1 or localhost).
  public static func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
  }
}

/// The reference activation server: it issues licenses signed with its
/// private key for one product, to the EIDs it allows, each on at most
/// its limit of machines. Activations are kept in the state file (written
/// atomically after each new one), so a restart keeps the counts. Asking
/// again for a machine that holds a slot issues a new license without
/// taking another slot. Slow and abusive clients meet the limits of
/// ``ActivationServerLimits``; `GET /v1/metrics` counts what happened.
public final class ActivationServer: Sendable {
  public let configuration: ActivationServerConfiguration
  let ledger: ActivationLedger
  private let requests = NIOLockedValueBox(0)
  let log: @Sendable (String) -> Void
  let metrics = ActivationServerMetrics()
  let connections: ConnectionTracker

  /// Checks the configuration and reads the state file (when there is one).
  /// `log` gets one line per request.
  public init(configuration: ActivationServerConfiguration, log: @escaping @Sendable (String) -> Void = { _ in })
    throws(WorkbenchError)
  {
    var problems: [Diagnostic] = []
    if configuration.product.trimmingCharacters(in: .whitespaces).isEmpty {
      problems.append(
        Diagnostic("--product must not be empty", help: "give the product the server issues licenses for"))
    }
    if configuration.allowed.isEmpty {
      problems.append(
        Diagnostic(
          "no EID is allowed, so every activation would be refused",
          help: "give --allow EID[:LIMIT] (repeatable) or --allow-file FILE"))
    }
    if !(1...LicenseIssuer.maximumDays).contains(configuration.days) {
      problems.append(
        Diagnostic(
          "--days must be from 1 to \(LicenseIssuer.maximumDays), got \(configuration.days)",
          help: "give the number of days each license holds, e.g. --days 365"))
    }
    if !(0...65_535).contains(configuration.port) {
      problems.append(
        Diagnostic(
          "--port must be from 0 to 65535, got \(configuration.port)", help: "0 picks a free port"))
    }
    problems += configuration.connectionLimits.problems()
    guard problems.isEmpty else { throw WorkbenchError(.usage, problems) }
    self.configuration = configuration
    self.log = log
    connections = ConnectionTracker(limit: configuration.connectionLimits.maximumConnections, metrics: metrics)
    var records: [ActivationState.Record] = []
    if let path = configuration.statePath {
      records = try ActivationState.read(path)
      ActivationState.removeTemporaryFilesOfStoppedServers(path)
    }
    ledger = ActivationLedger(configuration: configuration, records: records)
  }

  /// The requests answered so far (any path, any answer).
  public var requestCount: Int { get async { requests.withLockedValue { $0 } } }

  /// The machines (and container-mode activations) that hold a slot of `eid`.
  public func activationCount(eid: String) async -> Int { await ledger.count(eid: eid) }

  /// The connections so far: open, accepted, refused, closed by a timeout.
  public var connectionStatistics: ConnectionStatistics { connections.statistics }

  /// What `GET /v1/metrics` answers now.
  public var metricsText: String { String(decoding: metrics.text(), as: UTF8.self) }

  /// Listens until SIGINT or SIGTERM (when `stopOnSignals`), or until the
  /// task is cancelled. `onListening` gets the port it listens on, once.
  /// A port in use, or an address that cannot be bound, is a usage error.
  public func run(stopOnSignals: Bool, onListening: @escaping @Sendable (Int) -> Void = { _ in })
    async throws(WorkbenchError)
  {
    try configuration.connectionLimits.raiseDescriptorLimit()
    let group = serviceGroup(stopOnSignals: stopOnSignals, onListening: onListening)
    do {
      try await group.run()
    } catch {
      throw describe(error)
    }
  }

  /// Starts the server, runs `body` with its port, and stops the server
  /// (also when `body` throws). For tests and tools that need a server for
  /// a while.
  public func withRunning<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
    try configuration.connectionLimits.raiseDescriptorLimit()
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let group = serviceGroup(stopOnSignals: false) { port in
      continuation.yield(port)
      continuation.finish()
    }
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask {
        defer { continuation.finish() }
        do { try await group.run() } catch { throw self.describe(error) }
      }
      var iterator = ports.makeAsyncIterator()
      guard let port = await iterator.next() else {
        // The server stopped before it listened: its error.
        _ = try await tasks.next()
        throw WorkbenchError(.usage, "the activation server stopped before it listened")
      }
      let result: Result<T, any Error>
      do { result = .success(try await body(port)) } catch { result = .failure(error) }
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
      return try result.get()
    }
  }

  private func serviceGroup(stopOnSignals: Bool, onListening: @escaping @Sendable (Int) -> Void) -> ServiceGroup {
    // Hummingbird's own messages only when something goes wrong.
    var logger = Logger(label: "workbench.license-serve") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .error
    let application = Application(
      responder: ActivationResponder(server: self),
      server: .guardedHTTP1(limits: configuration.connectionLimits, tracker: connections),
      // A listen backlog as deep as the connection limit (the system caps it
      // at net.core.somaxconn): when thousands of slow clients connect again
      // at once, a full backlog drops the SYN of everyone else, health
      // included, for a second until the client sends it again.
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "workbench-license-server",
        backlog: max(256, configuration.connectionLimits.maximumConnections), reuseAddress: true),
      onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
      logger: logger)
    var groupConfiguration = ServiceGroupConfiguration(
      services: [application], gracefulShutdownSignals: stopOnSignals ? [.sigterm, .sigint] : [], logger: logger)
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(5)
    groupConfiguration.maximumCancellationDuration = .seconds(5)
    return ServiceGroup(configuration: groupConfiguration)
  }

  private func describe(_ error: any Error) -> WorkbenchError {
    if let error = error as? WorkbenchError { return error }
    let address = "\(configuration.host):\(configuration.port)"
    if let error = error as? IOError {
      let help =
        error.errnoCode == EADDRINUSE
        ? "another program listens there: stop it or choose another --port (0 picks a free one)"
        : "check --host (an address of this machine) and --port"
      return WorkbenchError(
        .usage, "cannot listen on \(address): \(String(cString: strerror(error.errnoCode)).lowercased())", help: help)
    }
    return WorkbenchError(
      .usage, "cannot listen on \(address): \(error)", help: "check --host (an address of this machine) and --port")
  }

  /// The answer to one request, and what the log line says about it.
  struct Answer {
    var status: HTTPResponse.Status
    var body: Data
    var note: String
    var contentType = ActivationProtocol.jsonContentType
  }

  /// The body could not be read to its end: the connection closed first.
  struct IncompleteBody: Error {}

  func respond(method: String, path: String, body: () async throws -> Data) async -> Answer {
    requests.withLockedValue { $0 += 1 }
    func problem(_ status: HTTPResponse.Status, _ reason: String, _ message: String) -> Answer {
      Answer(status: status, body: ActivationProblem(reason: reason, message: message).jsonData, note: message)
    }
    switch (path, method) {
    case (ActivationProtocol.healthPath, "GET"), (ActivationProtocol.healthPath, "HEAD"):
      let object = JSONObject([("status", "ok"), ("product", .string(configuration.product))])
      return Answer(status: .ok, body: Data(JSONValue.object(object).jsonText.utf8), note: "")
    case (ActivationProtocol.metricsPath, "GET"), (ActivationProtocol.metricsPath, "HEAD"):
      return Answer(status: .ok, body: Data(metrics.text()), note: "", contentType: ActivationServerMetrics.contentType)
    case (ActivationProtocol.activatePath, "POST"):
      break
    case (ActivationProtocol.healthPath, _), (ActivationProtocol.metricsPath, _), (ActivationProtocol.activatePath, _):
      let allowed = path == ActivationProtocol.activatePath ? "POST" : "GET"
      return problem(.methodNotAllowed, ActivationProblem.methodNotAllowed, "\(path) takes \(allowed), not \(method)")
    default:
      return problem(
        .notFound, ActivationProblem.notFound,
        "no such endpoint: \(path) (this server answers POST \(ActivationProtocol.activatePath), "
          + "GET \(ActivationProtocol.healthPath) and GET \(ActivationProtocol.metricsPath))")
    }
    let answer = await activate(body: body)
    metrics.countActivation(outcome: answer.outcome)
    return answer.answer
  }

  /// The answer to `POST /v1/activate`, and its outcome for the metrics.
  private func activate(body: () async throws -> Data) async -> (answer: Answer, outcome: String) {
    func problem(_ status: HTTPResponse.Status, _ reason: String, _ message: String) -> (Answer, String) {
      (
        Answer(status: status, body: ActivationProblem(reason: reason, message: message).jsonData, note: message),
        reason
      )
    }
    let data: Data
    do {
      data = try await body()
    } catch is NIOTooManyBytesError {
      // Hummingbird reads the rest and drops it, within the body timeout.
      return problem(
        .badRequest, ActivationProblem.tooLarge,
        "the request is larger than \(ActivationProtocol.maximumRequestSize) bytes")
    } catch {
      // The body timeout closed the connection, or the client left: nobody
      // reads this answer, but the log and the metrics say what happened.
      return problem(
        .requestTimeout, ActivationProblem.incompleteRequest,
        "the connection closed before the request's body arrived (the body timeout is "
          + "\(ActivationServerLimits.text(configuration.connectionLimits.bodyTimeout)))")
    }
    let request: ActivationRequest
    switch ActivationRequest.parse(data) {
    case .success(let parsed): request = parsed
    case .failure(let malformed):
      return problem(.badRequest, ActivationProblem.malformedRequest, "malformed request: " + malformed.message)
    }
    switch await ledger.activate(request, now: Date()) {
    case .refused(let refusal):
      return (
        Answer(status: .forbidden, body: refusal.jsonData, note: "refused: \(refusal.message) (\(refusal.reason))"),
        refusal.reason
      )
    case .failed(let message):
      return problem(.internalServerError, ActivationProblem.serverError, message)
    case .issued(let license, let data, let slot, let again):
      let machine = license.fingerprint.map { "machine \($0)" } ?? "container mode"
      let limit = configuration.limits[request.eid] ?? 0
      let note =
        "issued license \(license.id) to EID \(license.eid) for \(machine) until "
        + "\(License.timestamp(license.expires)) (\(again ? "again, " : "")slot \(slot) of \(limit))"
      return (Answer(status: .ok, body: data, note: note), again ? "reissued" : "issued")
    }
  }
}

/// Hummingbird's side: reads the request, answers, logs one line.
struct ActivationResponder: HTTPResponder {
  typealias Context = ActivationRequestContext

  let server: ActivationServer

  func respond(to request: Request, context: Context) async throws -> Response {
    let channel = context.channel
    let answer = await server.respond(method: request.method.rawValue, path: request.uri.path) {
      let buffer = try await request.body.collect(upTo: ActivationProtocol.maximumRequestSize)
      // A body cut short by a closed connection ends like a whole one.
      guard channel.isActive else { throw ActivationServer.IncompleteBody() }
      return Data(buffer.readableBytesView)
    }
    server.metrics.countRequest(path: request.uri.path, status: Int(answer.status.code))
    let note = answer.note.isEmpty ? "" : " " + answer.note
    server.log(
      "\(License.timestamp(Date())) \(context.peer) \(request.method.rawValue) \(request.uri.path) "
        + "\(answer.status.code)\(note)")
    var headers = HTTPFields()
    headers[.contentType] = answer.contentType
    if answer.status == .methodNotAllowed {
      headers[.allow] = request.uri.path == ActivationProtocol.activatePath ? "POST" : "GET, HEAD"
    }
    return Response(
      status: answer.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
  }
}

/// A request context that knows who asked, for the log, and its connection.
struct ActivationRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let peer: String
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = CoreRequestContextStorage(source: source)
    peer = source.channel.remoteAddress?.ipAddress ?? "-"
    channel = source.channel
  }
}

/// The activations, and the decisions made with them. One at a time, so
/// that two machines never take the last slot together, on a serial queue
/// of their own rather than an actor: each decision writes and syncs the
/// state file, blocking work that must not hold the few threads that
/// answer every other request (health waited behind queued activations).
final class ActivationLedger: @unchecked Sendable {
  enum Decision: Sendable {
    case issued(License, Data, slot: Int, again: Bool)
    case refused(ActivationProblem)
    case failed(String)
  }

  let configuration: ActivationServerConfiguration
  let issuer: LicenseIssuer
  /// Every use of `records` runs on this queue; that is what makes the
  /// class safe to share.
  private let queue = DispatchQueue(label: "workbench.activation-ledger")
  private var records: [ActivationState.Record]

  init(configuration: ActivationServerConfiguration, records: [ActivationState.Record]) {
    self.configuration = configuration
    self.issuer = LicenseIssuer(privateKey: configuration.privateKey)
    self.records = records
  }

  func count(eid: String) async -> Int {
    await onQueue { $0.records.filter { $0.eid == eid }.count }
  }

  func activate(_ request: ActivationRequest, now: Date) async -> Decision {
    await onQueue { $0.decide(request, now: now) }
  }

  private func onQueue<T: Sendable>(_ work: @escaping @Sendable (ActivationLedger) -> T) async -> T {
    await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: work(self)) }
    }
  }

  private func decide(_ request: ActivationRequest, now: Date) -> Decision {
    guard request.product == configuration.product else {
      return .refused(
        ActivationProblem(
          .wrongProduct,
          "this server issues licenses for product '\(configuration.product)', not '\(request.product)'"))
    }
    guard let limit = configuration.limits[request.eid] else {
      return .refused(ActivationProblem(.unknownEID, "EID '\(request.eid)' is not allowed on this server"))
    }
    let held = records.indices.filter { records[$0].eid == request.eid }
    let fingerprint = request.binding == .container ? nil : request.binding.fingerprintValue
    let existing = fingerprint.flatMap { value in held.first { records[$0].fingerprint == value } }
    if existing == nil, held.count >= limit {
      return .refused(
        ActivationProblem(
          .limitReached,
          "EID '\(request.eid)' is activated on \(held.count) of \(limit) machine\(limit == 1 ? "" : "s"); "
            + "no activation is left"))
    }
    let license = License(
      product: configuration.product, eid: request.eid, binding: request.binding, issued: now,
      expires: now.addingTimeInterval(Double(configuration.days) * 86_400), features: configuration.features)
    let data: Data
    do {
      data = try issuer.issue(license)
    } catch {
      return .failed("cannot issue the license: \(error.diagnostics.map(\.message).joined(separator: "; "))")
    }
    var updated = records
    let slot: Int
    if let existing {
      updated[existing].licenseID = license.id
      updated[existing].lastActivated = license.issued
      slot = held.firstIndex(of: existing).map { $0 + 1 } ?? 1
    } else {
      updated.append(
        ActivationState.Record(
          eid: request.eid, product: request.product, fingerprint: fingerprint, licenseID: license.id,
          firstActivated: license.issued, lastActivated: license.issued))
      slot = held.count + 1
    }
    if let path = configuration.statePath {
      do {
        try ActivationState.write(updated, to: path)
      } catch {
        return .failed(
          "cannot record the activation in \(path): \(error.diagnostics.map(\.message).joined(separator: "; "))")
      }
    }
    records = updated
    return .issued(license, data, slot: slot, again: existing != nil)
  }
}

extension LicenseBinding {
  fileprivate var fingerprintValue: String? {
    if case .machine(let fingerprint) = self { return fingerprint.value }
    return nil
  }
}

/// The state file of `license serve --state`:
/// `{"workbench_activations":1,"activations":[{"eid","product","fingerprint"|null,"license_id","first_activated","last_activated"}]}`.
enum ActivationState {
  static let formatKey = "workbench_activations"
  static let version: Int64 = 1

  struct Record: Sendable, Equatable {
    var eid: String
    var product: String
    /// Nil for a container-mode activation.
    var fingerprint: String?
    var licenseID: String
    var firstActivated: Date
    var lastActivated: Date
  }

  /// The records of the file at `path`; none when there is no file yet.
  static func read(_ path: String) throws(WorkbenchError) -> [Record] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      let folder = (path as NSString).deletingLastPathComponent
      guard folder.isEmpty || FileManager.default.fileExists(atPath: folder) else {
        throw WorkbenchError(
          .usage, "the folder \(folder) does not exist", at: SourceLocation(file: path),
          help: "create it first or choose another --state path")
      }
      return []
    }
    let help =
      "the state file is written by `workbench license serve --state`; move a damaged one away to start counting anew"
    guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(
        .usage, isDirectory.boolValue ? "is a folder, not a file" : "cannot read the state file",
        at: SourceLocation(file: path), help: help)
    }
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      throw WorkbenchError(
        .usage, "not an activation state file: not JSON (\(error))", at: SourceLocation(file: path, line: error.line),
        help: help)
    }
    guard document[formatKey]?.integerValue == version, let list = document["activations"]?.arrayValue else {
      throw WorkbenchError(
        .usage, "not an activation state file (version \(version))", at: SourceLocation(file: path), help: help)
    }
    var records: [Record] = []
    for (index, item) in list.enumerated() {
      guard let eid = item["eid"]?.stringValue, let product = item["product"]?.stringValue,
        let licenseID = item["license_id"]?.stringValue,
        let first = item["first_activated"]?.stringValue.flatMap(License.date(fromTimestamp:)),
        let last = item["last_activated"]?.stringValue.flatMap(License.date(fromTimestamp:)),
        item["fingerprint"] == .null || item["fingerprint"]?.stringValue.flatMap(MachineFingerprint.init) != nil
      else {
        throw WorkbenchError(
          .usage, "activation \(index + 1) of the state file cannot be read", at: SourceLocation(file: path),
          help: help)
      }
      records.append(
        Record(
          eid: eid, product: product, fingerprint: item["fingerprint"]?.stringValue, licenseID: licenseID,
          firstActivated: first, lastActivated: last))
    }
    return records
  }

  /// Removes the temporary files (`.NAME.PID.tmp`, `.NAME.PID.N.tmp`) that a
  /// server killed while it wrote `path` left beside it. The state itself
  /// is whole (the temporary file is renamed over it only once written);
  /// these are litter. A file of a process that still runs is kept.
  static func removeTemporaryFilesOfStoppedServers(_ path: String) {
    let parent = (path as NSString).deletingLastPathComponent
    let folder = parent.isEmpty ? "." : parent
    let prefix = "." + (path as NSString).lastPathComponent + "."
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
      guard let pid = middle.split(separator: ".").first.flatMap({ Int32($0) }), pid > 0 else { continue }
      if kill(pid, 0) == -1 && errno == ESRCH { unlink(folder + "/" + name) }
    }
  }

  /// Replaces the file at `path` atomically (mode 0600).
  static func write(_ records: [Record], to path: String) throws(WorkbenchError) {
    let list = records.map { record in
      JSONValue.object(
        JSONObject([
          ("eid", .string(record.eid)), ("product", .string(record.product)),
          ("fingerprint", record.fingerprint.map { .string($0) } ?? .null), ("license_id", .string(record.licenseID)),
          ("first_activated", .string(License.timestamp(record.firstActivated))),
          ("last_activated", .string(License.timestamp(record.lastActivated))),
        ]))
    }
    let document = JSONValue.object(JSONObject([(formatKey, .integer(version)), ("activations", .array(list))]))
    try LicenseFiles.write(Data((document.jsonText + "\n").utf8), to: path, mode: 0o600, replacing: true)
  }
}
