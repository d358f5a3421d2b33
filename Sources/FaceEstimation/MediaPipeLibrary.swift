import CMediaPipe
import Foundation
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// libmediapipe.so, opened once per process and path and never closed
/// (its worker threads and static state outlive any one landmarker).
final class MediaPipeLibrary: @unchecked Sendable {
  let api: wb_mp_api
  let path: String

  private init(api: wb_mp_api, path: String) {
    self.api = api
    self.path = path
  }

  private static let lock = NSLock()
  nonisolated(unsafe) private static var loaded: [String: MediaPipeLibrary] = [:]

  /// The library at `path`, loaded on first use. Its native log goes to
  /// `logger` from then on (the latest caller's: one route per process).
  static func load(path: String, logger: Logger) throws(FaceBackendError) -> MediaPipeLibrary {
    lock.lock()
    defer { lock.unlock() }
    if let library = loaded[path] {
      library.route.logger = logger
      return library
    }
    guard FileManager.default.fileExists(atPath: path) else {
      throw FaceBackendError(
        .libraryUnavailable, "the MediaPipe library is not installed: there is no \(path)",
        help: "run scripts/install-face-backend (or point WORKBENCH_MEDIAPIPE_LIB or the face.library setting at it)")
    }
    var api = wb_mp_api()
    var message = [CChar](repeating: 0, count: 1024)
    guard wb_mp_load(path, &api, &message, message.count) == 0 else {
      let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw FaceBackendError(
        .libraryUnavailable, "cannot load the MediaPipe library \(path): \(reason)",
        help: "run scripts/install-face-backend: it installs the pinned library and the system libraries it needs "
          + "(libegl1, libgles2)")
    }
    let library = MediaPipeLibrary(api: api, path: path)
    library.routeLogging(to: logger)
    loaded[path] = library
    return library
  }

  /// MediaPipe's own log (absl) into swift-log, one level quieter than it
  /// says: its warnings are about its internals, not the user's input.
  private func routeLogging(to logger: Logger) {
    guard let set = api.set_logging_callback else { return }
    set(
      { severity, message, context in
        guard let message, let context else { return }
        Unmanaged<LogRoute>.fromOpaque(context).takeUnretainedValue().log(severity, String(cString: message))
      }, Unmanaged.passRetained(route).toOpaque())
    route.logger = logger
  }

  private let route = LogRoute()

  /// Runs `body` (a call that starts a landmarker) with stderr silenced,
  /// holding back the library's log messages meanwhile: workbench's own log
  /// goes to stderr too. They are logged once stderr is back.
  func starting<T>(_ body: () throws(FaceBackendError) -> T) throws(FaceBackendError) -> T {
    route.hold()
    defer { route.release() }
    return try withStandardErrorSilenced(body)
  }
  /// The message of a failed call, freed.
  func takeError(_ message: UnsafeMutablePointer<CChar>?, status: Int32) -> String {
    guard let message else { return "status \(status)" }
    defer { api.error_free?(message) }
    return String(cString: message)
  }
}

/// Where the library's log messages go; kept alive for the process (the
/// library holds a pointer to it).
private final class LogRoute: @unchecked Sendable {
  private let lock = NSLock()
  private var held: [(severity: Int32, text: String)] = []
  private var holding = 0
  var logger: Logger? {
    get { lock.withLock { storedLogger } }
    set { lock.withLock { storedLogger = newValue } }
  }
  private var storedLogger: Logger?

  func log(_ severity: Int32, _ text: String) {
    let logger: Logger? = lock.withLock {
      if holding > 0 {
        held.append((severity, text))
        return nil
      }
      return storedLogger
    }
    if let logger { LogRoute.write(severity, text, to: logger) }
  }

  func hold() { lock.withLock { holding += 1 } }

  func release() {
    let (messages, logger): ([(severity: Int32, text: String)], Logger?) = lock.withLock {
      holding -= 1
      guard holding == 0 else { return ([], nil) }
      defer { held.removeAll() }
      return (held, storedLogger)
    }
    guard let logger else { return }
    for message in messages { LogRoute.write(message.severity, message.text, to: logger) }
  }

  private static func write(_ severity: Int32, _ text: String, to logger: Logger) {
    switch severity {
    case 0: logger.trace("mediapipe: \(text)")
    case 1: logger.debug("mediapipe: \(text)")
    case 2: logger.warning("mediapipe: \(text)")
    default: logger.error("mediapipe: \(text)")
    }
  }
}

/// Every change of file descriptor 2 in the process goes through this
/// lock: two that overlap would restore each other's replacement, and
/// stderr would stay /dev/null for good (a test runner's results vanished
/// so, when tests started landmarkers in parallel). Recursive: a
/// redirection may nest inside another on the same thread.
private let standardErrorLock = NSRecursiveLock()

/// Runs `body` with file descriptor 2 pointed at `descriptor` (kept open;
/// the caller closes it), and puts stderr back afterwards.
public func withStandardError<T, E: Error>(redirectedTo descriptor: Int32, _ body: () throws(E) -> T) throws(E) -> T {
  standardErrorLock.lock()
  defer { standardErrorLock.unlock() }
  fflush(nil)
  let saved = dup(2)
  guard saved >= 0, descriptor >= 0 else {
    if saved >= 0 { close(saved) }
    return try body()
  }
  dup2(descriptor, 2)
  defer {
    fflush(nil)
    dup2(saved, 2)
    close(saved)
  }
  return try body()
}

/// Runs `body` with what the library writes to stderr held back. While a
/// landmarker starts, the library writes to stderr directly (before any log
/// sink is in place: "Logging before InitGoogle() is written to STDERR", the
/// TFLite delegate banner); this keeps the terminal clean. What other
/// threads of the process write to stderr meanwhile is held in a scratch
/// file and written out afterwards, so nothing of theirs is lost (the
/// library's own messages are logged afterwards: `starting`).
func withStandardErrorSilenced<T>(_ body: () throws(FaceBackendError) -> T) throws(FaceBackendError) -> T {
  guard let scratch = tmpfile() else { return try body() }
  defer { fclose(scratch) }
  let descriptor = fileno(scratch)
  defer {
    fflush(nil)
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    lseek(descriptor, 0, SEEK_SET)
    while true {
      let count = read(descriptor, &chunk, chunk.count)
      if count <= 0 { break }
      text += chunk[..<count]
    }
    let kept = LibraryStandardError.othersLines(in: text)
    if !kept.isEmpty { _ = kept.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) } }
  }
  return try withStandardError(redirectedTo: descriptor, body)
}

/// Tells the lines the face library writes to stderr as it starts from
/// anyone else's.
enum LibraryStandardError {
  /// glog's "I0000 00:00:…" or "W1127 …" lines, TFLite's "INFO: …", and the
  /// notice that logging is not set up yet.
  static func isLibraryLine(_ line: Substring) -> Bool {
    if line.contains("InitGoogle") || line.hasPrefix("INFO: ") || line.hasPrefix("WARNING: ") { return true }
    guard let first = line.first, "IWEF".contains(first) else { return false }
    let digits = line.dropFirst().prefix(4)
    return digits.count == 4 && digits.allSatisfy(\.isNumber)
  }

  /// The lines of `text` that are not the library's, newlines kept.
  static func othersLines(in text: [UInt8]) -> [UInt8] {
    let whole = String(decoding: text, as: UTF8.self)
    var kept = ""
    for line in whole.split(separator: "\n", omittingEmptySubsequences: false).dropLast(whole.hasSuffix("\n") ? 1 : 0)
    where !isLibraryLine(line) {
      kept += line + "\n"
    }
    return Array(kept.utf8)
  }
}
