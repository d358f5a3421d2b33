import Capture
import Diagnostics
import Foundation
import JSONCore

/// One scripted edge case: a flow, an input, settings, faults to inject,
/// and what must happen (docs/qa.md).
public struct Scenario: Sendable {
  public enum Input: Sendable, Equatable {
    /// A measurement trace, or a recording (told apart by the file, as `run --input`).
    case file(String)
    /// A synthetic card scene rendered from a schedule file first (`workbench synth card`).
    case synth(String, SynthOptions)
  }

  /// How a synthetic scene is rendered: smaller than a camera's frames by
  /// default, so that suites stay fast.
  public struct SynthOptions: Sendable, Equatable {
    public var width = 640
    public var height = 360
    /// Whether the scenario gave the size; a face scene, which costs no
    /// rendering, is otherwise measured at a camera's 1280x720.
    public var sizeGiven = false
    public var fps = 30.0
    public var seed: UInt64 = 1

    public init() {}
  }

  public var name: String
  /// The scenario file, as given, and the position in it when it returns a list.
  public var file: String
  public var index: Int?
  public var flow: String
  public var input: Input
  /// `key=value` settings, in order.
  public var settings: [String]
  public var language: String?
  public var seed: Int64?
  public var faults: [Fault]
  public var expectations: Expectations
  /// A gallery export (`workbench gallery export`) that each run of the
  /// scenario starts from, in a new gallery of its own: runs never share
  /// or change a gallery.
  public var gallery: String?
  /// Record the frames the flow saw with this `--record-policy` (into a
  /// scratch folder), for `expect.recording`.
  public var record: RecordPolicy?

  /// A folder name for this scenario's outputs: its file's name (and its
  /// position in the file), as letters, digits and dashes.
  public var slug: String {
    let base = ((file as NSString).deletingPathExtension as NSString).lastPathComponent
    let parent = ((file as NSString).deletingLastPathComponent as NSString).lastPathComponent
    let text = (parent.isEmpty ? "" : parent + "-") + base + (index.map { "-\($0)" } ?? "")
    return String(text.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
  }

  /// The command that runs this scenario alone.
  public var reproduce: String {
    "workbench test \(file)" + (index.map { " --only \($0)" } ?? "")
  }
}

/// Reads scenario files: Lua that returns a scenario table, or a list of them.
public enum ScenarioLoader {
  static let scenarioKeys: Set<String> = [
    "name", "flow", "input", "set", "lang", "seed", "faults", "expect", "description", "gallery", "record",
  ]

  /// Every scenario of `value` (what the file returned), or every problem,
  /// each naming the file and the key.
  public static func scenarios(from value: JSONValue, file: String) throws(WorkbenchError) -> [Scenario] {
    let folder = (file as NSString).deletingLastPathComponent
    var problems: [Diagnostic] = []
    var result: [Scenario] = []
    let tables: [(JSONObject, Int?)]
    switch value {
    case .object(let object): tables = [(object, nil)]
    case .array(let items):
      var list: [(JSONObject, Int?)] = []
      for (offset, item) in items.enumerated() {
        if let object = item.objectValue {
          list.append((object, offset + 1))
        } else {
          problems.append(
            Diagnostic(
              "scenario \(offset + 1) is \(item.kindName), not a table", at: SourceLocation(file: file),
              help: "return { flow = ..., input = ..., expect = ... }, or a list of such tables"))
        }
      }
      tables = list
    default:
      throw WorkbenchError(
        .usage, "a scenario file must return a scenario table (or a list of them), not \(value.kindName)",
        at: SourceLocation(file: file), help: "end the file with return { flow = ..., input = ..., expect = ... }")
    }
    for (table, index) in tables {
      do {
        result.append(try scenario(table, file: file, folder: folder, index: index))
      } catch {
        problems += error.diagnostics
      }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return result
  }

  static func scenario(_ table: JSONObject, file: String, folder: String, index: Int?) throws(WorkbenchError)
    -> Scenario
  {
    var problems: [Diagnostic] = []
    let prefix = index.map { "scenario \($0): " } ?? ""
    func problem(_ key: String, _ message: String, help: String? = nil) {
      problems.append(Diagnostic(prefix + message, at: SourceLocation(file: file, key: key), help: help))
    }
    func resolve(_ path: String) -> String {
      path.hasPrefix("/") || folder.isEmpty ? path : folder + "/" + path
    }
    for key in table.keys where !scenarioKeys.contains(key) {
      let suggestion = Suggestions.closest(to: key, in: scenarioKeys.sorted())
      problem(
        key, "unknown key '\(key)'",
        help: suggestion.map { "did you mean '\($0)'?" } ?? "known: \(scenarioKeys.sorted().joined(separator: ", "))")
    }
    guard let flow = table["flow"]?.stringValue else {
      problem("flow", "needs flow = \"path/to/flow.lua\" (relative to the scenario file)")
      throw WorkbenchError(.usage, problems)
    }
    var input = Scenario.Input.file("")
    switch table["input"] {
    case .string(let path)?: input = .file(resolve(path))
    case .object(let object)?:
      if let synth = object["synth"]?.stringValue {
        var options = Scenario.SynthOptions()
        if let size = object["size"]?.stringValue {
          let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
          if parts.count == 2, parts.allSatisfy({ (16...4096).contains($0) }) {
            options.width = parts[0]
            options.height = parts[1]
            options.sizeGiven = true
          } else {
            problem("input.size", "size takes WIDTHxHEIGHT, such as \"640x360\"")
          }
        }
        if let fps = object["fps"]?.doubleValue {
          if fps > 0 && fps <= 240 {
            options.fps = fps
          } else {
            problem("input.fps", "fps takes a rate above 0 and at most 240, such as 30")
          }
        }
        if let seed = object["seed"]?.integerValue { options.seed = UInt64(max(0, seed)) }
        input = .synth(resolve(synth), options)
      } else if let path = object["trace"]?.stringValue ?? object["recording"]?.stringValue {
        input = .file(resolve(path))
      } else {
        problem("input", "input takes a path, or { trace = ... }, { recording = ... } or { synth = ... }")
      }
    default:
      problem("input", "needs input = \"path\" (a trace or a recording), or { synth = \"schedule.json\" }")
    }
    var settings: [String] = []
    if let set = table["set"] {
      if let object = set.objectValue {
        for (key, value) in object {
          switch value {
          case .string(let text): settings.append("\(key)=\(text)")
          case .integer(let number): settings.append("\(key)=\(number)")
          case .number(let number): settings.append("\(key)=\(number)")
          case .bool(let flag): settings.append("\(key)=\(flag)")
          default: problem("set.\(key)", "a setting's value must be a number, a string or a boolean")
          }
        }
      } else {
        problem("set", "set takes a table of settings, e.g. set = { [\"hkid.overtime\"] = 10 }")
      }
    }
    var faults: [Fault] = []
    if let list = table["faults"] {
      if let items = list.arrayValue {
        for (offset, item) in items.enumerated() {
          do {
            faults.append(try Fault.parse(item, key: "faults[\(offset + 1)]", file: file))
          } catch {
            problems += error.diagnostics.map { diagnostic in
              var diagnostic = diagnostic
              diagnostic.message = prefix + diagnostic.message
              return diagnostic
            }
          }
        }
      } else if list.objectValue?.isEmpty != true {
        problem("faults", "faults takes a list: faults = { { drop = 0.1 }, { unplug = { at = 2 } } }")
      }
    }
    var expectations = Expectations()
    if let expect = table["expect"] {
      do {
        expectations = try Expectations.parse(expect, file: file)
      } catch {
        problems += error.diagnostics
      }
    } else {
      problem("expect", "needs expect = { result = CODE, events = { ... } }: a scenario must say what should happen")
    }
    var seed: Int64?
    if let value = table["seed"] {
      if let number = value.integerValue { seed = number } else { problem("seed", "seed must be a whole number") }
    }
    var gallery: String?
    if let value = table["gallery"] {
      if let path = value.stringValue {
        gallery = resolve(path)
      } else {
        problem(
          "gallery", "gallery takes the path of a gallery export, such as \"people.jsonl\" (workbench gallery export)")
      }
    }
    var record: RecordPolicy?
    if let value = table["record"] {
      record = RecordingExpectation.policy(value)
      if record == nil {
        problem(
          "record",
          "record takes a --record-policy: " + RecordPolicy.allCases.map(\.rawValue).joined(separator: ", "))
      }
    }
    if expectations.recording != nil && table["record"] == nil {
      problem("expect.recording", "expect.recording needs record = \"POLICY\": the run records nothing without it")
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    let base = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
    var scenario = Scenario(
      name: table["name"]?.stringValue ?? (index.map { "\(base) #\($0)" } ?? base), file: file, index: index,
      flow: resolve(flow), input: input, settings: settings, language: table["lang"]?.stringValue, seed: seed,
      faults: faults, expectations: expectations, gallery: gallery)
    scenario.record = record
    return scenario
  }
}

/// The closest known word, for "did you mean".
enum Suggestions {
  static func closest(to word: String, in candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
  }
}
