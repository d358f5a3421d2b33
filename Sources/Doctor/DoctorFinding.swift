import JSONCore

/// One line of `workbench doctor`: a part workbench needs, whether it is
/// there and works, and what to do when it is not.
public struct DoctorFinding: Sendable, Equatable {
  public enum Status: String, Sendable {
    /// There and working.
    case ok
    /// Works in part, or only some runs need it.
    case warning
    /// Not there, or not working.
    case missing
  }

  /// What was checked ("face model").
  public var part: String
  public var status: Status
  /// What was found: a version, a path, a reason.
  public var detail: String
  /// What to do about a warning or a missing part.
  public var advice: String?
  /// A bundled example cannot run without it: doctor exits 1 when it is missing.
  public var neededByExamples: Bool

  public init(_ part: String, _ status: Status, _ detail: String, advice: String? = nil, neededByExamples: Bool) {
    self.part = part
    self.status = status
    self.detail = detail
    self.advice = advice
    self.neededByExamples = neededByExamples
  }
}

/// What doctor found, as text or JSON, and its exit status.
public struct DoctorReport: Sendable {
  public var findings: [DoctorFinding]

  public init(findings: [DoctorFinding]) { self.findings = findings }

  /// The parts a bundled example needs that are missing.
  public var missingForExamples: [DoctorFinding] {
    findings.filter { $0.neededByExamples && $0.status == .missing }
  }

  /// 1 when a bundled example cannot run, else 0.
  public var exitStatus: Int32 { missingForExamples.isEmpty ? 0 : 1 }

  /// One line a finding, its advice indented under it, and a last line that
  /// says whether the bundled examples can run (no line break after it).
  public func render() -> String {
    let width = findings.map(\.part.count).max() ?? 0
    var lines: [String] = []
    for finding in findings {
      let status = finding.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
      lines.append(
        status + " " + finding.part.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + finding.detail)
      if let advice = finding.advice { lines.append(String(repeating: " ", count: 8) + "→ " + advice) }
    }
    let missing = missingForExamples.map(\.part)
    lines.append(
      missing.isEmpty
        ? "the bundled examples can run"
        : "the bundled examples cannot run: missing " + missing.joined(separator: ", "))
    return lines.joined(separator: "\n")
  }

  /// `{"ok": Bool, "findings": [{"part", "status", "detail", "advice", "needed_by_examples"}]}`,
  /// without a line break after it.
  public func json() -> String {
    var object = JSONObject()
    object["ok"] = .bool(missingForExamples.isEmpty)
    object["findings"] = .array(
      findings.map { finding in
        var entry = JSONObject()
        entry["part"] = .string(finding.part)
        entry["status"] = .string(finding.status.rawValue)
        entry["detail"] = .string(finding.detail)
        entry["advice"] = finding.advice.map(JSONValue.string) ?? .null
        entry["needed_by_examples"] = .bool(finding.neededByExamples)
        return .object(entry)
      })
    return String(JSONValue.object(object).prettyText.dropLast())
  }
}
