import Diagnostics
import JSONCore

/// Collects declarations and values from every layer, then resolves them into
/// the effective settings and every problem found on the way.
///
/// Values are checked only in `resolve()`, because a flow may declare a
/// setting after a config file has already given it a value.
public struct SettingsBuilder: Sendable {
  private struct Declared: Sendable {
    var declaration: SettingDeclaration
    var source: SettingSource
  }

  private struct Assignment: Sendable {
    var key: String
    var input: AssignedInput
    var source: SettingSource
    var sequence: Int
  }

  private struct Problem: Sendable {
    var layer: SettingLayer
    var sequence: Int
    var diagnostic: Diagnostic
  }

  private var declarations: [String: Declared] = [:]
  private var assignments: [Assignment] = []
  private var recordedProblems: [Problem] = []
  /// Counts every declare and assign call, so that problems and values keep
  /// the order in which they were given.
  private var nextSequence = 0

  /// Starts from the built-in declarations. Any invalid or duplicate one is an
  /// error, since the built-in set must be sound before users add to it.
  public init(declarations: [SettingDeclaration]) throws(WorkbenchError) {
    var diagnostics: [Diagnostic] = []
    for declaration in declarations {
      let problems =
        self.declarations[declaration.key] != nil
        ? ["setting '\(declaration.key)' is declared twice"]
        : admissionProblems(of: declaration)
      if problems.isEmpty {
        self.declarations[declaration.key] = Declared(declaration: declaration.normalized(), source: .builtin)
      } else {
        diagnostics += problems.map {
          Diagnostic($0, help: "fix the built-in declaration of '\(declaration.key)'")
        }
      }
    }
    if !diagnostics.isEmpty { throw WorkbenchError(.usage, diagnostics) }
  }

  /// Adds a setting that is not built in, such as one a flow declares for
  /// itself. Declaring a key again exactly as before does nothing; declaring
  /// it differently is a problem, and the first declaration stays.
  public mutating func declare(_ declaration: SettingDeclaration, source: SettingSource) {
    let sequence = takeSequence()
    let location = source.location(key: declaration.key)
    if let existing = declarations[declaration.key] {
      let differences = existing.declaration.differences(from: declaration.normalized())
      guard !differences.isEmpty else { return }
      let firstDeclared = existing.source.origin.map { "is declared in \($0)" } ?? "is built in"
      let diagnostic: Diagnostic
      if differences.contains("type") {
        diagnostic = Diagnostic(
          "setting '\(declaration.key)' \(firstDeclared) as \(existing.declaration.expectation); "
            + "\(source) cannot redeclare it as \(declaration.expectation)",
          at: location,
          help: "give this setting a key of its own, or declare it as \(existing.declaration.type.expectation)")
      } else {
        diagnostic = Diagnostic(
          "setting '\(declaration.key)' \(firstDeclared); "
            + "\(source) redeclares it with a different \(differences.joined(separator: ", "))",
          at: location,
          help: "declare it exactly as before, or assign a value to it instead of redeclaring it")
      }
      record(diagnostic, layer: source.layer, sequence: sequence)
      return
    }
    let problems = admissionProblems(of: declaration)
    guard problems.isEmpty else {
      for problem in problems {
        record(
          Diagnostic(problem + " (from \(source))", at: location, help: "fix the declaration of '\(declaration.key)'"),
          layer: source.layer, sequence: sequence)
      }
      return
    }
    declarations[declaration.key] = Declared(declaration: declaration.normalized(), source: source)
  }

  /// Gives `key` a typed value, as read from a JSON file or set by the flow.
  public mutating func assign(_ key: String, _ raw: JSONValue, source: SettingSource) {
    assignments.append(Assignment(key: key, input: .json(raw), source: source, sequence: takeSequence()))
  }

  /// Gives `key` a value written as text (`--set key=value`), read according
  /// to the setting's type.
  public mutating func assign(_ key: String, text: String, source: SettingSource) {
    assignments.append(Assignment(key: key, input: .text(text), source: source, sequence: takeSequence()))
  }

  /// Assigns every value in a JSON settings file at `layer`. Nested objects
  /// name dotted keys: `{"flow": {"time_limit": 20}}` sets `flow.time_limit`.
  public mutating func load(configFile path: String, layer: SettingLayer) throws(WorkbenchError) {
    let file = try ConfigFile(path: path, layer: layer)
    var firstLines: [String: Int?] = [:]
    for entry in file.entries {
      let source = SettingSource(layer: layer, origin: path, line: entry.line)
      if let firstLine = firstLines[entry.key] {
        let lines = [firstLine, entry.line].compactMap { $0 }.map(String.init)
        let whereGiven = lines.count == 2 ? " (lines \(lines[0]) and \(lines[1]))" : ""
        record(
          Diagnostic(
            "setting '\(entry.key)' is given twice in '\(path)'\(whereGiven)",
            at: source.location(key: entry.key),
            help: "keep only one of them; nested objects and dotted keys name the same setting"),
          layer: layer, sequence: nextSequence)
      } else {
        firstLines[entry.key] = entry.line
      }
      assign(entry.key, entry.value, source: source)
    }
  }

  /// Splits a `--set` argument at its first '='.
  public static func parseAssignment(_ text: String) throws(WorkbenchError) -> (key: String, value: String) {
    guard let equals = text.firstIndex(of: "=") else {
      let key = text.trimmingWhitespace()
      throw WorkbenchError(
        .usage, "--set expects key=value, got '\(text)'", at: SourceLocation(file: "--set"),
        help: "write it as --set \(key.isEmpty ? "KEY" : key)=VALUE, such as --set flow.time_limit=30")
    }
    let key = String(text[..<equals]).trimmingWhitespace()
    guard !key.isEmpty else {
      throw WorkbenchError(
        .usage, "--set expects key=value, but '\(text)' has no key before '='",
        at: SourceLocation(file: "--set"), help: "write it as --set KEY=VALUE, such as --set flow.time_limit=30")
    }
    return (key, String(text[text.index(after: equals)...]))
  }

  /// The effective value of every declared setting, and every problem in
  /// layer order, then in the order values were given. A value with a
  /// problem is skipped, so its key keeps the value of the layers below.
  public func resolve() -> (settings: ResolvedSettings, problems: [Diagnostic]) {
    var resolved: [String: ResolvedSetting] = [:]
    for (key, declared) in declarations {
      let defaultSource = SettingSource(layer: .builtin, origin: declared.source.origin, line: declared.source.line)
      resolved[key] = ResolvedSetting(
        declaration: declared.declaration, value: declared.declaration.defaultValue, source: defaultSource)
    }
    var problems = recordedProblems
    // Sorted only for a "did you mean": resolving runs at every wb.settings of every load.
    var knownKeys: [String] { declarations.keys.sorted() }
    let ordered = assignments.sorted {
      ($0.source.layer.rawValue, $0.sequence) < ($1.source.layer.rawValue, $1.sequence)
    }
    for assignment in ordered {
      let location = assignment.source.location(key: assignment.key)
      guard let declared = declarations[assignment.key] else {
        let help =
          didYouMean(closestNames(to: assignment.key, among: knownKeys))
          ?? "no setting has a similar name; run 'workbench settings FLOW' to list them"
        problems.append(
          Problem(
            layer: assignment.source.layer, sequence: assignment.sequence,
            diagnostic: Diagnostic(
              "unknown setting '\(assignment.key)' (from \(assignment.source))", at: location, help: help)))
        continue
      }
      do {
        let value = try declared.declaration.value(from: assignment.input)
        resolved[assignment.key]?.value = value
        resolved[assignment.key]?.source = assignment.source
      } catch {
        problems.append(
          Problem(
            layer: assignment.source.layer, sequence: assignment.sequence,
            diagnostic: Diagnostic("\(error.message) (from \(assignment.source))", at: location, help: error.help)))
      }
    }
    // The offset keeps problems of one declaration or assignment in the order found.
    func rank(_ entry: (offset: Int, element: Problem)) -> (Int, Int, Int) {
      (entry.element.layer.rawValue, entry.element.sequence, entry.offset)
    }
    let sortedProblems = problems.enumerated().sorted { rank($0) < rank($1) }.map(\.element.diagnostic)
    return (ResolvedSettings(Array(resolved.values)), sortedProblems)
  }

  private mutating func takeSequence() -> Int {
    defer { nextSequence += 1 }
    return nextSequence
  }

  private mutating func record(_ diagnostic: Diagnostic, layer: SettingLayer, sequence: Int) {
    recordedProblems.append(Problem(layer: layer, sequence: sequence, diagnostic: diagnostic))
  }

  /// What keeps `declaration` out of the set: its own faults, and a key that
  /// would also be a group of other keys, which nested JSON cannot hold.
  private func admissionProblems(of declaration: SettingDeclaration) -> [String] {
    var problems = declaration.problems()
    guard problems.isEmpty else { return problems }
    let key = declaration.key
    // The first clash in key order, found without sorting every key for every declaration.
    if let clash = declarations.keys.filter({ $0.hasPrefix(key + ".") || key.hasPrefix($0 + ".") }).min() {
      problems.append(
        "setting '\(key)' clashes with setting '\(clash)': a key cannot also be the group of another key")
    }
    return problems
  }
}
