import Capture
import Diagnostics
import Foundation
import Interrupts
import Settings

/// `workbench record`: frames from a camera (or a recording) into an MJPEG
/// AVI with its timestamps sidecar, finished on Ctrl-C and on camera loss.
public enum RecordSession {
  public struct Options: Sendable {
    public var input: InputSpec
    public var outputPath: String
    public var recordingFPS: Double?
    public var maximumFrames: Int?
    public var maximumSeconds: Double?

    public init(input: InputSpec, outputPath: String) {
      self.input = input
      self.outputPath = outputPath
    }
  }

  public struct Outcome: Sendable {
    public var status: ExitStatus
    public var frames: Int
    /// Frames a video recording dropped because its encoder was behind.
    public var dropped = 0
    public var ending: String
    public var problems: [Diagnostic]
  }

  public static func run(_ options: Options) -> Outcome {
    Interrupts.install()
    if case .file(let input) = options.input, FileIdentity.same(input, options.outputPath) {
      return Outcome(
        status: .usage, frames: 0, ending: "not started",
        problems: [
          Diagnostic(
            "--out would overwrite --input", at: SourceLocation(file: options.outputPath),
            help: "write the recording to a file of its own")
        ])
    }
    do {
      try FrameRecorder.checkWritable(options.outputPath)
    } catch {
      return Outcome(
        status: .usage, frames: 0, ending: "not started",
        problems: [Diagnostic(error.message, at: SourceLocation(file: options.outputPath), help: error.help)])
    }
    let source: any FrameSource
    let live: Bool
    do {
      (source, live) = try FrameSources.open(options.input, recordingFPS: options.recordingFPS)
    } catch {
      return Outcome(status: error.status, frames: 0, ending: "not started", problems: error.diagnostics)
    }
    defer { source.close() }
    let recorder = FrameRecorder(
      path: options.outputPath, fps: source.info.fps ?? options.recordingFPS ?? 30,
      deviceInfo: source.info.details.merging(["device": source.info.name]) { a, _ in a }, live: live)
    let summary = RecordingLoop.run(
      from: source, into: recorder, maximumFrames: options.maximumFrames, maximumSeconds: options.maximumSeconds,
      shouldStop: { Interrupts.pending })
    var outcome = Outcome(status: .passed, frames: summary.frames, ending: summary.ending, problems: [])
    outcome.dropped = recorder.framesDropped
    if let error = summary.error {
      outcome.problems.append(Diagnostic(error.message, at: SourceLocation(file: error.source), help: error.help))
      // An output that could not be written is exit 2, an input that failed 4 (docs/exit-codes.md).
      outcome.status = summary.failedWriting ? .usage : .input
    }
    if summary.ending == "interrupted" { outcome.status = .interrupted }
    return outcome
  }
}
