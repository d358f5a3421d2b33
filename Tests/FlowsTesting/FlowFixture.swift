import Flows
import Foundation
import JSONCore
import Session
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

  /// The options a run loads the flow with (``RunSettings/flowOptions(_:)``), and these.
  public func options(set assignments: [String] = [], language: String? = nil, seed: Int64? = nil) -> FlowOptions {
    var options = RunSettings.flowOptions(path)
    options.assignments = assignments
    options.language = language
    options.seed = seed
    return options
  }
}
