import Diagnostics

/// Where values come from, lowest precedence first: a higher layer overrides
/// every lower one.
public enum SettingLayer: Int, Sendable, Comparable, CaseIterable {
  /// The defaults in the declarations.
  case builtin
  /// The bundled `configs/settings.json`.
  case configs
  /// Values the Lua flow sets.
  case flow
  /// `--config FILE`; a later file wins.
  case configFile
  /// `--set key=value`; a later one wins.
  case commandLine

  public static func < (lhs: SettingLayer, rhs: SettingLayer) -> Bool { lhs.rawValue < rhs.rawValue }

  public var name: String {
    switch self {
    case .builtin: return "built-in"
    case .configs: return "configs"
    case .flow: return "flow"
    case .configFile: return "config file"
    case .commandLine: return "command line"
    }
  }
}

/// The layer and place a value came from.
public struct SettingSource: Sendable, Equatable, CustomStringConvertible {
  public var layer: SettingLayer
  /// A file path for the configs, flow and config-file layers, "--set" for the
  /// command line, nil for built-in defaults.
  public var origin: String?
  public var line: Int?

  public init(layer: SettingLayer, origin: String? = nil, line: Int? = nil) {
    self.layer = layer
    self.origin = origin
    self.line = line
  }

  public static let builtin = SettingSource(layer: .builtin)
  public static let commandLine = SettingSource(layer: .commandLine, origin: "--set")

  public static func configs(_ path: String, line: Int? = nil) -> SettingSource {
    SettingSource(layer: .configs, origin: path, line: line)
  }

  public static func flow(_ path: String, line: Int? = nil) -> SettingSource {
    SettingSource(layer: .flow, origin: path, line: line)
  }

  public static func configFile(_ path: String, line: Int? = nil) -> SettingSource {
    SettingSource(layer: .configFile, origin: path, line: line)
  }

  /// "built-in default", "configs/settings.json", "flow examples/blink.lua",
  /// "--config my.json", "--set". A built-in source with an origin is the
  /// default of a setting that a flow declared: "default from examples/blink.lua".
  public var description: String {
    switch layer {
    case .builtin: return origin.map { "default from \($0)" } ?? "built-in default"
    case .configs: return origin ?? "configs"
    case .flow: return origin.map { "flow \($0)" } ?? "flow"
    case .configFile: return origin.map { "--config \($0)" } ?? "--config"
    case .commandLine: return origin ?? "--set"
    }
  }

  /// Where a problem with a value from this source points.
  func location(key: String) -> SourceLocation {
    SourceLocation(file: origin ?? description, line: line, key: key)
  }
}
