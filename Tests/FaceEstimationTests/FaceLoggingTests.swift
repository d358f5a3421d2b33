import FaceEstimation
import FaceEstimationTesting
import Foundation
import Logging
import Measurements
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Keeps every message logged through it.
final class CapturedLog: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [(level: Logger.Level, message: String)] = []

  var messages: [(level: Logger.Level, message: String)] { lock.withLock { stored } }

  func append(_ level: Logger.Level, _ message: String) { lock.withLock { stored.append((level, message)) } }

  var logger: Logger {
    Logger(label: "test.face") { _ in CapturingHandler(log: self) }
  }

  struct CapturingHandler: LogHandler {
    let log: CapturedLog
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { log.append(event.level, "\(event.message)") }
  }
}

extension FaceEstimatorTests {
  @Test("the library's log goes to workbench's log, one level quieter, and nothing to stderr")
  func nativeLogging() throws {
    let captured = CapturedLog()
    let stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("face-stderr-\(getpid()).txt").path
    FileManager.default.createFile(atPath: stderrFile, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: stderrFile) }
    // stderr into a file while a landmarker starts; the backend's own
    // silencing nests inside, so the library's lines must not reach the file.
    let file = open(stderrFile, O_WRONLY)
    defer { close(file) }
    let estimator = FaceEstimator(options: FaceBackendInstall.options, logger: captured.logger)
    let outcome = withStandardError(redirectedTo: file) {
      Result { try estimator.prepare(schema: MeasurementSchema()) }
    }
    try outcome.get()

    let written = try String(contentsOfFile: stderrFile, encoding: .utf8)
    // (Other suites run meanwhile; only the library's own lines count.)
    for marker in ["InitGoogle", "XNNPACK", "Feedback manager", "FaceBlendshapesGraph"] {
      #expect(!written.contains(marker), "stderr: \(written)")
    }
    let native = captured.messages.filter { $0.message.hasPrefix("mediapipe: ") }
    #expect(!native.isEmpty)
    // MediaPipe's warnings about its internals are debug messages here.
    #expect(native.allSatisfy { $0.level != .warning || !$0.message.contains("Feedback manager") })
    #expect(native.contains { $0.level == .debug })
  }
}
