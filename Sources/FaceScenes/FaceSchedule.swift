import Diagnostics
import Foundation
import JSONCore

/// What the face (or faces) do at one moment of a schedule. Angles in
/// degrees, as the face estimator reports them: yaw positive when the
/// person turns to their own left, pitch positive looking up.
public struct FaceKeyframe: Sendable, Equatable {
  public var t: Double
  /// Faces in the frame: 0 (nobody), 1, or more (the others stand beside the first).
  public var count: Int
  /// The face box's height over the frame's shorter side.
  public var size: Double
  /// The box centre's offset from the frame centre, in frame widths (x) and heights (y).
  public var x: Double
  public var y: Double
  public var yaw: Double
  public var pitch: Double
  public var roll: Double
  /// How open each eye is, 1 open, 0 shut (the person's own left and right).
  public var eyeLeft: Double
  public var eyeRight: Double
  public var smile: Double
  public var mouthOpen: Double
  /// The face's quality scores, 1 best (docs/face.md).
  public var blur: Double
  public var darkness: Double
  public var lightness: Double
  public var illumination: Double
  public var specularity: Double

  public init(
    t: Double, count: Int = 1, size: Double = 0.5, x: Double = 0, y: Double = 0, yaw: Double = 0, pitch: Double = 0,
    roll: Double = 0, eyeLeft: Double = 1, eyeRight: Double = 1, smile: Double = 0, mouthOpen: Double = 0.03,
    blur: Double = 0.95, darkness: Double = 0.95, lightness: Double = 1, illumination: Double = 0.8,
    specularity: Double = 1
  ) {
    self.t = t
    self.count = count
    self.size = size
    self.x = x
    self.y = y
    self.yaw = yaw
    self.pitch = pitch
    self.roll = roll
    self.eyeLeft = eyeLeft
    self.eyeRight = eyeRight
    self.smile = smile
    self.mouthOpen = mouthOpen
    self.blur = blur
    self.darkness = darkness
    self.lightness = lightness
    self.illumination = illumination
    self.specularity = specularity
  }
}

/// A blink: both eyes close at `t` and stay shut for `duration` seconds
/// (the lids take a further 60 ms to close and 90 ms to open).
public struct FaceBlink: Sendable, Equatable {
  public var t: Double
  public var duration: Double
  /// Only one eye ("left" or "right"), or both (nil).
  public var eye: String?

  public init(t: Double, duration: Double = 0.12, eye: String? = nil) {
    self.t = t
    self.duration = duration
    self.eye = eye
  }
}

/// A face scene: keyframes in time, blinks, and how much the estimator's
/// own noise shows (docs/synth.md).
public struct FaceSchedule: Sendable, Equatable {
  public enum Interpolation: String, Sendable, Equatable {
    case linear
    case smoothstep
  }

  public var keyframes: [FaceKeyframe]
  public var blinks: [FaceBlink]
  public var interpolation: Interpolation
  /// Length in seconds; the last keyframe's time when nil.
  public var duration: Double?
  /// Scale of the estimator's noise (landmark jitter, eye aspect ratio
  /// noise); 0 gives exact values, 1 what the face estimator shows on a
  /// well-lit 720p face.
  public var noise: Double
  /// The share of frames in which the estimator loses a face that is there.
  public var dropout: Double
  /// The eye aspect ratio of this person's open eyes (it varies from face to face).
  public var openEyeRatio: Double

  public init(
    keyframes: [FaceKeyframe], blinks: [FaceBlink] = [], interpolation: Interpolation = .smoothstep,
    duration: Double? = nil, noise: Double = 1, dropout: Double = 0, openEyeRatio: Double = 0.33
  ) {
    self.keyframes = keyframes.sorted { $0.t < $1.t }
    self.blinks = blinks.sorted { $0.t < $1.t }
    self.interpolation = interpolation
    self.duration = duration
    self.noise = noise
    self.dropout = dropout
    self.openEyeRatio = openEyeRatio
  }

  public var length: Double { duration ?? keyframes.last?.t ?? 0 }

  /// The scene at `t`, blinks applied to the eyes.
  public func state(at t: Double) -> FaceKeyframe {
    guard let first = keyframes.first else { return FaceKeyframe(t: t, count: 0) }
    var a = first
    var b = first
    var s = 0.0
    if t >= keyframes[keyframes.count - 1].t {
      a = keyframes[keyframes.count - 1]
      b = a
    } else if t > first.t {
      var index = 0
      while keyframes[index + 1].t <= t { index += 1 }
      a = keyframes[index]
      b = keyframes[index + 1]
      s = (t - a.t) / max(1e-9, b.t - a.t)
      if interpolation == .smoothstep { s = s * s * (3 - 2 * s) }
    }
    func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * s }
    var state = FaceKeyframe(
      t: t, count: a.count, size: mix(a.size, b.size), x: mix(a.x, b.x), y: mix(a.y, b.y), yaw: mix(a.yaw, b.yaw),
      pitch: mix(a.pitch, b.pitch), roll: mix(a.roll, b.roll), eyeLeft: mix(a.eyeLeft, b.eyeLeft),
      eyeRight: mix(a.eyeRight, b.eyeRight), smile: mix(a.smile, b.smile), mouthOpen: mix(a.mouthOpen, b.mouthOpen),
      blur: mix(a.blur, b.blur), darkness: mix(a.darkness, b.darkness), lightness: mix(a.lightness, b.lightness),
      illumination: mix(a.illumination, b.illumination), specularity: mix(a.specularity, b.specularity))
    for blink in blinks {
      let lid = FaceSchedule.lidClosure(at: t - blink.t, shut: blink.duration)
      guard lid > 0 else { continue }
      if blink.eye != "right" { state.eyeLeft *= 1 - lid }
      if blink.eye != "left" { state.eyeRight *= 1 - lid }
    }
    return state
  }

  static let closing = 0.06
  static let opening = 0.09

  /// How far the lids are shut (0 open, 1 shut) `since` seconds after a
  /// blink began.
  static func lidClosure(at since: Double, shut: Double) -> Double {
    if since < 0 { return 0 }
    if since < closing { return since / closing }
    if since < closing + shut { return 1 }
    let opened = (since - closing - shut) / opening
    return opened < 1 ? 1 - opened : 0
  }
}

extension FaceSchedule {
  static let topLevelKeys = [
    "kind", "keyframes", "blinks", "interpolation", "duration", "noise", "dropout", "open_eye_ratio", "comment",
  ]
  static let keyframeKeys = [
    "t", "count", "size", "x", "y", "yaw", "pitch", "roll", "eyes", "eye_left", "eye_right", "smile", "mouth_open",
    "blur", "darkness", "lightness", "illumination", "specularity", "comment",
  ]
  static let blinkKeys = ["t", "ms", "eye", "comment"]
  /// The most keyframes, and the most blinks, a schedule may have: a blink
  /// every 0.36 s for the longest scene, an hour.
  public static let maximumCount = 10_000

  /// Whether a schedule file describes a face scene rather than a card's:
  /// `"kind": "face"`, or face keys in its keyframes.
  public static func describesFace(_ text: String) -> Bool {
    guard let root = try? JSONParser.parse(text), let object = root.objectValue else { return false }
    if let kind = object["kind"]?.stringValue { return kind == "face" }
    if object["blinks"] != nil { return true }
    let faceOnly = Set(["count", "size", "yaw", "pitch", "eyes", "eye_left", "eye_right", "smile", "mouth_open"])
    return (object["keyframes"]?.arrayValue ?? []).contains { keyframe in
      keyframe.objectValue?.keys.contains { faceOnly.contains($0) } ?? false
    }
  }

  public static func load(path: String) throws(WorkbenchError) -> FaceSchedule {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(
        .input, "cannot read the schedule", at: SourceLocation(file: path), help: "check the path and permissions")
    }
    return try parse(String(decoding: data, as: UTF8.self), file: path)
  }

  /// Parses a face schedule; errors name the file, the line and the key.
  public static func parse(_ text: String, file: String = "schedule") throws(WorkbenchError) -> FaceSchedule {
    let root: JSONValue
    do { root = try JSONParser.parse(text) } catch {
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: file, line: error.line))
    }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    // The line (1-based) of every occurrence of "key", in order, for errors: one pass over the
    // text, however many blinks and keyframes name "t".
    func occurrences(of key: String) -> [Int] {
      let quoted = "\"\(key)\""
      var found: [Int] = []
      for (number, text) in lines.enumerated() {
        var rest = Substring(text)
        while let range = rest.range(of: quoted) {
          found.append(number + 1)
          rest = rest[range.upperBound...]
        }
      }
      return found
    }
    var keyframeLine: [Int] = []
    if let start = occurrences(of: "keyframes").first {
      // Keyframes are objects, one or more lines each: their "t" lines in order.
      keyframeLine = occurrences(of: "t").filter { $0 >= start }
    }
    func problem(_ message: String, key: String, at place: String? = nil, line: Int? = nil, help: String? = nil)
      -> WorkbenchError
    {
      WorkbenchError(
        .usage, message,
        at: SourceLocation(
          file: file, line: line ?? lines.firstIndex { $0.contains("\"\(key)\"") }.map { $0 + 1 },
          key: place.map { "\($0).\(key)" } ?? key), help: help ?? "see docs/synth.md for face schedules")
    }
    func unknown(_ key: String, allowed: [String], at place: String?, line: Int?) -> WorkbenchError {
      let near = closestNames(to: key, among: allowed, limit: 1)
      return problem(
        "unknown key '\(key)'", key: key, at: place, line: line,
        help: didYouMean(near) ?? "known keys: " + allowed.joined(separator: ", "))
    }
    guard let object = root.objectValue else {
      throw WorkbenchError(
        .usage, "a schedule is a JSON object, not \(root.kindName)", at: SourceLocation(file: file, line: 1),
        help: "see docs/synth.md for face schedules")
    }
    for key in object.keys where !topLevelKeys.contains(key) {
      throw unknown(key, allowed: topLevelKeys, at: nil, line: nil)
    }
    if let kind = object["kind"], kind.stringValue != "face" {
      throw problem(
        "'kind' is \(kind.jsonText): this is not a face schedule", key: "kind",
        help: "a card schedule goes to 'workbench synth card'")
    }
    func number(
      _ value: JSONValue?, _ key: String, at place: String? = nil, line: Int? = nil, range: ClosedRange<Double>
    ) throws(WorkbenchError) -> Double? {
      guard let value else { return nil }
      guard let number = value.doubleValue, number.isFinite else {
        throw problem("'\(key)' must be a number, not \(value.kindName)", key: key, at: place, line: line)
      }
      guard range.contains(number) else {
        throw problem(
          "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), not \(number)", key: key, at: place,
          line: line)
      }
      return number
    }
    var schedule = FaceSchedule(keyframes: [])
    if let value = object["interpolation"] {
      guard let name = value.stringValue, let interpolation = Interpolation(rawValue: name) else {
        throw problem("'interpolation' must be \"linear\" or \"smoothstep\"", key: "interpolation")
      }
      schedule.interpolation = interpolation
    }
    schedule.duration = try number(object["duration"], "duration", range: 0...3600)
    schedule.noise = try number(object["noise"], "noise", range: 0...10) ?? schedule.noise
    schedule.dropout = try number(object["dropout"], "dropout", range: 0...1) ?? schedule.dropout
    schedule.openEyeRatio =
      try number(object["open_eye_ratio"], "open_eye_ratio", range: 0.15...0.6) ?? schedule.openEyeRatio

    guard let list = object["keyframes"]?.arrayValue, !list.isEmpty else {
      throw problem(
        "the schedule needs a non-empty 'keyframes' array", key: "keyframes",
        help: "e.g. \"keyframes\": [{\"t\": 0}, {\"t\": 1, \"yaw\": 35}]")
    }
    for (key, count) in [("keyframes", list.count), ("blinks", object["blinks"]?.arrayValue?.count ?? 0)]
    where count > maximumCount {
      throw problem(
        "'\(key)' has \(count) entries, more than the limit of \(maximumCount)", key: key,
        help: "split the scene into several schedules")
    }
    var previous = FaceKeyframe(t: 0)
    var keyframes: [FaceKeyframe] = []
    for (index, item) in list.enumerated() {
      let place = "keyframes[\(index)]"
      let at = index < keyframeLine.count ? keyframeLine[index] : nil
      guard let entry = item.objectValue else {
        throw problem("each keyframe is an object, not \(item.kindName)", key: "keyframes")
      }
      for key in entry.keys where !keyframeKeys.contains(key) {
        throw unknown(key, allowed: keyframeKeys, at: place, line: at)
      }
      guard let t = try number(entry["t"], "t", at: place, line: at, range: 0...3600) else {
        throw problem("the keyframe has no time 't'", key: "t", at: place, line: at, help: "add \"t\": seconds")
      }
      if let last = keyframes.last, t <= last.t {
        throw problem("times must increase: \(t) after \(last.t)", key: "t", at: place, line: at)
      }
      var frame = previous
      frame.t = t
      if let count = try number(entry["count"], "count", at: place, line: at, range: 0...5) {
        guard count == count.rounded() else {
          throw problem("'count' is a whole number of faces, not \(count)", key: "count", at: place, line: at)
        }
        frame.count = Int(count)
      }
      func value(_ key: String, _ range: ClosedRange<Double>, _ current: Double) throws(WorkbenchError) -> Double {
        try number(entry[key], key, at: place, line: at, range: range) ?? current
      }
      frame.size = try value("size", 0.02...3, frame.size)
      frame.x = try value("x", -1...1, frame.x)
      frame.y = try value("y", -1...1, frame.y)
      frame.yaw = try value("yaw", -90...90, frame.yaw)
      frame.pitch = try value("pitch", -90...90, frame.pitch)
      frame.roll = try value("roll", -180...180, frame.roll)
      let eyes = try number(entry["eyes"], "eyes", at: place, line: at, range: 0...1)
      frame.eyeLeft = try value("eye_left", 0...1, eyes ?? frame.eyeLeft)
      frame.eyeRight = try value("eye_right", 0...1, eyes ?? frame.eyeRight)
      frame.smile = try value("smile", 0...1, frame.smile)
      frame.mouthOpen = try value("mouth_open", 0...1, frame.mouthOpen)
      frame.blur = try value("blur", 0...1, frame.blur)
      frame.darkness = try value("darkness", 0...1, frame.darkness)
      frame.lightness = try value("lightness", 0...1, frame.lightness)
      frame.illumination = try value("illumination", 0...1, frame.illumination)
      frame.specularity = try value("specularity", 0...1, frame.specularity)
      keyframes.append(frame)
      previous = frame
    }
    schedule.keyframes = keyframes

    var blinks: [FaceBlink] = []
    for (index, item) in (object["blinks"]?.arrayValue ?? []).enumerated() {
      let place = "blinks[\(index)]"
      guard let entry = item.objectValue else {
        throw problem("each blink is an object such as {\"t\": 1.2, \"ms\": 150}", key: "blinks")
      }
      for key in entry.keys where !blinkKeys.contains(key) {
        throw unknown(key, allowed: blinkKeys, at: place, line: nil)
      }
      guard let t = try number(entry["t"], "t", at: place, range: 0...3600) else {
        throw problem("the blink has no time 't'", key: "blinks", help: "e.g. {\"t\": 1.2, \"ms\": 150}")
      }
      let milliseconds = try number(entry["ms"], "ms", at: place, range: 0...60_000) ?? 120
      var blink = FaceBlink(t: t, duration: milliseconds / 1000)
      if let eye = entry["eye"] {
        guard let name = eye.stringValue, name == "left" || name == "right" else {
          throw problem("'eye' is \"left\" or \"right\" (leave it out for both)", key: "eye", at: place)
        }
        blink.eye = name
      }
      blinks.append(blink)
    }
    schedule.blinks = blinks.sorted { $0.t < $1.t }
    return schedule
  }
}
