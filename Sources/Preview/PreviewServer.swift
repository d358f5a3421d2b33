import Diagnostics
import Foundation
import HTTPServing
import Hummingbird
import JSONCore
import NIOCore
import Session

/// The preview's HTTP server (docs/preview.md): the page, the run's state,
/// its frames, and the controls, which go to the session's mailbox and are
/// answered once the frame loop has taken them.
public final class PreviewServer: @unchecked Sendable {
  /// How long a request for newer state or a newer frame is held open.
  static let longPoll = 1.0
  /// How often a waiting request looks again (state, frames, replies).
  static let poll = Duration.milliseconds(5)
  /// How often a request for newer state or a newer frame looks again: a
  /// fraction of a frame at the page's rate, and few wake-ups for the run's core.
  static let waitPoll = Duration.milliseconds(15)
  /// The largest body of POST /api/settings.
  static let settingsLimit = 64 * 1024
  /// The least time between two answers of a state long poll.
  static let stateInterval = Duration.milliseconds(50)
  /// How long a control waits for the frame loop to take it.
  static let controlWait = 5.0

  public let address: PreviewAddress
  private let publisher: PreviewPublisher
  private let controls: ControlMailbox
  private let lock = NSLock()
  private var server: HTTPServer?
  private var boundPort = 0

  public init(address: PreviewAddress, publisher: PreviewPublisher, controls: ControlMailbox) {
    self.address = address
    self.publisher = publisher
    self.controls = controls
  }

  /// Starts listening and returns the port; a port in use or an address
  /// that cannot be bound is a usage error.
  public func start() throws(WorkbenchError) -> Int {
    let started = HTTPServer(
      address: address, serverName: "workbench-preview", logLabel: "workbench.preview",
      responder: makeRouter().buildResponder(), shutdownLimit: .seconds(2))
    lock.withLock { server = started }
    do {
      let port = try started.start()
      lock.withLock { boundPort = port }
      return port
    } catch {
      throw describe(error)
    }
  }

  /// Stops listening; open requests end.
  public func stop() {
    lock.withLock { server }?.stop()
  }

  private func describe(_ error: any Error) -> WorkbenchError {
    let place = "\(address.host):\(address.port)"
    if let error = error as? IOError {
      let help =
        error.errnoCode == EADDRINUSE
        ? "another program listens there: choose another port, or --preview alone for a free one"
        : "give an address of this machine, e.g. --preview 127.0.0.1:8080"
      return WorkbenchError(
        .usage, "the preview cannot listen on \(place): \(String(cString: strerror(error.errnoCode)).lowercased())",
        help: help)
    }
    return WorkbenchError(
      .usage, "the preview cannot listen on \(place): \(error)",
      help: "give an address of this machine, e.g. --preview 127.0.0.1:8080")
  }

  // MARK: Routes

  /// The controls a POST sends, by path.
  static let plainControls: [(String, LiveControl)] = [
    ("pause", .pause), ("resume", .resume), ("restart", .restart), ("close", .close),
    ("best-shot", .command("best_shot")),
  ]

  /// Every path and the one method it takes, for the answers to the others.
  static let methods: [String: String] = {
    var methods = ["/": "GET", "/api/state": "GET", "/api/frame": "GET", "/api/frame.jpg": "GET"]
    methods["/api/settings"] = "POST"
    for (name, _) in plainControls { methods["/api/\(name)"] = "POST" }
    return methods
  }()

  private func makeRouter() -> Router<BasicRequestContext> {
    let router = Router()
    // First, so that it also wraps the answer to a path no route takes.
    router.add(middleware: UnroutedRequests())
    router.get("/") { request, _ in
      if let refusal = self.refusal(request, writes: false) { return refusal }
      return Self.response(.ok, Array(PreviewPage.html.utf8), type: "text/html; charset=utf-8")
    }
    router.get("/api/state") { request, _ in
      if let refusal = self.refusal(request, writes: false) { return refusal }
      let after = request.uri.queryParameters.get("after", as: Int64.self)
      let deadline = Date(timeIntervalSinceNow: after == nil ? 0 : Self.longPoll)
      // The state changes with every frame: a client that asks again at once
      // gets it at most this often, which is all a person can read.
      if after != nil { try await Task.sleep(for: Self.stateInterval) }
      while true {
        if let state = self.publisher.state(newerThan: after) { return Self.json(.ok, state) }
        if Date() >= deadline { return Self.json(.ok, self.publisher.state(newerThan: nil) ?? .null) }
        try await Task.sleep(for: Self.waitPoll)
      }
    }
    router.get("/api/frame") { request, _ in
      if let refusal = self.refusal(request, writes: false) { return refusal }
      let after = request.uri.queryParameters.get("after", as: Int64.self)
      let deadline = Date(timeIntervalSinceNow: Self.longPoll)
      while true {
        if let frame = self.publisher.frame(after: after) {
          let t = frame.t.roundedToMicroseconds
          var bytes = Array(
            "{\"sequence\":\(frame.sequence),\"frame\":\(frame.index),\"t\":\(t),\"image\":\(frame.picture != nil),\"measurements\":"
              .utf8)
          bytes +=
            frame.measurements.last == UInt8(ascii: "\n") ? frame.measurements.dropLast() : frame.measurements[...]
          bytes +=
            Array(",\"overlays\":".utf8) + Array(JSONValue.object(frame.overlays).jsonText.utf8) + Array("}".utf8)
          return Self.response(.ok, bytes, type: "application/json")
        }
        if Date() >= deadline || self.publisher.isFinished {
          return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        try await Task.sleep(for: Self.waitPoll)
      }
    }
    router.get("/api/frame.jpg") { request, _ in
      if let refusal = self.refusal(request, writes: false) { return refusal }
      guard let sequence = request.uri.queryParameters.get("sequence", as: Int64.self),
        let jpeg = self.publisher.image(of: sequence)
      else { return Self.problem(.notFound, "no image of that frame: ask /api/frame for the newest") }
      return Self.response(.ok, jpeg, type: "image/jpeg")
    }
    for (name, control) in Self.plainControls {
      router.post("/api/\(name)") { request, _ in
        if let refusal = self.refusal(request, writes: true) { return refusal }
        return await self.send(control, request)
      }
    }
    router.post("/api/settings") { request, _ in
      if let refusal = self.refusal(request, writes: true) { return refusal }
      var request = request
      let body: ByteBuffer
      do {
        body = try await request.collectBody(upTo: Self.settingsLimit)
      } catch is NIOTooManyBytesError {
        return Self.problem(.contentTooLarge, "the settings are more than 64 KiB")
      } catch {
        return Self.problem(.badRequest, "the body could not be read: \(error)")
      }
      let assignments: [String]
      switch Result(catching: { () throws(WorkbenchError) in try Self.assignments(Array(body.readableBytesView)) }) {
      case .success(let found): assignments = found
      case .failure(let error):
        return Self.problem(.badRequest, error.diagnostics.map(\.description).joined(separator: "\n"))
      }
      return await self.send(.settings(assignments), request)
    }
    return router
  }

  /// `{"key": value, ...}` as `--set key=value` texts.
  static func assignments(_ body: [UInt8]) throws(WorkbenchError) -> [String] {
    let help = "send a JSON object of settings, e.g. {\"liveness.turn_angle\": 30}"
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: body)
    } catch {
      throw WorkbenchError(.usage, "the body is not JSON: \(error)", help: help)
    }
    guard let object = document.objectValue, !object.isEmpty else {
      throw WorkbenchError(.usage, "the body must be a JSON object with at least one setting", help: help)
    }
    if let bad = object.keys.first(where: { $0.isEmpty || $0.contains("=") }) {
      throw WorkbenchError(.usage, "'\(bad)' is not a setting's name", help: help)
    }
    return object.map { key, value in
      key + "=" + (value.stringValue ?? value.jsonText)
    }
  }

  private func send(_ control: LiveControl, _ request: Request) async -> Response {
    let source = Self.header(request, "x-workbench-source") == "page" ? "page" : "api"
    let box = ReplyBox()
    guard controls.post(control, from: source, reply: { box.set($0) }, claim: { box.claim() }) else {
      return Self.problem(.serviceUnavailable, "too many controls are waiting: try again")
    }
    var deadline = Date(timeIntervalSinceNow: Self.controlWait)
    while true {
      if let reply = box.value {
        let status: HTTPResponse.Status =
          switch reply.outcome {
          case .done: .ok
          case .refused: .conflict
          case .invalid: .badRequest
          }
        var object = JSONObject([("ok", .bool(reply.outcome == .done)), ("message", .string(reply.message))])
        object["state"] = publisher.state(newerThan: nil)
        return Self.json(status, .object(object))
      }
      if Date() >= deadline {
        // Dropped unless the session has taken it already, so that a client
        // that tries again never gets the control twice.
        if box.withdraw() {
          return Self.problem(
            .serviceUnavailable, "the run did not take the control in time; it was dropped: try again")
        }
        deadline = Date(timeIntervalSinceNow: Self.controlWait)
      }
      try? await Task.sleep(for: Self.poll)
    }
  }

  // MARK: Safety

  /// Refuses a request that ``PreviewRequestCheck`` refuses.
  private func refusal(_ request: Request, writes: Bool) -> Response? {
    let check = PreviewRequestCheck(address: address, port: lock.withLock { boundPort }, machineName: Self.machineName)
    let refusal = check.refusal(
      host: request.head.authority ?? Self.header(request, "host") ?? "", origin: Self.header(request, "origin"),
      fetchSite: Self.header(request, "sec-fetch-site"), writes: writes)
    return refusal.map { Self.problem(.forbidden, $0) }
  }

  /// This machine's host name, lower case.
  static let machineName: String = {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
  }()

  static func header(_ request: Request, _ lowercasedName: String) -> String? {
    request.headers.first { $0.name.canonicalName == lowercasedName }?.value
  }

  // MARK: Responses

  static func response(_ status: HTTPResponse.Status, _ bytes: [UInt8], type: String) -> Response {
    Response(
      status: status, headers: [.contentType: type, .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
    response(status, Array(value.jsonText.utf8), type: "application/json")
  }

  static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
    json(status, .object(JSONObject([("ok", .bool(false)), ("message", .string(message))])))
  }
}

/// A request no route takes gets JSON too, as every answer of the API:
/// 405 with `Allow` for a path that takes another method, 404 for a path
/// there is not.
struct UnroutedRequests: RouterMiddleware {
  typealias Context = BasicRequestContext

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as HTTPError where error.status == .notFound {
      let path = request.uri.path
      guard let method = PreviewServer.methods[path] else {
        return PreviewServer.problem(.notFound, "there is no \(path) here: docs/preview.md lists the API")
      }
      var response = PreviewServer.problem(
        .methodNotAllowed, "\(path) takes \(method), not \(request.method.rawValue)")
      response.headers[.allow] = method
      return response
    }
  }
}

private final class ReplyBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: ControlReply?
  private var withdrawn = false
  private var taken = false

  func set(_ reply: ControlReply) { lock.withLock { stored = reply } }
  var value: ControlReply? { lock.withLock { stored } }

  /// The session takes the control, unless its sender gave up.
  func claim() -> Bool {
    lock.withLock {
      if withdrawn { return false }
      taken = true
      return true
    }
  }

  /// Gives up waiting, unless the session has taken the control (then false).
  func withdraw() -> Bool {
    lock.withLock {
      if taken || stored != nil { return false }
      withdrawn = true
      return true
    }
  }
}
