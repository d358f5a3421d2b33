import Foundation
import JSONCore
import SessionReport
import TestSupport

/// A made-up HKID 2018 card run of 5 s at 30 frames per second: front-on,
/// flip right, back, flip left, back, with its statuses, hints and two captures.
struct SyntheticRun {
  var success = true
  var hintText = "Hold the card front-on"
  /// The card is out of view from this frame to `gapEnd` (exclusive).
  var gapStart = 72
  var gapEnd = 78
  /// The images the captures name (relative to the package root).
  var image = "Tests/Fixtures/frames/0001.jpg"

  static let fps = 30.0
  static let frameCount = 151

  /// card.tilt_y over time: 0 until 1 s, up to 35° at 2 s, back to 0 at 3 s, to −35° at 4 s, back at 5 s.
  static func tiltY(_ t: Double) -> Double {
    switch t {
    case ..<1: return 0
    case ..<2: return 35 * (t - 1)
    case ..<3: return 35 * (3 - t)
    case ..<4: return -35 * (t - 3)
    default: return -35 * (5 - t)
    }
  }

  static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

  var frames: [JSONValue] {
    (0..<SyntheticRun.frameCount).map { index in
      let t = SyntheticRun.rounded(Double(index) / SyntheticRun.fps)
      var frame = JSONObject([("t", .number(t)), ("frame", .integer(Int64(index)))])
      if index >= gapStart && index < gapEnd {
        frame["card"] = .object(JSONObject([("found", .bool(false))]))
      } else {
        let tiltY = SyntheticRun.rounded(SyntheticRun.tiltY(t))
        let tiltX = SyntheticRun.rounded(2 * sin(Double(index) / 7))
        frame["card"] = .object(
          JSONObject([
            ("found", .bool(true)), ("tilt_x", .number(tiltX)), ("tilt_y", .number(tiltY)),
            ("width_ratio", .number(index < 30 ? 0.25 : 0.5)), ("size_ratio", .number(index < 30 ? 0.25 : 0.5)),
            ("speed", .number(t < 1 ? 0 : 35)),
            ("glare", .number(0.02)),
            ("corners", [["x": 10, "y": 20], ["x": 30, "y": 20], ["x": 30, "y": 40], ["x": 10, "y": 40]]),
          ]))
      }
      return .object(frame)
    }
  }

  var events: [JSONValue] {
    var events: [JSONValue] = []
    func event(_ type: String, _ t: Double, _ fields: [(String, JSONValue)]) {
      let frame = Int64((t * SyntheticRun.fps).rounded())
      events.append(
        .object(JSONObject([("type", .string(type)), ("t", .number(t)), ("frame", .integer(frame))] + fields)))
    }
    func step(_ t: Double, _ name: String, _ index: Int64, _ state: String, _ extra: [(String, JSONValue)] = []) {
      event(
        "step", t, [("name", .string(name)), ("index", .integer(index)), ("of", 5), ("state", .string(state))] + extra)
    }
    func hint(_ t: Double, _ key: String, _ text: String) {
      event("hint", t, [("key", .string(key)), ("text", .string(text)), ("lang", "en")])
    }
    event(
      "session", 0,
      [
        ("flow", "hkid-2018"), ("file", "examples/hkid-2018.lua"), ("seed", 0),
        ("order", ["card front-on", "flip right", "back to front", "flip left", "back to front again"]),
        ("time_limit", 0), ("lang", "en"), ("workbench", "0.1.0"),
        ("input", ["kind": "trace", "name": "card.jsonl"]),
      ])
    step(0, "card front-on", 1, "started")
    event("status", 0, [("status", "BEGIN")])
    hint(0, "idcard_operation_title1", hintText)
    event("status", 0.2, [("status", "FAR"), ("ratio", 0.25)])
    event("status", 1, [("status", "VALID")])
    step(1, "card front-on", 1, "passed", [("elapsed", 1)])
    step(1, "flip right", 2, "started")
    event("status", 1, [("status", "ORTH")])
    hint(1, "idcard_operation_title2", "Flip the card to the right")
    step(1.8, "flip right", 2, "passed", [("elapsed", 0.8)])
    event("capture", 1.8, [("name", "first"), ("images", .object(JSONObject([("frame", .string(image))])))])
    event(
      "intermediate", 1.8, [("code", 1), ("reason", "first"), ("message", "First motion recognised"), ("images", nil)])
    step(1.8, "back to front", 3, "started")
    event("status", 1.8, [("status", "RESET")])
    step(3, "back to front", 3, "passed", [("elapsed", 1.2)])
    step(3, "flip left", 4, "started")
    event("status", 3, [("status", "LEFTDOWN")])
    hint(3, "idcard_operation_title3", "Flip the card to the left")
    if success {
      step(3.8, "flip left", 4, "passed", [("elapsed", 0.8)])
      event("capture", 3.8, [("name", "second"), ("images", .object(JSONObject([("frame", .string(image))])))])
      step(3.8, "back to front again", 5, "started")
      event("status", 3.8, [("status", "RESET")])
      step(5, "back to front again", 5, "passed", [("elapsed", 1.2)])
      event("status", 5, [("status", "COMPLETE")])
      event(
        "result", 5,
        [
          ("success", true), ("code", 0), ("reason", "passed"), ("message", "Complete"), ("steps_passed", 5),
          ("steps", 5), ("frames", 151), ("duration", 5),
        ])
    } else {
      step(5, "flip left", 4, "failed", [("reason", "end_of_input")])
      hint(5, "result_fail_title1", "Verification failed")
      event(
        "result", 5,
        [
          ("success", false), ("code", 3), ("reason", "end_of_input"), ("message", "The input ended"),
          ("steps_passed", 3), ("steps", 5), ("frames", 151), ("duration", 5),
        ])
    }
    return events
  }

  static let settings: [SessionReport.Setting] = [
    .init(key: "flow.time_limit", value: 0, source: "flow"),
    .init(key: "hkid.far_ratio", value: 0.3, source: "default"),
    .init(key: "hkid.flip_angle", value: 25, source: "--set"),
    .init(key: "hkid.front_hold_ms", value: 300, source: "default"),
    .init(key: "hkid.glare_max", value: 0.08, source: "default"),
    .init(key: "hkid.max_speed", value: 150, source: "default"),
    .init(key: "hkid.near_ratio", value: 0.85, source: "default"),
    .init(key: "messages.language", value: "en", source: "configs/settings.json"),
  ]

  var input: SessionReport.Input {
    SessionReport.Input(
      events: events, frames: frames, settings: SyntheticRun.settings, imageFolders: [packageRootPath])
  }

  /// The events and the trace as JSON Lines, as `run --events` and `--trace-out` write them.
  var eventsText: String { events.map { $0.jsonText + "\n" }.joined() }
  var traceText: String {
    "{\"workbench_trace\":1,\"flow\":\"examples/hkid-2018.lua\",\"source\":\"card.jsonl\"}\n"
      + frames.map { $0.jsonText + "\n" }.joined()
  }
  static var settingsText: String {
    JSONValue.array(
      settings.map { setting in
        ["key": .string(setting.key), "value": setting.value, "source": .string(setting.source), "doc": ""]
      }
    ).jsonText
  }
}

/// Pieces of the page, found by their markup.
enum Page {
  /// Every `<svg class="plot" ...>...</svg>`, in order.
  static func plots(_ html: String) -> [Substring] { elements(html, start: "<svg class=\"plot\"", end: "</svg>") }

  static func plot(_ html: String, series: String) -> Substring? {
    plots(html).first { $0.contains("data-series=\"\(series)\"") }
  }

  static func elements(_ html: String, start: String, end: String) -> [Substring] {
    HTMLText.elements(html, start: start, end: end)
  }

  /// The value of `name="..."` in the first tag of `text`.
  static func attribute(_ name: String, in text: Substring) -> String? { HTMLText.attribute(name, in: text) }

  static func count(_ needle: String, in text: some StringProtocol) -> Int { HTMLText.count(needle, in: text) }

  /// The rows of the table in the section `id`, as cell texts.
  static func rows(_ html: String, section id: String) -> [[String]] {
    guard let section = elements(html, start: "<section id=\"\(id)\">", end: "</section>").first else { return [] }
    return elements(String(section), start: "<tr><td>", end: "</tr>").map { row in
      row.dropFirst("<tr>".count).dropLast("</tr>".count)
        .components(separatedBy: "</td>").filter { !$0.isEmpty }
        .map { String($0.dropFirst("<td>".count)) }
    }
  }
}
