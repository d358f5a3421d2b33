import Foundation
import JSONCore

/// A rule that turns a numeric setting into threshold lines on plots.
///
/// `name` is matched against the setting's name after its last dot, so
/// `hkid.flip_angle` and `my_card.flip_angle` both match `flip_angle`. It may
/// hold one `*`, which stands for any text; a `*` in `series` is replaced by
/// that text (`min_*` with `quality.*` turns `min_blur` into `quality.blur`).
/// The first rule whose name matches is the setting's rule; its lines are
/// drawn on those of its series that are plotted. A `mirrored` rule draws
/// the value and its negative (an angle either way).
public struct ThresholdRule: Sendable, Equatable {
  public var name: String
  public var series: [String]
  public var mirrored: Bool

  public init(_ name: String, _ series: [String], mirrored: Bool = false) {
    self.name = name
    self.series = series
    self.mirrored = mirrored
  }

  /// The rules the report uses unless told otherwise; docs/report.md lists them.
  public static let defaults: [ThresholdRule] = [
    // ID cards (examples/hkid.lua).
    ThresholdRule("flip_angle", ["card.tilt_x", "card.tilt_y"], mirrored: true),
    ThresholdRule("front_angle", ["card.tilt_x", "card.tilt_y"], mirrored: true),
    ThresholdRule("far_ratio", ["card.size_ratio"]),
    ThresholdRule("near_ratio", ["card.size_ratio"]),
    ThresholdRule("glare_max", ["card.glare"]),
    ThresholdRule("max_speed", ["card.speed"]),
    // Faces (examples/liveness-random.lua, examples/best-shot.lua).
    ThresholdRule("yaw_*", ["face.yaw"], mirrored: true),
    ThresholdRule("pitch_*", ["face.pitch"], mirrored: true),
    ThresholdRule("roll_*", ["face.roll"], mirrored: true),
    ThresholdRule("max_angle", ["face.yaw", "face.pitch", "face.roll"], mirrored: true),
    ThresholdRule("max_yaw", ["face.yaw"], mirrored: true),
    ThresholdRule("max_pitch", ["face.pitch"], mirrored: true),
    ThresholdRule("max_roll", ["face.roll"], mirrored: true),
    // examples/best-shot.lua's quality floors, named as LUNA ID names them.
    ThresholdRule("blur", ["face.quality.blur"]),
    ThresholdRule("light", ["face.quality.lightness"]),
    ThresholdRule("dark", ["face.quality.darkness"]),
    ThresholdRule("illumination", ["face.quality.illumination"]),
    ThresholdRule("specularity", ["face.quality.specularity"]),
    ThresholdRule("closed_below", ["face.ear_left", "face.ear_right"]),
    ThresholdRule("open_above", ["face.ear_left", "face.ear_right"]),
    ThresholdRule("ear_*", ["face.ear_left", "face.ear_right"]),
    // Image quality (examples/image-quality.lua): the settings name what a person fixes.
    ThresholdRule("min_sharpness", ["quality.blur", "face.quality.blur"]),
    ThresholdRule("min_light", ["quality.darkness", "face.quality.darkness"]),
    ThresholdRule("min_exposure", ["quality.lightness", "face.quality.lightness"]),
    ThresholdRule("min_evenness", ["quality.illumination", "face.quality.illumination"]),
    ThresholdRule("min_no_glare", ["quality.specularity", "face.quality.specularity"]),
    // Any other limit named after its measurement.
    ThresholdRule("min_*", ["quality.*", "face.quality.*", "card.*", "face.*"]),
    ThresholdRule("*_min", ["quality.*", "face.quality.*", "card.*", "face.*"]),
    ThresholdRule("max_*", ["card.*", "face.*", "quality.*", "face.quality.*"]),
    ThresholdRule("*_max", ["card.*", "face.*", "quality.*", "face.quality.*"]),
  ]

  /// The text `*` stands for when `name` matches, or nil.
  func match(_ name: String) -> String? {
    guard let star = self.name.firstIndex(of: "*") else { return self.name == name ? "" : nil }
    let prefix = self.name[..<star]
    let suffix = self.name[self.name.index(after: star)...]
    guard name.count >= prefix.count + suffix.count + 1, name.hasPrefix(prefix), name.hasSuffix(suffix) else {
      return nil
    }
    return String(name.dropFirst(prefix.count).dropLast(suffix.count))
  }

  /// The threshold lines that `settings` give on the plotted `series`, in
  /// the order of the settings.
  public static func thresholds(
    for settings: [SessionReport.Setting], rules: [ThresholdRule], series: Set<String>
  ) -> [SessionReport.Threshold] {
    var lines: [SessionReport.Threshold] = []
    for setting in settings {
      guard let value = setting.value.doubleValue, value.isFinite else { continue }
      let name = setting.key.split(separator: ".").last.map(String.init) ?? setting.key
      guard let (rule, star) = rules.lazy.compactMap({ rule in rule.match(name).map { (rule, $0) } }).first else {
        continue
      }
      for template in rule.series {
        let path = template.replacingOccurrences(of: "*", with: star)
        guard series.contains(path) else { continue }
        lines.append(SessionReport.Threshold(path: path, value: value, label: setting.key))
        if rule.mirrored && value != 0 {
          lines.append(SessionReport.Threshold(path: path, value: -value, label: setting.key))
        }
      }
    }
    return lines
  }
}
