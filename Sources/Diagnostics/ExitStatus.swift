/// The process exit codes of every `workbench` command. They are part of the
/// interface (see docs/exit-codes.md): scripts and CI rely on them.
public enum ExitStatus: Int32, Sendable, CaseIterable {
  /// The flow passed (or the command succeeded).
  case passed = 0
  /// The flow ran and failed.
  case failed = 1
  /// Bad command line, flow script, settings or message catalog.
  case usage = 2
  /// A license is missing, invalid or does not grant what is needed.
  case license = 3
  /// An input (trace, recording, camera) could not be read.
  case input = 4
  /// A gallery that cannot be opened, or a user, group or face that is not
  /// there or is there already.
  case gallery = 5
  /// Stopped by Ctrl-C (SIGINT) or SIGTERM.
  case interrupted = 130

  public var summary: String {
    switch self {
    case .passed: return "flow passed"
    case .failed: return "flow failed"
    case .usage: return "usage, script or settings error"
    case .license: return "license error"
    case .input: return "input or camera error"
    case .gallery: return "gallery error"
    case .interrupted: return "interrupted"
    }
  }
}

/// A place in a user's file that a problem refers to.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int?
  public var key: String?

  public init(file: String, line: Int? = nil, key: String? = nil) {
    self.file = file
    self.line = line
    self.key = key
  }

  public var description: String {
    var text = file
    if let line { text += ":\(line)" }
    if let key { text += " (key '\(key)')" }
    return text
  }
}

/// One problem found in the user's input: where, what, and what to do.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
  public var location: SourceLocation?
  public var message: String
  /// What the user can do about it; optional.
  public var help: String?

  public init(_ message: String, at location: SourceLocation? = nil, help: String? = nil) {
    self.location = location
    self.message = message
    self.help = help
  }

  /// "where: what", or the message alone when it has no place.
  public var locatedMessage: String { location.map { "\($0): \(message)" } ?? message }

  public var description: String {
    var text = locatedMessage
    if let help { text += "\n  help: \(help)" }
    return text
  }
}

/// An error every stage reports with: the exit status it maps to and the
/// problems behind it, each with a location and advice.
public struct WorkbenchError: Error, Sendable, CustomStringConvertible {
  public var status: ExitStatus
  public var diagnostics: [Diagnostic]
  /// Extra text printed after the diagnostics, such as a Lua traceback.
  public var detail: String?

  public init(_ status: ExitStatus, _ diagnostics: [Diagnostic], detail: String? = nil) {
    self.status = status
    self.diagnostics = diagnostics
    self.detail = detail
  }

  public init(_ status: ExitStatus, _ message: String, at location: SourceLocation? = nil, help: String? = nil) {
    self.init(status, [Diagnostic(message, at: location, help: help)])
  }

  /// Every problem in one line each, without advice (for a record or a report).
  public var summary: String { diagnostics.map(\.locatedMessage).joined(separator: "\n") }

  public var description: String {
    var lines = diagnostics.map(\.description)
    if let detail, !detail.isEmpty { lines.append(detail) }
    return lines.joined(separator: "\n")
  }
}
