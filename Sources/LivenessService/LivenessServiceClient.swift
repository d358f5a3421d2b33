import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// Posts one image at a time to a liveness service from a thread of its
/// own, so that the frame loop never waits for the network unless it
/// chooses to. One request is on its way at most: `submit` refuses another
/// until its answer has been taken, so nothing queues.
///
/// The request is LUNA PLATFORM's: `POST` multipart/form-data with the
/// JPEG as the part `images`. A request that fails for the network or a
/// 5xx is tried once more; each try may take `timeout` seconds.
public final class LivenessServiceClient {
  public typealias Completed = (frame: Int64, result: Result<LivenessAnswer, LivenessServiceError>)

  public let url: String
  private let worker: Worker

  /// Fails when the URL is not http(s) or the trust file cannot be read.
  public init(url: String, timeout: Double, caFile: String? = nil) throws(LivenessServiceError) {
    guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
      parsed.host?.isEmpty == false
    else {
      throw LivenessServiceError(.unreachable, "not an http:// or https:// URL: \(url)")
    }
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    let milliseconds = Int64(timeout * 1000)
    configuration.timeout = HTTPClient.Configuration.Timeout(
      connect: .milliseconds(milliseconds), read: .milliseconds(milliseconds))
    if let caFile {
      var tls = TLSConfiguration.makeClientConfiguration()
      do {
        tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
      } catch {
        throw LivenessServiceError(.unreachable, "cannot read the certificates in \(caFile): \(error)")
      }
      configuration.tlsConfiguration = tls
    }
    self.url = url
    worker = Worker(
      url: url, timeout: timeout, http: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    let worker = self.worker
    let thread = Thread { worker.run() }
    thread.name = "workbench.liveness-service"
    thread.start()
  }

  deinit { worker.stop() }

  /// Hands the image of frame `frame` to the service; false while the
  /// last one's answer has not been taken.
  public func submit(jpeg: [UInt8], frame: Int64) -> Bool { worker.submit(jpeg, frame: frame) }

  /// Whether an image was handed over and its answer not yet taken.
  public var isBusy: Bool { worker.isBusy }

  /// The answer to the image handed over, once, when it has come.
  public func takeAnswer() -> Completed? { worker.take(waiting: nil) }

  /// Waits for the answer (two tries of `timeout`, at most, and a margin).
  public func waitForAnswer() -> Completed? { worker.take(waiting: worker.timeout * 2 + 1) }

  /// Drops the answer to the image on its way, or come and not taken: a
  /// new run on the same estimators must not get the last run's answer.
  public func discardAnswer() { worker.discard() }

  /// Requests made, tries included, for the log.
  public var attempts: Int { worker.attempts }

  /// The state the frame loop and the worker share, behind one lock.
  final class Worker: @unchecked Sendable {
    let url: String
    let timeout: Double
    private let http: HTTPClient
    /// Guards the state below, and tells a waiting frame loop the answer came.
    private let lock = NSCondition()
    private let wake = DispatchSemaphore(value: 0)
    private var request: (jpeg: [UInt8], frame: Int64, generation: Int)?
    /// Answers to requests of an older generation are dropped (`discard`).
    private var generation = 0
    private var answer: Completed?
    private var busy = false
    private var stopping = false
    private var tries = 0

    init(url: String, timeout: Double, http: HTTPClient) {
      self.url = url
      self.timeout = timeout
      self.http = http
    }

    var isBusy: Bool { lock.withLock { busy } }
    var attempts: Int { lock.withLock { tries } }

    func submit(_ jpeg: [UInt8], frame: Int64) -> Bool {
      let taken = lock.withLock { () -> Bool in
        guard !busy, !stopping else { return false }
        busy = true
        request = (jpeg, frame, generation)
        return true
      }
      if taken { wake.signal() }
      return taken
    }

    func take(waiting seconds: Double?) -> Completed? {
      lock.lock()
      defer { lock.unlock() }
      if let seconds {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while busy, answer == nil, lock.wait(until: deadline) {}
      }
      guard let answer else { return nil }
      self.answer = nil
      busy = false
      return answer
    }

    func discard() {
      lock.withLock {
        generation += 1
        if answer != nil {
          answer = nil
          busy = false
        }
      }
    }

    func stop() {
      lock.withLock { stopping = true }
      wake.signal()
      // Cancels a request on its way, so that the thread ends at once.
      try? http.syncShutdown()
    }

    func run() {
      while true {
        wake.wait()
        let next = lock.withLock { () -> (jpeg: [UInt8], frame: Int64, generation: Int)? in
          defer { request = nil }
          return stopping ? nil : request
        }
        guard let next else {
          if lock.withLock({ stopping }) { return }
          continue
        }
        var result = post(next.jpeg, frame: next.frame)
        if case .failure(let error) = result, error.isTransient, !lock.withLock({ stopping }) {
          result = post(next.jpeg, frame: next.frame)
        }
        lock.withLock {
          if next.generation == generation {
            answer = (next.frame, result)
          } else {
            busy = false
          }
          lock.broadcast()
        }
      }
    }

    private static let timeouts: [HTTPClientError] = [
      .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
      .getConnectionFromPoolTimeout,
    ]

    private func post(_ jpeg: [UInt8], frame: Int64) -> Result<LivenessAnswer, LivenessServiceError> {
      lock.withLock { tries += 1 }
      let boundary = "workbench-\(frame)-\(UInt64.random(in: 0...UInt64.max))"
      var body = ByteBuffer()
      body.writeString(
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"images\"; filename=\"frame-\(frame).jpg\"\r\n"
          + "Content-Type: image/jpeg\r\n\r\n")
      body.writeBytes(jpeg)
      body.writeString("\r\n--\(boundary)--\r\n")
      do {
        var request = try HTTPClient.Request(url: url, method: .POST)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .byteBuffer(body)
        let response = try http.execute(request: request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
          .wait()
        guard (200..<300).contains(response.status.code) else {
          return .failure(LivenessServiceError(.status, "HTTP \(response.status.code) from \(url)"))
        }
        var bytes = response.body ?? ByteBuffer()
        let data = bytes.readBytes(length: bytes.readableBytes) ?? []
        do {
          return .success(try LivenessAnswer.parse(data))
        } catch {
          return .failure(error)
        }
      } catch let error as HTTPClientError where Self.timeouts.contains(error) {
        return .failure(LivenessServiceError(.timeout, "no answer from \(url) within \(timeout) s"))
      } catch {
        return .failure(LivenessServiceError(.unreachable, "cannot reach \(url): \(error)"))
      }
    }
  }
}
