import Diagnostics
import Foundation
import JSONCore

/// What a scenario says must happen, checked against the run's events.
///
/// Events are named by short tokens: `status:ORTH`, `hint:face.blink`,
/// `step:flip right:passed` (or `step:flip right` for any state),
/// `intermediate:first`, `capture:first`, `result:overtime`, or just the
/// event type (`frame_skipped`, `flow.turn`).
public struct Expectations: Sendable {
  public struct Bounds: Sendable, Equatable {
    public var min: Double?
    public var max: Double?
  }

  /// The result code, and optionally its reason and success.
  public var code: Int64?
  public var reason: String?
  public var success: Bool?
  /// Whether the recording was read short of what its container declared (the result's `input_incomplete`).
  public var incomplete: Bool?
  /// The run's exit status (0 passed, 1 failed, 4 input error, ...).
  public var exit: Int32?
  /// Must occur in this order (others may come in between).
  public var events: [String] = []
  /// Must not occur.
  public var absent: [String] = []
  /// How often a token occurs.
  public var counts: [(token: String, bounds: Bounds)] = []
  /// When (t, seconds) a token first occurs.
  public var within: [(token: String, bounds: Bounds)] = []
  /// What the face comparisons (identity events of verify, identify and
  /// compare) said.
  public var match: FaceMatchExpectation?
  /// What became of the recording (a scenario with `record`).
  public var recording: RecordingExpectation?
  /// Analytics records that must come in this order (others may come in
  /// between): `EVENT`, `EVENT:STATUS`, `EVENT:CODE` or
  /// `EVENT:STATUS:CODE`, such as `FINISH:FAILURE:USER_CANCEL`.
  public var analytics: [String] = []

  public init() {}

  static let keys: Set<String> = [
    "result", "exit", "events", "absent", "count", "within", "match", "recording", "analytics",
  ]
  /// The events of the analytics trace (docs/analytics.md).
  static let analyticsEvents = ["INIT", "VIEW", "START", "IN_PROGRESS", "COMPLETE", "SKIP", "FINISH"]

  static func parse(_ value: JSONValue, file: String) throws(WorkbenchError) -> Expectations {
    var problems: [Diagnostic] = []
    func problem(_ key: String, _ message: String, help: String? = nil) {
      problems.append(Diagnostic(message, at: SourceLocation(file: file, key: "expect." + key), help: help))
    }
    guard let table = value.objectValue else {
      throw WorkbenchError(
        .usage, "expect must be a table", at: SourceLocation(file: file, key: "expect"),
        help: "expect = { result = 0, events = { \"status:BEGIN\", \"status:COMPLETE\" } }")
    }
    var expectations = Expectations()
    for key in table.keys where !keys.contains(key) {
      let suggestion = Suggestions.closest(to: key, in: keys.sorted())
      problem(
        key, "unknown key '\(key)'",
        help: suggestion.map { "did you mean '\($0)'?" } ?? "known: \(keys.sorted().joined(separator: ", "))")
    }
    switch table["result"] {
    case nil: break
    case .integer(let code)?: expectations.code = code
    case .string(let reason)?: expectations.reason = reason
    case .object(let object)?:
      expectations.code = object["code"]?.integerValue
      expectations.reason = object["reason"]?.stringValue
      expectations.success = object["success"]?.boolValue
      expectations.incomplete = object["incomplete"]?.boolValue
      let known = ["code", "incomplete", "reason", "success"]
      for key in object.keys where !known.contains(key) {
        problem("result", "unknown key '\(key)' in result (known: \(known.joined(separator: ", ")))")
      }
    default:
      problem("result", "result takes a code (0), a reason (\"overtime\") or { code = 4, reason = \"overtime\" }")
    }
    if let exit = table["exit"] {
      if let status = exit.integerValue {
        expectations.exit = Int32(status)
      } else {
        problem("exit", "exit takes a number")
      }
    }
    func tokens(_ key: String) -> [String] {
      guard let value = table[key] else { return [] }
      guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
        if value.objectValue?.isEmpty == true { return [] }
        problem(key, "\(key) takes a list of event names, such as { \"status:BEGIN\", \"hint:face.blink\" }")
        return []
      }
      return list.compactMap(\.stringValue)
    }
    expectations.events = tokens("events")
    expectations.absent = tokens("absent")
    func bounds(_ key: String) -> [(token: String, bounds: Bounds)] {
      guard let object = table[key]?.objectValue else {
        if table[key] != nil && table[key]?.arrayValue?.isEmpty != true {
          problem(key, "\(key) takes a table from event names to a number or { min = ..., max = ... }")
        }
        return []
      }
      var list: [(token: String, bounds: Bounds)] = []
      for (token, value) in object {
        if let exact = value.doubleValue {
          list.append((token, Bounds(min: exact, max: exact)))
        } else if let range = value.objectValue, range["min"] != nil || range["max"] != nil {
          list.append((token, Bounds(min: range["min"]?.doubleValue, max: range["max"]?.doubleValue)))
        } else {
          problem("\(key).\(token)", "give a number or { min = ..., max = ... }")
        }
      }
      return list
    }
    expectations.counts = bounds("count")
    expectations.within = bounds("within")
    if let value = table["match"] {
      if let expectation = FaceMatchExpectation(value) {
        expectations.match = expectation
      } else {
        problem(
          "match",
          "match takes a user id (\"obama\": a comparison matched that user), true or false (the last comparison), or { user =, match =, distance = { min =, max = } }"
        )
      }
    }
    if let value = table["recording"] {
      if let expectation = RecordingExpectation(value) {
        expectations.recording = expectation
      } else {
        problem("recording", RecordingExpectation.help)
      }
    }
    if let value = table["analytics"] {
      let example =
        #"{ "START", "IN_PROGRESS:SCAN_DOCUMENT_FRONT_PROCESSED", "COMPLETE:SUCCESS", "FINISH:FAILURE:USER_CANCEL" }"#
      if let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) {
        expectations.analytics = list.compactMap(\.stringValue)
        for token in expectations.analytics {
          let event = String(token.prefix { $0 != ":" })
          guard !analyticsEvents.contains(event) else { continue }
          let suggestion = Suggestions.closest(to: event, in: analyticsEvents)
          problem(
            "analytics", "'\(token)' does not start with an analytics event",
            help: (suggestion.map { "did you mean '\($0)'? " } ?? "") + "events: "
              + analyticsEvents.joined(separator: ", "))
        }
      } else if value.objectValue?.isEmpty != true {
        problem("analytics", "analytics takes a list of analytics records, such as \(example)")
      }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return expectations
  }

  /// Whether the analytics `record` is the one `token` names: its event,
  /// then its status (SUCCESS, FAILURE) or status code, or both.
  static func matchesRecord(_ token: String, _ record: JSONValue) -> Bool {
    let parts = token.split(separator: ":").map(String.init)
    guard let event = parts.first, record["event"]?.stringValue == event else { return false }
    for part in parts.dropFirst() {
      if part == "SUCCESS" || part == "FAILURE" {
        if record["status"]?.stringValue != part { return false }
      } else if record["statusCode"]?.stringValue != part {
        return false
      }
    }
    return true
  }

  /// One line for an analytics record in a failure report.
  static func describeRecord(_ record: JSONValue) -> String {
    let fields = ["event", "status", "page", "statusCode"].map { record[$0]?.stringValue ?? "-" }
    let message = record["statusMessage"]?.stringValue.map { " \"\($0)\"" } ?? ""
    return fields.joined(separator: " ") + message
  }

  /// Whether `event` is the one `token` names.
  static func matches(_ token: String, _ event: JSONValue) -> Bool {
    guard let type = event["type"]?.stringValue else { return false }
    let parts = token.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.first == type else { return false }
    guard parts.count == 2 else { return true }
    let rest = parts[1]
    switch type {
    case "status": return event["status"]?.stringValue == rest
    case "hint": return event["key"]?.stringValue == rest
    case "intermediate", "result": return event["reason"]?.stringValue == rest
    case "capture": return event["name"]?.stringValue == rest
    case "identity": return event["operation"]?.stringValue == rest
    case "step":
      let name = event["name"]?.stringValue ?? ""
      let state = event["state"]?.stringValue ?? ""
      return rest == name || rest == "\(name):\(state)"
    default:
      return event.jsonText.contains(rest)
    }
  }

  /// One line for an event in a failure report.
  static func describe(_ event: JSONValue) -> String {
    let t = event["t"]?.doubleValue.map { String(format: "%7.3f", $0) } ?? "      ?"
    let type = event["type"]?.stringValue ?? "?"
    let detail: String
    switch type {
    case "status":
      detail = event["status"]?.stringValue ?? ""
    case "hint":
      detail = "\(event["key"]?.stringValue ?? "") \"\(event["text"]?.stringValue ?? "")\""
    case "step":
      detail =
        "\(event["name"]?.stringValue ?? ""):\(event["state"]?.stringValue ?? "")"
        + (event["reason"]?.stringValue.map { " (\($0))" } ?? "")
    case "result", "intermediate":
      detail =
        "code \(event["code"]?.integerValue.map(String.init) ?? "?") \(event["reason"]?.stringValue ?? "")"
    case "identity":
      detail = FaceMatchExpectation.describe(event)
    case "capture":
      detail = event["name"]?.stringValue ?? ""
    default:
      detail = ""
    }
    return "t=\(t)  \(type) \(detail)"
  }

  /// Every way the run's `events` and `exitStatus` differ from these
  /// expectations, each with what happened around it.
  public func check(events: [JSONValue], exitStatus: Int32, analytics: [JSONValue] = []) -> [String] {
    var failures: [String] = []
    let result = events.last { $0["type"] == "result" }
    let resultLine = result.map(Expectations.describe) ?? "no result event"
    if let code, result?["code"]?.integerValue != code {
      failures.append(
        "expected result code \(code)\(reason.map { " (\($0))" } ?? ""), got \(resultLine)\n"
          + Expectations.around(events, index: events.count - 1))
    } else if let reason, result?["reason"]?.stringValue != reason {
      failures.append(
        "expected result reason \(reason), got \(resultLine)\n" + Expectations.around(events, index: events.count - 1))
    }
    if let success, result?["success"]?.boolValue != success {
      failures.append("expected success = \(success), got \(resultLine)")
    }
    if let incomplete, (result?["input_incomplete"] != nil) != incomplete {
      failures.append(
        incomplete
          ? "expected the recording to be read short of what its container declared, got \(resultLine)"
          : "expected the whole recording to be read, got \(result?["input_incomplete"]?.jsonText ?? "") in \(resultLine)"
      )
    }
    if let exit, exit != exitStatus {
      failures.append("expected exit status \(exit), got \(exitStatus)")
    }
    if let failure = Expectations.ordered(
      self.events, in: events, what: "event", matches: Expectations.matches, describe: Expectations.describe)
    {
      failures.append(failure)
    }
    for token in absent {
      if let found = events.firstIndex(where: { Expectations.matches(token, $0) }) {
        failures.append(
          "expected no '\(token)', but it came at \(Expectations.describe(events[found]))\n"
            + Expectations.around(events, index: found))
      }
    }
    for (token, bounds) in counts {
      let count = Double(events.filter { Expectations.matches(token, $0) }.count)
      if let min = bounds.min, count < min {
        failures.append("expected '\(token)' at least \(Int(min)) times, got \(Int(count))")
      }
      if let max = bounds.max, count > max {
        failures.append("expected '\(token)' at most \(Int(max)) times, got \(Int(count))")
      }
    }
    for (token, bounds) in within {
      guard let event = events.first(where: { Expectations.matches(token, $0) }), let t = event["t"]?.doubleValue else {
        failures.append(
          "expected '\(token)' within \(bounds.min ?? 0)...\(bounds.max.map { "\($0)" } ?? "") s, but it never came")
        continue
      }
      if let min = bounds.min, t < min {
        failures.append("expected '\(token)' at \(min) s or later, it came at \(t) s")
      }
      if let max = bounds.max, t > max { failures.append("expected '\(token)' by \(max) s, it came at \(t) s") }
    }
    if let match, let failure = match.check(events) { failures.append(failure) }
    if let recording, let failure = recording.check(result) { failures.append(failure) }
    if let failure = Expectations.ordered(
      self.analytics, in: analytics, what: "analytics record", matches: Expectations.matchesRecord,
      describe: Expectations.describeRecord)
    {
      failures.append(failure)
    }
    return failures
  }

  /// Where `items` first lack `tokens` in their order (others may come in
  /// between): what was expected, after what, and what came around it.
  static func ordered(
    _ tokens: [String], in items: [JSONValue], what: String, matches: (String, JSONValue) -> Bool,
    describe: (JSONValue) -> String
  ) -> String? {
    var position = 0
    var lastMatch: Int?
    for (number, token) in tokens.enumerated() {
      if let found = items[position...].firstIndex(where: { matches(token, $0) }) {
        lastMatch = found
        position = found + 1
        continue
      }
      let after = lastMatch.map { "after '\(tokens[number - 1])' at \(describe(items[$0]))" } ?? "from the start"
      let elsewhere = items.firstIndex { matches(token, $0) }
      return "expected \(what) \(number + 1) of \(tokens.count), '\(token)', \(after); "
        + (elsewhere.map { "it came earlier, at \(describe(items[$0]))" } ?? "it never came")
        + "\n"
        + Expectations.around(
          items, index: lastMatch.map { $0 + 1 } ?? 0, before: 2, after: 8, describe: describe, none: "(no \(what)s)")
    }
    return nil
  }

  /// The events around `index`, one per line, indented.
  static func around(
    _ events: [JSONValue], index: Int, before: Int = 4, after: Int = 4,
    describe: (JSONValue) -> String = Expectations.describe, none: String = "(no events)"
  ) -> String {
    guard !events.isEmpty else { return "    " + none }
    let center = Swift.min(Swift.max(index, 0), events.count - 1)
    let low = Swift.max(0, center - before)
    let high = Swift.min(events.count - 1, center + after)
    var lines = ["    around it:"]
    if low > 0 { lines.append("      ...") }
    for i in low...high { lines.append("      " + describe(events[i])) }
    if high < events.count - 1 { lines.append("      ...") }
    return lines.joined(separator: "\n")
  }
}

/// `expect.match`: what the run's face comparisons said. A user id: a
/// verify or identify matched that user. true or false: the last
/// comparison (verify, identify or compare) matched or did not. A table
/// adds the distance's bounds: `{ user = "man", distance = { max = 0.4 } }`.
public struct FaceMatchExpectation: Sendable {
  public var user: String?
  public var matched: Bool?
  public var distance: Expectations.Bounds?

  init?(_ value: JSONValue) {
    switch value {
    case .string(let user): self.user = user
    case .bool(let matched): self.matched = matched
    case .object(let object):
      let known: Set<String> = ["user", "match", "distance"]
      guard object.keys.allSatisfy(known.contains) else { return nil }
      user = object["user"]?.stringValue
      matched = object["match"]?.boolValue
      if let bounds = object["distance"]?.objectValue {
        distance = Expectations.Bounds(min: bounds["min"]?.doubleValue, max: bounds["max"]?.doubleValue)
      }
      if user == nil && matched == nil && distance == nil { return nil }
    default: return nil
    }
  }

  static let operations: Set<String> = ["verify", "identify", "compare"]

  static func describe(_ event: JSONValue) -> String {
    let operation = event["operation"]?.stringValue ?? "?"
    let user = event["user"]?.stringValue.map { " '\($0)'" } ?? ""
    let distance =
      event["distance"]?.doubleValue ?? event["candidates"]?.arrayValue?.first?["distance"]?.doubleValue
    let matched = event["match"]?.boolValue == true ? "a match" : "no match"
    if let error = event["error"]?.stringValue { return "\(operation): \(error)" }
    if operation == "describe" {
      return "describe \(event["name"]?.stringValue ?? "?") from the \(event["source"]?.stringValue ?? "?")"
    }
    return "\(operation)\(user) at distance \(distance.map { String(format: "%.4f", $0) } ?? "?") (\(matched))"
  }

  func check(_ events: [JSONValue]) -> String? {
    let comparisons = events.filter {
      $0["type"] == "identity" && FaceMatchExpectation.operations.contains($0["operation"]?.stringValue ?? "")
    }
    guard let last = comparisons.last else {
      return "expected a face comparison (verify, identify or compare), none came"
    }
    let seen = comparisons.map(FaceMatchExpectation.describe).joined(separator: "; ")
    var chosen = last
    if let user {
      guard let hit = comparisons.last(where: { $0["user"]?.stringValue == user && $0["match"]?.boolValue == true })
      else { return "expected a match with '\(user)'; the comparisons: \(seen)" }
      chosen = hit
    }
    if let matched, (chosen["match"]?.boolValue ?? false) != matched {
      return
        "expected \(matched ? "a match" : "no match"); the last comparison: \(FaceMatchExpectation.describe(chosen))"
    }
    if let distance {
      let value = chosen["distance"]?.doubleValue ?? chosen["candidates"]?.arrayValue?.first?["distance"]?.doubleValue
      guard let value else {
        return "expected a distance; the comparison had none: \(FaceMatchExpectation.describe(chosen))"
      }
      if let min = distance.min, value < min { return "expected a distance of at least \(min), got \(value)" }
      if let max = distance.max, value > max { return "expected a distance of at most \(max), got \(value)" }
    }
    return nil
  }
}
