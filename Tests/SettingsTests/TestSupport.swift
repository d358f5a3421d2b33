import Diagnostics
import Foundation
import JSONCore
import Settings
import TestSupport

let sampleDeclarations: [SettingDeclaration] = [
  .number(
    "flow.time_limit", default: 30, minimum: 0, maximum: 300, unit: "s", doc: "Seconds the user has to finish the flow."
  ),
  .integer("flow.retries", default: 2, minimum: 0, maximum: 5, doc: "How often a failed step is retried."),
  .integer(
    "capture.buffer_size", default: 64, minimum: 1, maximum: 1024, unit: "MiB", doc: "Memory for buffered frames."),
  .number("detector.threshold", default: 0.25, minimum: 0, maximum: 1, doc: "Lowest face score that counts."),
  .boolean("report.include_frames", default: false, doc: "Attach the captured frames to the report."),
  .string("report.title", default: "Liveness check", doc: "Title at the top of the report."),
  .choice("camera.facing", ["front", "back", "external"], default: "front", doc: "Which camera to open."),
]

func makeBuilder() throws -> SettingsBuilder {
  try SettingsBuilder(declarations: sampleDeclarations)
}

/// Resolves one `--set key=text` on top of the sample declarations.
func resolveSet(_ key: String, _ text: String) throws -> (settings: ResolvedSettings, problems: [Diagnostic]) {
  var builder = try makeBuilder()
  builder.assign(key, text: text, source: .commandLine)
  return builder.resolve()
}

/// Settings tests call their folder a directory.
typealias TemporaryDirectory = TemporaryFolder
