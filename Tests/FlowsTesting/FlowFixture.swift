import Flows
import Foundation
import JSONCore
import Settings
import TestSupport

/// A flow written to a folder of its own in a temporary folder, with
/// message catalogs of its own when given (`messages/LANGUAGE.json`).
public struct FlowFixture {
  public let folder: String
  public let path: String

  public init(_ source: String, messages: [String: [String: String]] = [:]) throws {
    folder = try TemporaryFolder(prefix: "flow-fixture").subfolder("flow")
    try FileManager.default.createDirectory(atPath: folder + "/messages", withIntermediateDirectories: true)
    path = folder + "/flow.lua"
    try source.write(toFile: path, atomically: true, encoding: .utf8)
    for (language, texts) in messages {
      let object = JSONValue.object(JSONObject(texts.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
      try object.jsonText.write(toFile: folder + "/messages/\(language).json", atomically: true, encoding: .utf8)
    }
  }

  /// Options that load the flow with `declarations` (the engine's settings and a double of the
  /// estimators' unless a test gives a run's own), and these.
  public func options(
    set assignments: [String] = [], language: String? = nil, seed: Int64? = nil,
    declarations: [SettingDeclaration] = EstimatorSettingsDouble.declarations
  ) -> FlowOptions {
    var options = FlowOptions(flowPath: path, settingDeclarations: declarations)
    options.assignments = assignments
    options.language = language
    options.seed = seed
    return options
  }
}

/// The settings a run declares besides the flow engine's, as a double: the
/// estimators' keys of the bundled configs/settings.json, typed by their
/// values. The flows under test read none of them, but the bundled file sets
/// them, and these tests link no estimator to declare them for real.
public enum EstimatorSettingsDouble {
  public static let declarations: [SettingDeclaration] = {
    let engine = FlowSettings.engine
    let known = Set(engine.map(\.key))
    guard let text = try? String(contentsOfFile: packageRootPath + "/configs/settings.json", encoding: .utf8),
      let bundled = try? JSONParser.parse(text)
    else { return engine }
    var declarations = engine
    func declare(_ value: JSONValue, at key: String) {
      switch value {
      case .object(let object):
        for (name, inner) in object.entries { declare(inner, at: key.isEmpty ? name : key + "." + name) }
      case _ where known.contains(key):
        return
      case .bool(let flag): declarations.append(.boolean(key, default: flag, doc: "test double"))
      case .integer(let integer): declarations.append(.number(key, default: Double(integer), doc: "test double"))
      case .number(let number): declarations.append(.number(key, default: number, doc: "test double"))
      case .string(let text): declarations.append(.string(key, default: text, doc: "test double"))
      case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.doubleValue != nil }):
        declarations.append(
          .numbers(key, default: items.compactMap(\.doubleValue), lengths: 1...64, doc: "test double"))
      case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
        declarations.append(.strings(key, default: items.compactMap(\.stringValue), doc: "test double"))
      default: return
      }
    }
    declare(bundled, at: "")
    return declarations
  }()
}
