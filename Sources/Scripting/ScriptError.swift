import CLuaShim
import Diagnostics

/// A failure inside the Lua VM, already converted at the C boundary.
public struct ScriptError: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    case syntax
    case runtime
    case memoryLimit
    case instructionLimit
    case interrupted
    case unreadableFile
    case apiMisuse
  }

  public var kind: Kind
  /// "file:line: message" when Lua knew the position.
  public var message: String
  /// The frames below the error, without the "stack traceback:" header.
  public var traceback: [String]
  /// The innermost Lua position, when known.
  public var file: String?
  public var line: Int?

  public init(kind: Kind, message: String, traceback: [String] = [], file: String? = nil, line: Int? = nil) {
    self.kind = kind
    self.message = message
    self.traceback = traceback
    self.file = file
    self.line = line
  }

  init(_ error: wb_error, libraryPrefix: String) {
    switch error.status {
    case WB_ERR_SYNTAX: kind = .syntax
    case WB_ERR_MEMORY: kind = .memoryLimit
    case WB_ERR_INSTRUCTIONS: kind = .instructionLimit
    case WB_ERR_INTERRUPTED: kind = .interrupted
    case WB_ERR_FILE: kind = .unreadableFile
    case WB_ERR_API: kind = .apiMisuse
    default: kind = .runtime
    }
    message = String(cString: error.message)
    traceback = ScriptError.shortTraceback(String(cString: error.traceback), libraryPrefix: libraryPrefix)
    let fileName = String(cString: error.file)
    file = fileName.isEmpty ? nil : fileName
    line = error.line > 0 ? Int(error.line) : nil
  }

  /// Keeps the Lua frames that help a flow author: no C frames, no frames
  /// of the step library, no more than six lines.
  static func shortTraceback(_ text: String, libraryPrefix: String) -> [String] {
    let frames = text.split(separator: "\n").dropFirst().map {
      $0.trimmingCharacters(in: [" ", "\t"])
    }
    let useful = frames.filter {
      !$0.hasPrefix("[C]") && !$0.isEmpty && $0 != "(...tail calls...)"
        && (libraryPrefix.isEmpty || !$0.hasPrefix(libraryPrefix))
    }
    if useful.count <= 6 { return useful }
    return Array(useful.prefix(5)) + ["... \(useful.count - 5) more"]
  }

  /// Exit code 2 for script faults and limits; 130 when interrupted.
  public var status: ExitStatus { kind == .interrupted ? .interrupted : .usage }

  /// "stack traceback:" and the frames, or nil when there are none.
  public var tracebackText: String? {
    traceback.isEmpty ? nil : "stack traceback:\n" + traceback.map { "  " + $0 }.joined(separator: "\n")
  }

  public var description: String {
    tracebackText.map { message + "\n" + $0 } ?? message
  }

  /// The error as a diagnostic, with advice for the limits.
  public var diagnostic: Diagnostic {
    let help: String?
    switch kind {
    case .instructionLimit:
      help = "a loop that never ends? The budget per call is the setting 'lua.instruction_limit'"
    case .memoryLimit:
      help = "a table or string that grows without bound? The cap is the setting 'lua.memory_limit'"
    case .syntax:
      help = "fix the Lua syntax at that line; 'workbench check FLOW' lists every problem"
    default:
      help = nil
    }
    return Diagnostic(message, help: help)
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
    var slice = Substring(self)
    while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
    while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
    return String(slice)
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
    String(self).trimmingCharacters(in: set)
  }
}
