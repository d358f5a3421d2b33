import Foundation
import Hummingbird

/// LUNA PLATFORM's liveness resource as a test needs it: what it was
/// sent, and what it answers each request (`withLoopbackServer`'s `respond`).
public final class LivenessServiceDouble: @unchecked Sendable {
  public enum Reply {
    case answer(String)
    case status(Int)
    /// Answers, but only after this many seconds.
    case slow(Double, String)
  }

  private let lock = NSLock()
  private var replies: [Reply]
  private var bodies: [[UInt8]] = []
  private var types: [String] = []

  /// The replies in order; the last is repeated.
  public init(_ replies: [Reply]) { self.replies = replies }

  public static func live(_ probability: Double, quality: Double = 0.8) -> String {
    #"{"images":[{"filename":"frame.jpg","status":1,"liveness":{"prediction":\#(probability >= 0.5 ? 1 : 0),"estimations":{"probability":\#(probability),"quality":\#(quality)}},"error":{"error_id":0,"desc":"Success"}}]}"#
  }

  public var requests: Int { lock.withLock { bodies.count } }
  public var received: [(type: String, body: [UInt8])] { lock.withLock { Array(zip(types, bodies)) } }

  public func respond(_ request: Request) async throws -> Response {
    let body = try await request.body.collect(upTo: 1 << 24)
    let reply = lock.withLock { () -> Reply in
      bodies.append(Array(body.readableBytesView))
      types.append(request.headers[.contentType] ?? "")
      return replies.count > 1 ? replies.removeFirst() : replies[0]
    }
    switch reply {
    case .answer(let text):
      return Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: .init(string: text)))
    case .status(let code):
      return Response(status: .init(code: code))
    case .slow(let seconds, let text):
      try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
      return Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: .init(string: text)))
    }
  }
}

/// Runs `body`, which blocks on the network, on a thread of its own: a
/// blocked thread of the tasks' pool could starve the server the test runs.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}
