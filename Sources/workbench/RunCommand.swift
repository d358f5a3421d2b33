import Analytics
import ArgumentParser
import Capture
import Diagnostics
import Flows
import Foundation
import Licensing
import Logging
import Preview
import RunComposition
import Scenarios
import Session

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
        workbench run examples/liveness-blink.lua --camera /dev/video0 \\
          --record out/session.avi --record-policy with-face

      The result event's "outputs" names what the run wrote: the recording (or why the \
      policy did not keep it), its timestamps, the artifacts and the signature (docs/events.md).
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua).", valueName: "flow"))
  var flow: String

  @Option(
    name: .long,
    help: ArgumentHelp(
      "A measurement trace (.jsonl; - reads one from standard input) or a recording: a folder of JPEG frames, .mjpeg, .avi, .y4m, or a video file (MP4, MOV, MKV, WebM; workbench probe FILE says what is in it).",
      valueName: "path"))
  var input: String?

  @OptionGroup var frames: CameraOptions

  @Option(
    name: .long, help: ArgumentHelp("Write events as JSON Lines to this file, or - for stdout.", valueName: "file"))
  var events: String?

  @Option(
    name: .customLong("trace-out"),
    help: ArgumentHelp("Write the measurements the flow saw, as a replayable trace.", valueName: "file"))
  var traceOut: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Keep the frames the flow saw in an MJPEG AVI, with a timestamps sidecar.", valueName: "file.avi"))
  var record: String?

  @Option(
    name: .customLong("record-policy"),
    help: ArgumentHelp(
      "Which frames to keep: always, failed (only if the flow fails), passed, detections (frames with a face or card), with-face or ignore-without-face (every frame, only if a face was seen in one: LUNA ID's option).",
      valueName: "policy"))
  var recordPolicy: String = "always"

  @Option(
    name: .long,
    help: ArgumentHelp(
      "A folder for the images the flow captures (ctx.capture) and, with the setting integrity.signing_key, their signature.",
      valueName: "folder"))
  var artifacts: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The face gallery the flow enrolls into and searches: a SQLite file or a postgres:// URL (the setting gallery.location).",
      valueName: "file|url"))
  var gallery: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Write a session report (report.html: timelines, hints, key frames, settings, result) into this folder.",
      valueName: "folder"))
  var report: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Also write the analytics trace (docs/analytics.md) to a JSON Lines file, or post it to an http(s):// endpoint (repeatable).",
      valueName: "file|url"))
  var analytics: [String] = []

  @Option(
    name: .customLong("analytics-session-id"),
    help: ArgumentHelp(
      "The host application's sessionId for the analytics trace (a UUID; with --analytics). Without it, each run gets a new UUID (version 4).",
      valueName: "uuid"))
  var analyticsSessionId: String?

  @Flag(name: .long, help: "Replay at the speed of the input's clock instead of as fast as possible.")
  var realtime = false

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Serve a live preview page: the frames with the estimators' overlays, the hint, the steps, plots of what the current step measures, and controls (docs/preview.md). Alone, it listens on 127.0.0.1 and a free port, printed on start.",
      valueName: "addr:port"))
  var preview: String?

  @Option(
    name: .customLong("preview-fps"),
    help: ArgumentHelp(
      "The most frames a second the preview page gets (1 to 60; default 15): a bound on what the page costs the run.",
      valueName: "n"))
  var previewFPS: Double = PreviewPublisher.defaultFramesPerSecond

  @Flag(
    name: .customLong("preview-public"),
    help: "Let --preview listen on an address other machines can reach (anyone who reaches it sees the frames).")
  var previewPublic = false

  @Flag(
    name: .long,
    help:
      "Reload the flow when it, a Lua module it requires, a message catalog or a settings file changes; a change that does not load keeps the running flow."
  )
  var watch = false

  @Flag(name: .shortAndLong, help: "No live status line and no summary.")
  var quiet = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var license: LicenseOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    try frames.validate(input: input)
    guard RecordPolicy(rawValue: recordPolicy) != nil else {
      throw ValidationError(
        "--record-policy takes one of: " + RecordPolicy.allCases.map(\.rawValue).joined(separator: ", "))
    }
    if let analyticsSessionId {
      guard AnalyticsEventSink.isSessionId(analyticsSessionId) else {
        throw ValidationError(
          "--analytics-session-id takes a UUID, such as 3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b, not '\(analyticsSessionId)'"
        )
      }
      guard !analytics.isEmpty else { throw ValidationError("--analytics-session-id goes with --analytics") }
    }
    if previewPublic && preview == nil { throw ValidationError("--preview-public goes with --preview ADDR:PORT") }
    guard (1...60).contains(previewFPS) else { throw ValidationError("--preview-fps takes a number from 1 to 60") }
  }

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    var flowOptions = settings.flowOptions(path: flow)
    // Before the --set values, so that an explicit --set gallery.location still wins.
    if let gallery { flowOptions.assignments.insert("gallery.location=\(gallery)", at: 0) }
    var options = RunOptions(flow: flowOptions, input: frames.spec(input: input))
    options.recordingFPS = frames.recordingFPS
    options.recordPath = record
    options.recordPolicy = RecordPolicy(rawValue: recordPolicy) ?? .always
    options.eventsPath = events
    options.traceOutPath = traceOut
    options.showStatusLine = !quiet
    options.realtime = realtime
    options.artifactsPath = artifacts
    let gate = license.gate(settingsDirectory: settings.settingsDirectory)
    options.licenseCheck = { features throws(WorkbenchError) in
      let granted = try gate.check(features: features)
      logger.debug(
        "license \(granted.id) for \(granted.eid) holds; the run needs [\(features.joined(separator: ", "))]")
    }

    let extras: RunExtras
    do {
      extras = try RunExtras(
        report: report, analytics: analytics, sessionId: analyticsSessionId, options: &options,
        settingsDirectory: settings.settingsDirectory)
    } catch {
      throw fail(error)
    }
    let session = RunSession(options, logger: logger)
    extras.install(into: session)
    var live = LiveOptions()
    do { live.preview = try preview.map(PreviewAddress.parse) } catch { throw fail(error) }
    live.previewPublic = previewPublic
    live.previewFramesPerSecond = previewFPS
    live.watch = watch
    let outcome: RunOutcome
    if live.isLive {
      do {
        outcome = try LiveRun(session: session, options: live, say: { standardError($0) }).run()
      } catch {
        throw fail(error)
      }
    } else {
      outcome = session.run()
    }
    for line in extras.finish(outcome: outcome, logger: logger) {
      if !quiet { standardError(line) }
    }
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
