import Diagnostics
import Foundation
import JSONCore

/// A part of a suite: `--shard K/N` runs the scenarios whose position
/// modulo N is K-1, so N jobs (CI jobs, a cluster's indexed jobs) share a
/// suite without talking to each other.
public struct Shard: Sendable, Equatable {
  public var index: Int
  public var count: Int

  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// "K/N" with 1 ≤ K ≤ N.
  public static func parse(_ text: String) -> Shard? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
      return nil
    }
    return Shard(index: k, count: n)
  }

  public func select<T>(_ items: [T]) -> [T] {
    items.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
  }
}

/// The suite's results as TAP (version 14) and JUnit XML.
public enum SuiteReport {
  /// The TAP line (and YAML block for a failure) of scenario `number`.
  public static func tap(_ outcome: ScenarioOutcome, number: Int) -> String {
    if outcome.passed { return "ok \(number) - \(outcome.name)" }
    var lines = ["not ok \(number) - \(outcome.name)", "  ---"]
    if let error = outcome.error {
      // A message of several lines (every problem of a file that does not
      // load) is a YAML block, one problem per line, as the terminal shows it.
      if error.contains("\n") {
        lines.append("  error: |")
        for line in error.split(separator: "\n", omittingEmptySubsequences: false) { lines.append("    " + line) }
      } else {
        lines.append("  error: " + yaml(error))
      }
    }
    if !outcome.failures.isEmpty {
      lines.append("  failures:")
      for failure in outcome.failures {
        let parts = failure.split(separator: "\n", omittingEmptySubsequences: false)
        lines.append("    - " + yaml(String(parts[0])))
        for line in parts.dropFirst() { lines.append("      " + line) }
      }
    }
    lines.append("  result: " + yaml(outcome.result))
    lines.append("  exit: \(outcome.exitStatus)")
    lines.append("  file: " + yaml(outcome.file))
    lines.append("  reproduce: " + yaml(outcome.reproduce))
    lines.append("  ...")
    return lines.joined(separator: "\n")
  }

  private static func yaml(_ text: String) -> String {
    let plain =
      text.allSatisfy { $0 != ":" && $0 != "#" && $0 != "\"" && $0 != "'" && $0 != "\n" }
      && !text.hasPrefix(" ") && !text.hasPrefix("-") && !text.isEmpty
    return plain ? text : JSONValue.string(text).jsonText
  }

  /// A JUnit XML report: one testsuite per scenario file, one testcase per scenario.
  public static func junit(_ outcomes: [ScenarioOutcome], suiteName: String = "workbench") -> String {
    var byFile: [(String, [ScenarioOutcome])] = []
    for outcome in outcomes {
      if let index = byFile.firstIndex(where: { $0.0 == outcome.file }) {
        byFile[index].1.append(outcome)
      } else {
        byFile.append((outcome.file, [outcome]))
      }
    }
    let failures = outcomes.filter { !$0.passed && $0.error == nil }.count
    let errors = outcomes.filter { $0.error != nil }.count
    let total = outcomes.reduce(0) { $0 + $1.seconds }
    var xml = [
      #"<?xml version="1.0" encoding="UTF-8"?>"#,
      "<testsuites name=\"\(escape(suiteName))\" tests=\"\(outcomes.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(format(total))\">",
    ]
    for (file, cases) in byFile {
      let caseFailures = cases.filter { !$0.passed && $0.error == nil }.count
      let caseErrors = cases.filter { $0.error != nil }.count
      let time = cases.reduce(0) { $0 + $1.seconds }
      xml.append(
        "  <testsuite name=\"\(escape(file))\" tests=\"\(cases.count)\" failures=\"\(caseFailures)\" errors=\"\(caseErrors)\" time=\"\(format(time))\">"
      )
      for outcome in cases {
        let open =
          "    <testcase classname=\"\(escape(className(file)))\" name=\"\(escape(outcome.name))\" file=\"\(escape(file))\" time=\"\(format(outcome.seconds))\""
        if outcome.passed {
          xml.append(open + "/>")
          continue
        }
        xml.append(open + ">")
        if let error = outcome.error {
          xml.append("      <error message=\"\(escape(firstLine(error)))\">\(escape(error))</error>")
        } else {
          let body = (outcome.failures + ["result: \(outcome.result)", "reproduce: \(outcome.reproduce)"])
            .joined(separator: "\n")
          xml.append(
            "      <failure message=\"\(escape(firstLine(outcome.failures.first ?? "")))\">\(escape(body))</failure>")
        }
        xml.append("    </testcase>")
      }
      xml.append("  </testsuite>")
    }
    xml.append("</testsuites>")
    return xml.joined(separator: "\n") + "\n"
  }

  /// "qa/face/blink" → "qa.face.blink": the path without its extension,
  /// and without the "." and ".." parts that would make empty names
  /// ("../qa/x" was "...qa.x").
  static func className(_ file: String) -> String {
    let parts = (file as NSString).deletingPathExtension.split(separator: "/").filter { $0 != "." && $0 != ".." }
    return parts.isEmpty ? "scenarios" : parts.joined(separator: ".")
  }

  private static func firstLine(_ text: String) -> String {
    String(text.split(separator: "\n", maxSplits: 1).first ?? "")
  }

  private static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

  static func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
      default:
        // Control characters are not allowed in XML 1.0.
        if scalar.value < 0x20 { out += "?" } else { out.unicodeScalars.append(scalar) }
      }
    }
    return out
  }

  /// An outcome as one JSON line, how a worker process hands it back.
  public static func json(_ outcome: ScenarioOutcome) -> String {
    JSONValue.object(
      JSONObject([
        ("name", .string(outcome.name)), ("file", .string(outcome.file)), ("reproduce", .string(outcome.reproduce)),
        ("failures", .array(outcome.failures.map { .string($0) })),
        ("error", outcome.error.map { .string($0) } ?? .null), ("exit", .integer(Int64(outcome.exitStatus))),
        ("result", .string(outcome.result)), ("events", .integer(Int64(outcome.eventCount))),
        ("seconds", .number(outcome.seconds)),
      ])
    ).jsonText
  }

  public static func outcome(json text: String) -> ScenarioOutcome? {
    guard let value = try? JSONParser.parse(text), let name = value["name"]?.stringValue,
      let file = value["file"]?.stringValue
    else { return nil }
    return ScenarioOutcome(
      name: name, file: file, reproduce: value["reproduce"]?.stringValue ?? "",
      failures: value["failures"]?.arrayValue?.compactMap(\.stringValue) ?? [], error: value["error"]?.stringValue,
      exitStatus: Int32(value["exit"]?.integerValue ?? 0), result: value["result"]?.stringValue ?? "",
      eventCount: Int(value["events"]?.integerValue ?? 0), seconds: value["seconds"]?.doubleValue ?? 0)
  }
}
