import ArgumentParser
import Capture
import Diagnostics
import Flows
import Foundation
import Logging

struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run a flow over an input and report what happened.",
    discussion: """
      The frames come from a measurement trace (JSON Lines, docs/traces.md), a recording \
      (a folder of JPEGs, MJPEG, AVI, Y4M) or a V4L2 camera (docs/inputs.md). Time comes \
      from the input, so the same trace or recording always gives the same events.

      Examples:
        workbench run examples/liveness.lua \\
          --input examples/traces/liveness-pass.jsonl
        workbench run examples/liveness.lua --events - --quiet \\
          --input examples/traces/liveness-slow-blink.jsonl
        workbench run examples/liveness.lua --lang zh-HK \\
          --set flow.time_limit=20 --input session.jsonl \\
          --events events.jsonl --trace-out seen.jsonl
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua).", valueName: "flow"))
  var flow: String

  @Option(
    name: .long,
    help: ArgumentHelp(
      "A measurement trace (.jsonl) or a recording: a folder of JPEG frames, .mjpeg, .avi (MJPEG) or .y4m.",
      valueName: "path"))
  var input: String?

  @Option(
    name: .long,
    help: ArgumentHelp("A V4L2 camera, e.g. /dev/video0 ('workbench devices' lists them).", valueName: "device"))
  var camera: String?

  @Option(name: .long, help: ArgumentHelp("Camera frame size, e.g. 1280x720.", valueName: "WxH"))
  var size: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Camera frame rate, or the rate of a recording that does not say (default 30).", valueName: "fps"))
  var fps: Double?

  @Option(
    name: .long, help: ArgumentHelp("Write events as JSON Lines to this file, or - for stdout.", valueName: "file"))
  var events: String?

  @Option(
    name: .customLong("trace-out"),
    help: ArgumentHelp("Write the measurements the flow saw, as a replayable trace.", valueName: "file"))
  var traceOut: String?

  @Option(name: .long, help: ArgumentHelp("Seed of the random step order (the setting flow.seed).", valueName: "n"))
  var seed: Int64?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Keep the frames the flow saw in an MJPEG AVI, with a timestamps sidecar.", valueName: "file.avi"))
  var record: String?

  @Option(
    name: .customLong("record-policy"),
    help: ArgumentHelp(
      "Which frames to keep: always, failed (only if the flow fails), passed, detections (frames with a face or card).",
      valueName: "policy"))
  var recordPolicy: String = "always"

  @Flag(name: .long, help: "Replay at the speed of the input's clock instead of as fast as possible.")
  var realtime = false

  @Flag(name: .shortAndLong, help: "No live status line and no summary.")
  var quiet = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (input == nil) != (camera == nil) else {
      throw ValidationError("give the frames with exactly one of --input PATH or --camera DEVICE")
    }
    if size != nil && camera == nil { throw ValidationError("--size goes with --camera") }
    if let size, SizeText.parse(size) == nil { throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 1280x720") }
    if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps takes a rate above 0, e.g. 30") }
    guard RecordPolicy(rawValue: recordPolicy) != nil else {
      throw ValidationError(
        "--record-policy takes one of: " + RecordPolicy.allCases.map(\.rawValue).joined(separator: ", "))
    }
  }

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    var flowOptions = settings.flowOptions(path: flow)
    flowOptions.seed = seed
    let spec: InputSpec
    if let camera {
      let dimensions = size.flatMap(SizeText.parse)
      spec = .camera(device: camera, width: dimensions?.width, height: dimensions?.height, fps: fps)
    } else {
      spec = .file(input ?? "")
    }
    var options = RunOptions(flow: flowOptions, input: spec)
    options.recordingFPS = camera == nil ? fps : nil
    options.recordPath = record
    options.recordPolicy = RecordPolicy(rawValue: recordPolicy) ?? .always
    options.eventsPath = events
    options.traceOutPath = traceOut
    options.showStatusLine = !quiet
    options.realtime = realtime

    let outcome = FlowSession.run(options, logger: logger)
    if !outcome.problems.isEmpty {
      DiagnosticPrinter.print(WorkbenchError(outcome.status, outcome.problems, detail: outcome.detail))
    }
    if !quiet, let result = outcome.result {
      let line = RunSummary.line(result, flowName: outcome.flowName ?? flow)
      if outcome.eventsToStandardOutput { standardError(line) } else { standardOutput(line) }
    }
    if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
  }
}

enum RunSummary {
  static func line(_ result: FlowResult, flowName: String) -> String {
    if result.success { return "PASSED  \(flowName): \(result.message)" }
    return "FAILED  \(flowName): \(result.message) (reason \(result.reason), code \(result.code))"
  }
}
