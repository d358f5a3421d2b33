import Foundation
import Hummingbird
import JSONCore
import Licensing
import NIOCore

// The server's routes (POST /v1/activate, GET /v1/health, GET /v1/metrics) and Hummingbird's
// side of them: the responder, and the context it gets each request with.

extension ActivationServer {
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
