import AsyncHTTPClient
import Diagnostics
import Foundation
import JSONCore
import NIOCore

/// Posts records to an HTTP endpoint in batches, from a thread of its own:
/// `accept` only appends to a bounded buffer, so the frame loop never waits
/// for the network. When the buffer is full, new records are dropped and
/// counted; a batch the endpoint does not take is tried again later.
///
/// Each POST's body is `{"records": [ ... ]}` (JSON, UTF-8).
public final class HTTPAnalyticsSink: AnalyticsSink, @unchecked Sendable {
  public let url: String
  public let batchSize: Int
  public let capacity: Int
  public let flushInterval: TimeInterval
  /// How long `finish` waits for the last batches.
  public let finishTimeout: TimeInterval
  /// How long one POST may take, connecting included.
  public let postTimeout: TimeInterval

  private let lock = NSLock()
  private var buffer: [AnalyticsRecord] = []
  private var finishing = false
  private var sent = 0
  private var dropped = 0
  private var failedPosts = 0
  private var lastFailure: String?
  private let wake = DispatchSemaphore(value: 0)
  private let stopped = DispatchSemaphore(value: 0)
  private let client: HTTPClient
  private var shutDown = false

  public init(
    url: String, batchSize: Int = 50, capacity: Int = 1000, flushInterval: TimeInterval = 1,
    finishTimeout: TimeInterval = 5, postTimeout: TimeInterval = 5
  ) throws(WorkbenchError) {
    guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
      throw WorkbenchError(
        .usage, "not an http:// or https:// URL: \(url)", at: SourceLocation(file: url, key: "--analytics"),
        help: "give the endpoint that takes the records, e.g. --analytics http://127.0.0.1:9000/v1/traces")
    }
    // Made only once the URL is known to be good: a client must be shut down.
    var configuration = HTTPClient.Configuration()
    // A refused connection fails the post at once; the batch is tried again later.
    configuration.connectionPool.retryConnectionEstablishment = false
    let milliseconds = Int64(postTimeout * 1000)
    configuration.timeout = HTTPClient.Configuration.Timeout(
      connect: .milliseconds(min(milliseconds, 2000)), read: .milliseconds(milliseconds))
    client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    self.url = url
    self.batchSize = batchSize
    self.capacity = capacity
    self.flushInterval = flushInterval
    self.finishTimeout = finishTimeout
    self.postTimeout = postTimeout
    let thread = Thread { [weak self] in self?.run() }
    thread.name = "workbench.analytics"
    thread.start()
  }

  public func accept(_ record: AnalyticsRecord) {
    lock.lock()
    if buffer.count >= capacity {
      dropped += 1
    } else {
      buffer.append(record)
    }
    let full = buffer.count >= batchSize
    lock.unlock()
    if full { wake.signal() }
  }

  private func run() {
    while true {
      _ = wake.wait(timeout: .now() + flushInterval)
      while true {
        lock.lock()
        let batch = Array(buffer.prefix(batchSize))
        let done = finishing
        lock.unlock()
        if batch.isEmpty {
          if done {
            stopped.signal()
            return
          }
          break
        }
        if post(batch) {
          lock.lock()
          buffer.removeFirst(batch.count)
          sent += batch.count
          lock.unlock()
        } else {
          lock.lock()
          failedPosts += 1
          if finishing {
            // No time left to try again: what is left is lost, and counted.
            dropped += buffer.count
            buffer.removeAll()
          }
          lock.unlock()
          break
        }
      }
    }
  }

  /// One POST; true when the endpoint answered 2xx.
  private func post(_ batch: [AnalyticsRecord]) -> Bool {
    let body = JSONValue.object(JSONObject([("records", .array(batch.map(\.json)))])).jsonText
    do {
      var request = try HTTPClient.Request(url: url, method: .POST)
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .string(body)
      let response = try client.execute(request: request, deadline: .now() + .milliseconds(Int64(postTimeout * 1000)))
        .wait()
      if (200..<300).contains(response.status.code) { return true }
      lock.lock()
      lastFailure = "HTTP \(response.status.code)"
      lock.unlock()
    } catch {
      lock.lock()
      lastFailure = "\(error)"
      lock.unlock()
    }
    return false
  }

  public func finish() throws(WorkbenchError) {
    lock.lock()
    finishing = true
    lock.unlock()
    wake.signal()
    let finished = stopped.wait(timeout: .now() + finishTimeout) == .success
    lock.lock()
    let alreadyShutDown = shutDown
    shutDown = true
    lock.unlock()
    if !alreadyShutDown { try? client.syncShutdown() }
    lock.lock()
    defer { lock.unlock() }
    if !finished {
      dropped += buffer.count
      buffer.removeAll()
    }
  }

  deinit {
    if !shutDown { try? client.syncShutdown() }
  }

  public var summary: String {
    lock.lock()
    defer { lock.unlock() }
    var text = "analytics: \(sent) records posted to \(url)"
    if dropped > 0 { text += ", \(dropped) dropped" }
    if failedPosts > 0 { text += ", \(failedPosts) posts failed (last: \(lastFailure ?? "?"))" }
    return text
  }

  /// Counts, for tests and the log.
  public var counts: (sent: Int, dropped: Int, failedPosts: Int) {
    lock.lock()
    defer { lock.unlock() }
    return (sent, dropped, failedPosts)
  }
}

/// The analytics sinks a run can write to, by the form of `--analytics`:
/// an `http://` or `https://` URL posts batches, anything else is a JSON
/// Lines file. New kinds register a maker for their URL scheme.
public enum AnalyticsSinks {
  public typealias Maker = @Sendable (String) throws(WorkbenchError) -> any AnalyticsSink

  nonisolated(unsafe) private static var makers: [String: Maker] = [
    "http": { (text) throws(WorkbenchError) in try HTTPAnalyticsSink(url: text) },
    "https": { (text) throws(WorkbenchError) in try HTTPAnalyticsSink(url: text) },
  ]

  /// Schemes whose destinations are not URLs with `//` (a plugin's `csv:file.csv`).
  nonisolated(unsafe) private static var bareSchemes: Set<String> = []

  /// Adds a kind of sink for destinations with this scheme (before a run
  /// starts). A plugin's scheme matches `scheme:anything`; the built-in
  /// ones need `scheme://`.
  public static func register(scheme: String, plugin: Bool = false, maker: @escaping Maker) {
    makers[scheme.lowercased()] = maker
    if plugin { bareSchemes.insert(scheme.lowercased()) }
  }

  public static func make(_ text: String) throws(WorkbenchError) -> any AnalyticsSink {
    if let colon = text.firstIndex(of: ":") {
      let scheme = text[..<colon].lowercased()
      if let maker = makers[scheme], text[colon...].hasPrefix("://") || bareSchemes.contains(scheme) {
        return try maker(text)
      }
    }
    let path = text.hasPrefix("file:") ? String(text.dropFirst(5)) : text
    return try JSONLinesAnalyticsSink(path: path)
  }
}
