import Foundation
import Logging

/// The one logging system: stderr, plus a per-session file when asked.
public enum WorkbenchLog {
  /// Sets up swift-log once per process. A log file that cannot be opened
  /// is an error the caller reports (exit 2).
  public static func bootstrap(level: Logger.Level, file: String?) throws(WorkbenchError) {
    var fileHandle: FileHandle?
    if let file {
      guard FileManager.default.createFile(atPath: file, contents: nil),
        let handle = FileHandle(forWritingAtPath: file)
      else {
        throw WorkbenchError(
          .usage, "cannot write the log file", at: SourceLocation(file: file),
          help: "check that its folder exists and is writable")
      }
      fileHandle = handle
    }
    let output = LogOutput(file: fileHandle)
    LoggingSystem.bootstrap { label in
      var handler = WorkbenchLogHandler(label: label, output: output)
      handler.logLevel = level
      return handler
    }
  }
}

/// Serialises writes from any thread to stderr and the log file.
final class LogOutput: @unchecked Sendable {
  private let lock = NSLock()
  private let file: FileHandle?

  init(file: FileHandle?) { self.file = file }

  func write(terminal: String, file line: String) {
    lock.lock()
    defer { lock.unlock() }
    FileHandle.standardError.write(Data(terminal.utf8))
    file?.write(Data(line.utf8))
  }
}

struct WorkbenchLogHandler: LogHandler {
  let label: String
  let output: LogOutput
  var logLevel: Logger.Level = .info
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider?

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var merged = metadata
    if let extra = event.metadata { merged.merge(extra) { $1 } }
    let context =
      merged.isEmpty
      ? "" : " [" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + "]"
    let level = event.level == .warning ? "warning" : event.level.rawValue
    let timestamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
    let message = TerminalText.escaped("\(event.message)\(context)")
    output.write(
      terminal: "workbench: \(level): \(message)\n", file: "\(timestamp) \(level) \(label): \(message)\n")
  }
}

/// Prints problems the way every command does: "error: file:line: message"
/// and an indented help line.
public enum DiagnosticPrinter {
  /// "warning: file:line: message" lines, for what works but may not be meant.
  public static func printWarnings(_ warnings: [Diagnostic]) {
    var text = ""
    for warning in warnings {
      text += "warning: " + warning.locatedMessage + "\n"
      if let help = warning.help { text += "  help: " + help + "\n" }
    }
    FileHandle.standardError.write(Data(TerminalText.escaped(text).utf8))
  }

  public static func print(_ error: WorkbenchError) {
    var text = ""
    for diagnostic in error.diagnostics {
      text += "error: " + diagnostic.locatedMessage + "\n"
      if let help = diagnostic.help { text += "  help: " + help + "\n" }
    }
    if let detail = error.detail, !detail.isEmpty {
      text += detail.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
    }
    FileHandle.standardError.write(Data(TerminalText.escaped(text).utf8))
  }
}
