import CardGeometry
import Diagnostics
import Foundation
import JSONCore

/// How far the card is: a depth, or the share of the frame width the
/// front-on card would fill at that depth (independent of the lens).
public enum CardDistance: Sendable, Equatable {
  case millimetres(Double)
  case widthRatio(Double)

  /// The depth in millimetres for `camera`.
  public func millimetres(camera: PinholeCamera) -> Double {
    switch self {
    case .millimetres(let value): return value
    case .widthRatio(let ratio): return camera.focal * CardFormat.width / (ratio * Double(camera.width))
    }
  }
}

/// The card at one moment of a schedule. Angles in degrees; offsets move
/// the card centre from the frame centre, in frame widths (x) and heights
/// (y), so ±0.5 puts the centre on the frame's border.
public struct CardKeyframe: Sendable, Equatable {
  public var t: Double
  public var tiltX: Double
  public var tiltY: Double
  public var roll: Double
  public var distance: CardDistance
  public var offsetX: Double
  public var offsetY: Double
  /// Strength of the specular highlight: 0 none, 1 strong (saturates a wide disc).
  public var glare: Double
  /// Centre of the highlight in normalised card coordinates.
  public var glareX: Double
  public var glareY: Double
  /// Its radius (one standard deviation) in card widths.
  public var glareRadius: Double
  /// Whether the card is in the scene at all (not interpolated: it holds until the next keyframe).
  public var visible: Bool
  /// Out-of-focus blur of the whole frame, box radius in pixels (0 = sharp).
  public var defocus: Double
  /// Global light: every pixel multiplied by it.
  public var brightness: Double

  public init(
    t: Double, tiltX: Double = 0, tiltY: Double = 0, roll: Double = 0, distance: CardDistance = .widthRatio(0.5),
    offsetX: Double = 0, offsetY: Double = 0, glare: Double = 0, glareX: Double = 0.6, glareY: Double = 0.4,
    glareRadius: Double = 0.12, visible: Bool = true, defocus: Double = 0, brightness: Double = 1
  ) {
    self.t = t
    self.tiltX = tiltX
    self.tiltY = tiltY
    self.roll = roll
    self.distance = distance
    self.offsetX = offsetX
    self.offsetY = offsetY
    self.glare = glare
    self.glareX = glareX
    self.glareY = glareY
    self.glareRadius = glareRadius
    self.visible = visible
    self.defocus = defocus
    self.brightness = brightness
  }
}

/// The state of the scene at one time, with the depth resolved for a camera.
public struct CardSceneState: Sendable, Equatable {
  public var pose: CardPose
  public var offsetX: Double
  public var offsetY: Double
  public var glare: Double
  public var glareX: Double
  public var glareY: Double
  public var glareRadius: Double
  public var visible: Bool
  public var defocus: Double
  public var brightness: Double

  public init(
    pose: CardPose, offsetX: Double = 0, offsetY: Double = 0, glare: Double = 0, glareX: Double = 0.6,
    glareY: Double = 0.4, glareRadius: Double = 0.12, visible: Bool = true, defocus: Double = 0, brightness: Double = 1
  ) {
    self.pose = pose
    self.offsetX = offsetX
    self.offsetY = offsetY
    self.glare = glare
    self.glareX = glareX
    self.glareY = glareY
    self.glareRadius = glareRadius
    self.visible = visible
    self.defocus = defocus
    self.brightness = brightness
  }
}

/// Keyframes in time and how to go from one to the next (docs/synth.md).
public struct CardSchedule: Sendable, Equatable {
  public enum Interpolation: String, Sendable, Equatable {
    case linear
    /// Eases in and out of every keyframe (3s² − 2s³).
    case smoothstep
  }

  public var keyframes: [CardKeyframe]
  public var interpolation: Interpolation
  /// Length of the recording in seconds; the last keyframe's time when nil.
  public var duration: Double?
  /// Sensor noise: uniform, ± this many levels.
  public var noise: Double
  /// Exposure time as a share of the frame interval; the card's movement
  /// during it is the motion blur.
  public var shutter: Double

  public init(
    keyframes: [CardKeyframe], interpolation: Interpolation = .smoothstep, duration: Double? = nil, noise: Double = 2,
    shutter: Double = 0.5
  ) {
    self.keyframes = keyframes.sorted { $0.t < $1.t }
    self.interpolation = interpolation
    self.duration = duration
    self.noise = noise
    self.shutter = shutter
  }

  public var length: Double { duration ?? keyframes.last?.t ?? 0 }

  /// The scene at `t` seconds.
  public func state(at t: Double, camera: PinholeCamera) -> CardSceneState {
    guard let first = keyframes.first else {
      return CardSceneState(pose: CardPose(translation: Vector3(0, 0, 300)), visible: false)
    }
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
    let depth = mix(a.distance.millimetres(camera: camera), b.distance.millimetres(camera: camera))
    let offsetX = mix(a.offsetX, b.offsetX)
    let offsetY = mix(a.offsetY, b.offsetY)
    // The offset is where the centre appears: back-project it to the depth.
    let translation = Vector3(
      offsetX * Double(camera.width) * depth / camera.focal, offsetY * Double(camera.height) * depth / camera.focal,
      depth)
    let pose = CardPose(
      tiltX: mix(a.tiltX, b.tiltX), tiltY: mix(a.tiltY, b.tiltY), roll: mix(a.roll, b.roll), translation: translation)
    return CardSceneState(
      pose: pose, offsetX: offsetX, offsetY: offsetY, glare: mix(a.glare, b.glare), glareX: mix(a.glareX, b.glareX),
      glareY: mix(a.glareY, b.glareY), glareRadius: mix(a.glareRadius, b.glareRadius), visible: a.visible,
      defocus: mix(a.defocus, b.defocus), brightness: mix(a.brightness, b.brightness))
  }
}

extension CardSchedule {
  static let topLevelKeys = ["keyframes", "interpolation", "duration", "noise", "shutter", "comment"]
  static let keyframeKeys = [
    "t", "tilt_x", "tilt_y", "roll", "distance_mm", "width_ratio", "offset_x", "offset_y", "glare", "glare_x",
    "glare_y", "glare_radius", "visible", "defocus", "brightness", "comment",
  ]

  /// Reads a schedule file (docs/synth.md). Errors name the file, the line
  /// and the key.
  public static func load(path: String) throws(WorkbenchError) -> CardSchedule {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(
        .input, "cannot read the schedule", at: SourceLocation(file: path), help: "check the path and permissions")
    }
    return try parse(String(decoding: data, as: UTF8.self), file: path)
  }

  /// Parses the text of a schedule; `file` names it in errors.
  public static func parse(_ text: String, file: String = "schedule") throws(WorkbenchError) -> CardSchedule {
    let root: JSONValue
    do { root = try JSONParser.parse(text) } catch {
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: file, line: error.line))
    }
    let lines = KeyLines(text: text)
    func problem(_ message: String, key: String, keyframe: Int? = nil, help: String? = nil) -> WorkbenchError {
      let line = lines.line(ofKey: key, inKeyframe: keyframe)
      let path = keyframe.map { "keyframes[\($0)]." + key } ?? key
      return WorkbenchError(.usage, message, at: SourceLocation(file: file, line: line, key: path), help: help)
    }
    func unknown(_ key: String, allowed: [String], keyframe: Int?) -> WorkbenchError {
      let closest = allowed.min { editDistance(key, $0) < editDistance(key, $1) }
      let help =
        closest.flatMap { editDistance(key, $0) <= 2 ? "did you mean '\($0)'?" : nil }
        ?? "known keys: " + allowed.joined(separator: ", ")
      return problem("unknown key '\(key)'", key: key, keyframe: keyframe, help: help)
    }
    guard let object = root.objectValue else {
      throw WorkbenchError(
        .usage, "a schedule is a JSON object, not \(root.kindName)", at: SourceLocation(file: file, line: 1),
        help: "see docs/synth.md")
    }
    for key in object.keys where !topLevelKeys.contains(key) {
      throw unknown(key, allowed: topLevelKeys, keyframe: nil)
    }
    func number(_ value: JSONValue?, _ key: String, keyframe: Int? = nil, range: ClosedRange<Double>? = nil)
      throws(WorkbenchError) -> Double?
    {
      guard let value else { return nil }
      guard let number = value.doubleValue, number.isFinite else {
        throw problem("'\(key)' must be a number, not \(value.kindName)", key: key, keyframe: keyframe)
      }
      if let range, !range.contains(number) {
        throw problem(
          "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), not \(number)", key: key,
          keyframe: keyframe)
      }
      return number
    }
    var schedule = CardSchedule(keyframes: [])
    if let value = object["interpolation"] {
      guard let name = value.stringValue, let interpolation = Interpolation(rawValue: name) else {
        throw problem("'interpolation' must be \"linear\" or \"smoothstep\"", key: "interpolation")
      }
      schedule.interpolation = interpolation
    }
    schedule.duration = try number(object["duration"], "duration", range: 0...3600)
    schedule.noise = try number(object["noise"], "noise", range: 0...128) ?? schedule.noise
    schedule.shutter = try number(object["shutter"], "shutter", range: 0...1) ?? schedule.shutter
    guard let list = object["keyframes"]?.arrayValue, !list.isEmpty else {
      throw problem(
        "the schedule needs a non-empty 'keyframes' array", key: "keyframes",
        help: "e.g. \"keyframes\": [{\"t\": 0}, {\"t\": 2, \"tilt_y\": 35}]")
    }
    var previous = CardKeyframe(t: 0)
    var keyframes: [CardKeyframe] = []
    for (index, item) in list.enumerated() {
      guard let entry = item.objectValue else {
        throw problem("each keyframe is an object, not \(item.kindName)", key: "keyframes")
      }
      for key in entry.keys where !keyframeKeys.contains(key) {
        throw unknown(key, allowed: keyframeKeys, keyframe: index)
      }
      guard let t = try number(entry["t"], "t", keyframe: index, range: 0...3600) else {
        throw problem("the keyframe has no time 't'", key: "t", keyframe: index, help: "add \"t\": seconds")
      }
      if let last = keyframes.last, t <= last.t {
        throw problem("times must increase: \(t) after \(last.t)", key: "t", keyframe: index)
      }
      var frame = previous
      frame.t = t
      frame.tiltX = try number(entry["tilt_x"], "tilt_x", keyframe: index, range: -89...89) ?? frame.tiltX
      frame.tiltY = try number(entry["tilt_y"], "tilt_y", keyframe: index, range: -89...89) ?? frame.tiltY
      frame.roll = try number(entry["roll"], "roll", keyframe: index, range: -180...180) ?? frame.roll
      let millimetres = try number(entry["distance_mm"], "distance_mm", keyframe: index, range: 20...10_000)
      let ratio = try number(entry["width_ratio"], "width_ratio", keyframe: index, range: 0.01...5)
      if millimetres != nil && ratio != nil {
        throw problem(
          "give 'distance_mm' or 'width_ratio', not both", key: "width_ratio", keyframe: index)
      }
      if let millimetres { frame.distance = .millimetres(millimetres) }
      if let ratio { frame.distance = .widthRatio(ratio) }
      frame.offsetX = try number(entry["offset_x"], "offset_x", keyframe: index, range: -5...5) ?? frame.offsetX
      frame.offsetY = try number(entry["offset_y"], "offset_y", keyframe: index, range: -5...5) ?? frame.offsetY
      frame.glare = try number(entry["glare"], "glare", keyframe: index, range: 0...4) ?? frame.glare
      frame.glareX = try number(entry["glare_x"], "glare_x", keyframe: index, range: -1...2) ?? frame.glareX
      frame.glareY = try number(entry["glare_y"], "glare_y", keyframe: index, range: -1...2) ?? frame.glareY
      frame.glareRadius =
        try number(entry["glare_radius"], "glare_radius", keyframe: index, range: 0.005...2) ?? frame.glareRadius
      frame.defocus = try number(entry["defocus"], "defocus", keyframe: index, range: 0...20) ?? frame.defocus
      frame.brightness =
        try number(entry["brightness"], "brightness", keyframe: index, range: 0...4) ?? frame.brightness
      if let value = entry["visible"] {
        guard let visible = value.boolValue else {
          throw problem("'visible' must be true or false, not \(value.kindName)", key: "visible", keyframe: index)
        }
        frame.visible = visible
      }
      keyframes.append(frame)
      previous = frame
    }
    schedule.keyframes = keyframes
    return schedule
  }
}

/// Finds the line of a key in the text of a schedule: a small scan that
/// follows strings and nesting, so that an error about the third keyframe's
/// `tilt_y` points at that keyframe's line and not the first one's.
struct KeyLines {
  /// (line, depth, key) of every object key, in order; keyframe starts as key "{".
  private var keys: [(line: Int, depth: Int, key: String)] = []

  init(text: String) {
    var line = 1
    var depth = 0
    var inString = false
    var escaped = false
    var current: [UInt8] = []
    var pendingString: String?
    for byte in text.utf8 {
      if inString {
        if escaped {
          escaped = false
          current.append(byte)
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
          pendingString = String(decoding: current, as: UTF8.self)
        } else {
          current.append(byte)
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\n"): line += 1
      case UInt8(ascii: "\""):
        inString = true
        current.removeAll(keepingCapacity: true)
      case UInt8(ascii: ":"):
        if let key = pendingString { keys.append((line, depth, key)) }
        pendingString = nil
      case UInt8(ascii: "{"):
        depth += 1
        if depth == 2 { keys.append((line, depth, "{")) }
        pendingString = nil
      case UInt8(ascii: "}"):
        depth -= 1
        pendingString = nil
      case UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","): pendingString = nil
      default: break
      }
    }
  }

  /// The line of `key` at the top level, or in keyframe `index`.
  func line(ofKey key: String, inKeyframe index: Int?) -> Int? {
    guard let index else { return keys.first { $0.depth == 1 && $0.key == key }?.line }
    var seen = -1
    var startLine: Int?
    for entry in keys {
      if entry.depth == 2 && entry.key == "{" {
        seen += 1
        if seen > index { break }
        if seen == index { startLine = entry.line }
        continue
      }
      if seen == index && entry.depth == 2 && entry.key == key { return entry.line }
    }
    return startLine
  }
}
