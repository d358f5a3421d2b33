import ArgumentParser
import Capture
import Diagnostics
import Foundation
import Logging
import RunComposition
import Session
import Settings

struct ProbeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "probe",
    abstract: "Say what workbench sees in a recording, and whether it can read it.",
    discussion: """
      For a video file read through FFmpeg (MP4, MOV, MKV, WebM, AVI...): the container, the \
      codec, the size as stored and as read (turned upright when the file carries a rotation), \
      the frames, the duration, whether the frame rate is constant or variable with the rate \
      measured from every frame's timestamp, and the streams that are ignored (audio). For the \
      built-in formats (JPEG folders, MJPEG, AVI with Motion JPEG, Y4M): the same, from reading \
      every frame. For a measurement trace (.jsonl): its header, frames, duration and rate, the \
      measurements it carries and the estimators that make them. Exits 0 when `run --input` can \
      read the file, 4 when it cannot (the reason and what to do follow).

      Examples:
        workbench probe clip.mp4
        workbench probe clip.mov --json
        workbench probe damaged.mkv --decode
      """)

  @Argument(
    help: "The recording: a video file, an .mjpeg, .y4m or .avi file, a folder of JPEG frames, or a trace (.jsonl).")
  var file: String

  @Flag(name: .long, help: "Print JSON instead of text.")
  var json = false

  @Flag(
    name: .long,
    help:
      "Decode every frame of a video file, to count the damaged ones (slower; by default frames are counted from the file's packets)."
  )
  var decode = false

  func run() throws {
    if isTraceFile {
      try probeTrace()
      return
    }
    let probe = RecordingProbe.probe(path: file, decodeEveryFrame: decode)
    standardOutput(json ? probe.jsonText : TerminalText.escaped(probe.text))
    if !probe.readable {
      let problem =
        probe.problem ?? CaptureError(.invalidRecording, source: file, "it cannot be read as a recording")
      throw fail(FrameSources.workbenchError(problem))
    }
  }

  /// A regular file that holds a trace (a pipe is said to be one by the recording probe).
  private var isTraceFile: Bool {
    var information = stat()
    return stat(file, &information) == 0 && information.st_mode & S_IFMT == S_IFREG && InputSpec.isTrace(file)
  }

  private func probeTrace() throws {
    var probe = TraceProbe.probe(path: file)
    if let home = try? WorkbenchHome.locate() {
      var logger = Logger(label: "workbench")
      logger.logLevel = .critical
      probe.attribute(
        StandardEstimators.availableEstimators(home, logger: logger).map {
          ($0.descriptor.name, $0.descriptor.fields)
        })
    }
    standardOutput(json ? probe.jsonText : TerminalText.escaped(probe.text))
    if let problem = probe.problem { throw fail(problem) }
  }
}
