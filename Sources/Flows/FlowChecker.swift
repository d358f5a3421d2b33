import Diagnostics
import Foundation
import Logging
import Settings

/// What `workbench check` found.
public struct FlowCheckReport: Sendable {
  public var problems: [Diagnostic]
  /// What works but may not be meant (a step that does not say what it reads).
  public var warnings: [Diagnostic] = []
  public var summary: String
  public var detail: String?
}

/// Validates a flow without running it: loading it in the sandbox finds
/// syntax errors, API misuse and settings problems; the message keys it may
/// show are checked against every language's catalog.
public enum FlowChecker {
  public static func check(_ options: FlowOptions, logger: Logger) throws(WorkbenchError) -> FlowCheckReport {
    var problems: [Diagnostic] = []
    var traceback: String?
    guard let flow = try FlowLoader.load(options, logger: logger, problems: &problems, traceback: &traceback) else {
      return FlowCheckReport(problems: problems, summary: "", detail: traceback)
    }
    let source = (try? String(contentsOfFile: options.flowPath, encoding: .utf8)) ?? ""
    let keys = flow.description.messageKeys + messageKeys(inSource: source)
    problems += flow.catalogs.problems(forKeys: keys)
    let stepCount = flow.description.steps.count
    let summary =
      "\(flow.displayPath): flow '\(flow.description.name)', \(stepCount) step\(stepCount == 1 ? "" : "s"), "
      + "\(Set(keys).count) message key\(Set(keys).count == 1 ? "" : "s") in \(flow.catalogs.languages.count) languages "
      + "(\(flow.catalogs.languages.joined(separator: ", "))), \(flow.settings.all.count) settings"
    return FlowCheckReport(
      problems: problems, warnings: needsWarnings(flow), summary: summary, detail: nil)
  }

  /// A step that declares no `needs` makes every estimator run on every
  /// frame (a flow that only reads the card still pays for the face).
  static func needsWarnings(_ flow: LoadedFlow) -> [Diagnostic] {
    flow.description.steps.filter(\.needs.isEmpty).map { step in
      Diagnostic(
        "step '\(step.name)' does not say what it reads, so every estimator runs on every frame",
        at: step.location ?? SourceLocation(file: flow.displayPath),
        help:
          "add needs = { \"face.yaw\", ... } with the measurements its update reads (wb.threshold and wb.range with field = declare it)"
      )
    }
  }

  /// Message keys passed as string literals to hint(...) or text(...) in a
  /// flow's source, e.g. ctx.hint("blink.prompt") or wb.text 'done'.
  static func messageKeys(inSource source: String) -> [String] {
    let pattern = /(?:hint|text)\s*\(?\s*["']([A-Za-z0-9_.\-]+)["']/
    return source.matches(of: pattern).map { String($0.output.1) }
  }
}
