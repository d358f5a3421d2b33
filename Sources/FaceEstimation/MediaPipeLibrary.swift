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
  /// `logger` from then on.
  static func load(path: String, logger: Logger) throws(FaceBackendError) -> MediaPipeLibrary {
    lock.lock()
    defer { lock.unlock() }
    if let library = loaded[path] { return library }
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
    let box = Unmanaged.passRetained(LoggerBox(logger)).toOpaque()
    set(
      { severity, message, context in
        guard let message, let context else { return }
        let logger = Unmanaged<LoggerBox>.fromOpaque(context).takeUnretainedValue().logger
        let text = String(cString: message)
        switch severity {
        case 0: logger.trace("mediapipe: \(text)")
        case 1: logger.debug("mediapipe: \(text)")
        case 2: logger.warning("mediapipe: \(text)")
        default: logger.error("mediapipe: \(text)")
        }
      }, box)
  }

  /// The message of a failed call, freed.
  func takeError(_ message: UnsafeMutablePointer<CChar>?, status: Int32) -> String {
    guard let message else { return "status \(status)" }
    defer { api.error_free?(message) }
    return String(cString: message)
  }
}

private final class LoggerBox: Sendable {
  let logger: Logger
  init(_ logger: Logger) { self.logger = logger }
}

/// Runs `body` with file descriptor 2 pointed at /dev/null. While a
/// landmarker starts, the library writes to stderr directly (before any log
/// sink is in place: "Logging before InitGoogle() is written to STDERR", the
/// TFLite delegate banner); this keeps the terminal clean. Anything else the
/// process writes to stderr during those milliseconds is lost too.
func withStandardErrorSilenced<T>(_ body: () throws(FaceBackendError) -> T) throws(FaceBackendError) -> T {
  fflush(nil)
  let saved = dup(2)
  let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
  guard saved >= 0, null >= 0 else {
    if saved >= 0 { close(saved) }
    if null >= 0 { close(null) }
    return try body()
  }
  dup2(null, 2)
  close(null)
  defer {
    fflush(nil)
    dup2(saved, 2)
    close(saved)
  }
  return try body()
}
