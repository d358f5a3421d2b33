import Diagnostics
import Foundation
import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// The live line on a terminal: current hint, which step of how many, and
/// the time left. Redrawn in place on standard error.
public final class StatusLine: EventSink {
  private var hint = ""
  private var step = ""
  private var stepIndex = 0
  private var stepCount = 0
  private var timeLimit = 0.0
  private var startT: Double?
  private var lastDrawnTenths = -1
  private var lastLine = ""
  private let width: Int

  /// Whether standard error is a terminal (the only place a status line belongs).
  public static var isAvailable: Bool { isatty(STDERR_FILENO) == 1 }

  public init() {
    var size = winsize()
    width = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 20 ? Int(size.ws_col) : 80
  }

  public func emit(_ event: Event) {
    switch event.type {
    case "session":
      startT = event.t
      timeLimit = event["time_limit"]?.doubleValue ?? 0
      stepCount = event["order"]?.arrayValue?.count ?? 0
      return
    case "step":
      if event["state"]?.stringValue == "started" {
        step = event["name"]?.stringValue ?? ""
        stepIndex = Int(event["index"]?.integerValue ?? 0)
      }
    case "hint":
      hint = event["text"]?.stringValue ?? ""
    case "result":
      clear()
      return
    default:
      return
    }
    draw(t: event.t)
  }

  /// Called every frame; redraws only when the shown time changes.
  public func tick(t: Double) {
    let tenths = Int((t * 10).rounded(.down))
    if tenths != lastDrawnTenths { draw(t: t) }
  }

  private func draw(t: Double) {
    lastDrawnTenths = Int((t * 10).rounded(.down))
    var parts: [String] = []
    if stepCount > 0 { parts.append("step \(stepIndex)/\(stepCount) \(step)") }
    if !hint.isEmpty { parts.append(hint) }
    if timeLimit > 0, let startT {
      let left = max(0, timeLimit - (t - startT))
      parts.append(String(format: "%.1f s left", left))
    }
    var line = parts.joined(separator: "  ·  ")
    if line.count > width - 1 { line = String(line.prefix(width - 2)) + "…" }
    guard line != lastLine else { return }
    lastLine = line
    FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
  }

  private func clear() {
    if !lastLine.isEmpty { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    lastLine = ""
  }

  public func finish() throws(WorkbenchError) { clear() }
}
