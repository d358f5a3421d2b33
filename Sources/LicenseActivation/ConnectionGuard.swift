import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with the server's limits in front of it:
/// ``ConnectionGuardHandler`` on the raw bytes (the connection limit, the
/// timeouts) and ``RequestProgressHandler`` after the HTTP codec (which tells
/// the guard where each request is).
struct GuardedHTTP1Channel: ServerChildChannel {
  typealias Value = HTTP1Channel.Value

  let http1: HTTP1Channel
  let limits: ActivationServerLimits
  let tracker: ConnectionTracker

  init(responder: @escaping HTTPChannelHandler.Responder, limits: ActivationServerLimits, tracker: ConnectionTracker) {
    // No idle timeout of Hummingbird's: the guard keeps every timeout, so
    // that each has one meaning. Its handler still closes idle connections
    // on a graceful shutdown.
    let metrics = tracker.metrics
    http1 = HTTP1Channel(
      responder: responder,
      configuration: .init(additionalChannelHandlers: [RequestProgressHandler(metrics: metrics)]))
    self.limits = limits
    self.tracker = tracker
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    // Every connection is counted before anything reads from it. A refused
    // one is still set up as usual (a failed setup would stop the listener),
    // but its guard never lets a byte through.
    let admission = tracker.admit()
    let tracker = self.tracker
    channel.closeFuture.whenComplete { _ in tracker.release(admission) }
    do {
      try channel.pipeline.syncOperations.addHandler(
        ConnectionGuardHandler(admission: admission, limits: limits, tracker: tracker), position: .first)
    } catch {
      channel.close(promise: nil)
      return channel.eventLoop.makeFailedFuture(error)
    }
    return http1.setup(channel: channel, logger: logger)
  }

  func handle(value: Value, logger: Logger) async {
    await http1.handle(value: value, logger: logger)
  }
}

extension HTTPServerBuilder {
  /// HTTP/1.1 with the activation server's limits.
  static func guardedHTTP1(limits: ActivationServerLimits, tracker: ConnectionTracker) -> HTTPServerBuilder {
    HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits, tracker: tracker) }
  }
}

/// Where the request on a connection is, as ``RequestProgressHandler`` tells
/// ``ConnectionGuardHandler`` (an outbound user event: it travels from the
/// HTTP side of the pipeline towards the socket).
enum RequestProgress {
  /// A request head arrived: its body is due.
  case headReceived
  /// The whole request arrived: the server is answering.
  case endReceived
  /// The answer to one request has been written.
  case responseSent
}

/// Sees the HTTP parts go by and tells the guard; closes the connection
/// after an answer that says `Connection: close`.
final class RequestProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let metrics: ActivationServerMetrics
  private var closeAfterResponse = false
  /// Request heads received and not answered yet.
  private var unanswered = 0

  init(metrics: ActivationServerMetrics) { self.metrics = metrics }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      unanswered += 1
      context.triggerUserOutboundEvent(RequestProgress.headReceived, promise: nil)
    case .end: context.triggerUserOutboundEvent(RequestProgress.endReceived, promise: nil)
    case .body: break
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(let response):
      // Hummingbird answers 400 by itself when the bytes are not a whole
      // request: an answer with no request head before it. It tries that on
      // a connection a timeout closed too, which is counted as a timeout.
      if unanswered == 0 && context.channel.isActive { metrics.countMalformedRequest() }
      if response.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
      context.write(data, promise: promise)
    case .body:
      context.write(data, promise: promise)
    case .end:
      unanswered = max(unanswered - 1, 0)
      guard closeAfterResponse else {
        context.write(data, promise: promise)
        context.triggerUserOutboundEvent(RequestProgress.responseSent, promise: nil)
        return
      }
      // Closed once the answer is out, not before: closing with writes
      // pending would drop them.
      let written = context.eventLoop.makePromise(of: Void.self)
      context.writeAndFlush(data, promise: written)
      written.futureResult.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
        promise?.completeWith(result)
        context.close(promise: nil)
      }
    }
  }
}

/// The first handler of every connection: it refuses a connection over the
/// limit with a 503, and closes one whose client is too slow.
///
/// The timeouts (``ActivationServerLimits``): from the connection being
/// accepted, the request head is due within the header timeout; once it
/// arrived, the body within the body timeout; while the server answers,
/// none runs; after the answer, the connection may stay idle for the idle
/// timeout, and the first byte of the next request starts its header
/// timeout. One timer per connection, re-armed at each step.
final class ConnectionGuardHandler: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = IOData
  typealias OutboundOut = IOData

  private let admission: ConnectionTracker.Admission
  private let limits: ActivationServerLimits
  private let tracker: ConnectionTracker
  private var started = false
  /// A request head arrived and its end has not.
  private var readingRequest = false
  /// Requests whose answer has not been written yet.
  private var unanswered = 0
  /// Kept alive after an answer, with no byte of the next request yet.
  private var idle = false
  private var timer: Scheduled<Void>?

  init(admission: ConnectionTracker.Admission, limits: ActivationServerLimits, tracker: ConnectionTracker) {
    self.admission = admission
    self.limits = limits
    self.tracker = tracker
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { start(context: context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) { disarm() }

  func channelActive(context: ChannelHandlerContext) {
    start(context: context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    context.fireChannelInactive()
  }

  private func start(context: ChannelHandlerContext) {
    guard !started else { return }
    started = true
    if case .refused(let lingers) = admission {
      refuse(context: context, lingers: lingers)
    } else {
      arm(.header, after: limits.headerTimeout, context: context)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    // A refused connection's request is read and dropped, so that closing
    // it does not reset the connection before the client has read the 503.
    guard admission == .admitted else { return }
    if idle {
      idle = false
      arm(.header, after: limits.headerTimeout, context: context)
    }
    context.fireChannelRead(data)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if admission != .admitted, let event = event as? ChannelEvent, event == .inputClosed {
      // The client read the 503 and closed its side.
      context.close(promise: nil)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
    guard let progress = event as? RequestProgress else {
      context.triggerUserOutboundEvent(event, promise: promise)
      return
    }
    switch progress {
    case .headReceived:
      idle = false
      readingRequest = true
      unanswered += 1
      arm(.body, after: limits.bodyTimeout, context: context)
    case .endReceived:
      readingRequest = false
      disarm()
    case .responseSent:
      unanswered = max(unanswered - 1, 0)
      if !readingRequest && unanswered == 0 {
        idle = true
        arm(.idle, after: limits.idleTimeout, context: context)
      }
    }
    promise?.succeed(())
  }

  private func arm(_ kind: ConnectionTimeout, after duration: Duration, context: ChannelHandlerContext) {
    disarm()
    // The answer to a request whose body timed out is still written (into
    // the closed connection): nothing is left to time.
    guard context.channel.isActive else { return }
    let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
      timer = nil
      expire(kind, context: context)
    }
  }

  private func disarm() {
    timer?.cancel()
    timer = nil
  }

  private func expire(_ kind: ConnectionTimeout, context: ChannelHandlerContext) {
    guard context.channel.isActive else { return }
    tracker.timedOut(kind)
    guard kind == .header else {
      // An idle connection has nothing to be told; during a body, the
      // responder owns the answer and finds the connection closed.
      context.close(promise: nil)
      return
    }
    let problem = ActivationProblem(
      reason: ActivationProblem.requestTimeout,
      message: "the request head did not arrive within \(ActivationServerLimits.text(limits.headerTimeout))")
    writeThenClose(context: context, status: "408 Request Timeout", problem: problem, extraHeaders: "")
  }

  private func refuse(context: ChannelHandlerContext, lingers: Bool) {
    let problem = ActivationProblem(
      reason: ActivationProblem.tooManyConnections,
      message: "the server has \(tracker.limit) connections open, its limit; try again shortly")
    guard lingers else {
      writeThenClose(
        context: context, status: "503 Service Unavailable", problem: problem, extraHeaders: "Retry-After: 1\r\n")
      return
    }
    // Written, then only our side closed: the client reads the answer and
    // closes its side (userInboundEventTriggered), or the linger ends.
    let written = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(
      wrapOutboundOut(.byteBuffer(Self.answer("503 Service Unavailable", problem, extraHeaders: "Retry-After: 1\r\n"))),
      promise: written)
    written.futureResult.assumeIsolated().whenComplete { _ in context.close(mode: .output, promise: nil) }
    timer = context.eventLoop.assumeIsolated().scheduleTask(in: ActivationServerLimits.refusalLinger) {
      context.close(promise: nil)
    }
  }

  private func writeThenClose(
    context: ChannelHandlerContext, status: String, problem: ActivationProblem, extraHeaders: String
  ) {
    let written = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(
      wrapOutboundOut(.byteBuffer(Self.answer(status, problem, extraHeaders: extraHeaders))), promise: written)
    written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
  }

  /// A whole HTTP/1.1 answer with a problem body, written under the HTTP
  /// codec: no request is being answered when the guard speaks.
  private static func answer(_ status: String, _ problem: ActivationProblem, extraHeaders: String) -> ByteBuffer {
    let body = problem.jsonData
    var buffer = ByteBuffer()
    buffer.writeString(
      "HTTP/1.1 \(status)\r\nContent-Type: \(ActivationProtocol.jsonContentType)\r\n"
        + "Content-Length: \(body.count)\r\nConnection: close\r\n\(extraHeaders)\r\n")
    buffer.writeBytes(body)
    return buffer
  }

}
