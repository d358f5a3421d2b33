import Diagnostics
import Foundation
import Logging
import Measurements
import Settings

/// What `workbench check` holds the fields a flow reads against: the
/// measurements the estimators declare, or those a trace holds.
public struct MeasurementReference: Sendable {
  public var catalog: MeasurementCatalog
  /// Ends "reads 'x', which …": "no estimator provides", "the trace t.jsonl does not hold".
  public var missing: String
  /// Where to see what there is.
  public var listing: String

  public init(catalog: MeasurementCatalog, missing: String, listing: String) {
    self.catalog = catalog
    self.missing = missing
    self.listing = listing
  }
}

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
  public static func check(
    _ options: FlowOptions, measurements: MeasurementReference? = nil, strict: Bool = false, logger: Logger
  ) throws(WorkbenchError) -> FlowCheckReport {
    var problems: [Diagnostic] = []
    var traceback: String?
    guard let flow = try FlowLoader.load(options, logger: logger, problems: &problems, traceback: &traceback) else {
      return FlowCheckReport(problems: problems, summary: "", detail: traceback)
    }
    let source = (try? String(contentsOfFile: options.flowPath, encoding: .utf8)) ?? ""
    let keys = flow.description.messageKeys + messageKeys(inSource: source)
    let ownFolder = WorkbenchHome.display(
      URL(fileURLWithPath: options.flowPath).deletingLastPathComponent().path + "/messages")
    let catalogReport = flow.catalogs.check(
      keys: keys, fallback: flow.settings.string("messages.fallback"), ownFolder: ownFolder)
    problems += catalogReport.errors
    var warnings = needsWarnings(flow) + endlessWarnings(flow)
    if strict { problems += catalogReport.warnings } else { warnings += catalogReport.warnings }
    if let measurements { problems += fieldProblems(flow, source: source, against: measurements) }
    let stepCount = flow.description.steps.count
    let summary =
      "\(flow.displayPath): flow '\(flow.description.name)', \(stepCount) step\(stepCount == 1 ? "" : "s"), "
      + "\(Set(keys).count) message key\(Set(keys).count == 1 ? "" : "s") in \(flow.catalogs.languages.count) languages "
      + "(\(flow.catalogs.languages.joined(separator: ", "))), \(flow.settings.all.count) settings"
    return FlowCheckReport(problems: problems, warnings: warnings, summary: summary, detail: nil)
  }

  /// A field the flow reads that nothing provides, or that a step compares
  /// with numbers when it holds something else: the run would never pass
  /// that step, and say only `end_of_input` or `timeout`.
  static func fieldProblems(_ flow: LoadedFlow, source: String, against reference: MeasurementReference)
    -> [Diagnostic]
  {
    var problems: [Diagnostic] = []
    var seen = Set<String>()
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    for read in flow.description.reads {
      var location = read.location ?? SourceLocation(file: flow.displayPath)
      // A step written as a plain table in `return wb.flow { … }` has no line
      // (a tail call): the line that names the field is where it was written.
      if location.line == nil, location.file == flow.displayPath,
        let line = lines.firstIndex(where: { $0.contains("\"\(read.field)\"") || $0.contains("'\(read.field)'") })
      {
        location.line = line + 1
      }
      guard seen.insert("\(read.field)@\(location)").inserted else { continue }
      switch reference.catalog.lookup(read.field) {
      case .unknown:
        let suggestion = didYouMean(closestNames(to: read.field, among: reference.catalog.spellings))
        problems.append(
          Diagnostic(
            "reads '\(read.field)', which \(reference.missing)", at: location,
            help: suggestion.map { "\($0) (\(reference.listing))" } ?? reference.listing))
      case .group where read.isNumberTest:
        let example = reference.catalog.spellings.first { $0.hasPrefix(read.field + ".") } ?? read.field + ".name"
        problems.append(
          Diagnostic(
            "compares '\(read.field)' with a number, but it is a group of measurements", at: location,
            help: "name one measurement in it, such as '\(example)'"))
      case .value(let type) where read.isNumberTest && !type.isNumeric:
        problems.append(
          Diagnostic(
            "compares '\(read.field)' with a number, but it holds \(FlowChecker.describe(type))", at: location,
            help: type == .onRequest
              ? "name it in needs = { \"\(read.field)\" } and ask for it with ctx.describe_face"
              : "a number test cannot read it; test it in a function instead: when = function(m) return m.\(read.field) end in wb.alert or wb.guard, or a wb.step with needs = { \"\(read.field)\" }"
          ))
      default: break
      }
    }
    return problems
  }

  static func describe(_ type: MeasurementType) -> String {
    switch type {
    case .boolean: return "a boolean (true or false)"
    case .string: return "a string"
    case .onRequest: return "no value of its own in a frame (it is computed when the flow asks)"
    case .number, .integer: return "a number"
    }
  }

  /// A step with no timeout in a flow with no time limit and no guard
  /// waits for ever on a camera: a person who walks away never gets a result.
  static func endlessWarnings(_ flow: LoadedFlow) -> [Diagnostic] {
    guard (flow.settings.number("flow.time_limit") ?? 0) <= 0, !flow.description.hasGuard else { return [] }
    let stepTimeout = flow.settings.number("flow.step_timeout") ?? 0
    let endless = flow.description.steps.filter { ($0.timeout ?? stepTimeout) <= 0 }
    guard let first = endless.first else { return [] }
    let names = endless.map { "'\($0.name)'" }.joined(separator: ", ")
    return [
      Diagnostic(
        "\(endless.count == 1 ? "step" : "steps") \(names) \(endless.count == 1 ? "has" : "have") no timeout and the flow no time limit: on a camera it can wait for ever",
        at: first.location ?? SourceLocation(file: flow.displayPath),
        help:
          "give the flow time_limit = 30 (the setting flow.time_limit), the step a timeout, or the flow a wb.guard that ends it"
      )
    ]
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
