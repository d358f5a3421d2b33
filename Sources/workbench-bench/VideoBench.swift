// Video files through FFmpeg: decoding, the built-in MJPEG reader against
// FFmpeg's on the same AVI, a face flow on an MP4 against the same clip as
// MJPEG AVI, H.264 encoding for --record, and the memory of a run over a
// long trace read as a stream. Clips are made by the ffmpeg command from the
// bundled real recording (scripts/install-test-deps installs it).
import BenchSupport
import Capture
import Diagnostics
import Flows
import Foundation
import Imaging
import Logging
import RunComposition
import Session

#if canImport(Glibc)
  import Glibc
#endif

func runVideoBenchmarks() throws {
  guard let ffmpeg = executableOnPath("ffmpeg") else {
    print("video: the ffmpeg command is needed to make the clips (scripts/install-test-deps installs it)")
    return
  }
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let folder = NSTemporaryDirectory() + "workbench-video-bench-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let recording = benchPackageRoot() + "/examples/recordings/face-blink.avi"
  // The real recording, four times over (288 frames), scaled to 1280×720.
  let scaled = ["-stream_loop", "3", "-i", recording, "-vf", "scale=1280:720", "-pix_fmt", "yuv420p"]
  let h264 = folder + "/720p-h264.mp4"
  let hevc = folder + "/720p-hevc.mov"
  let mjpeg720 = folder + "/720p-mjpeg.avi"
  try makeClip(ffmpeg, scaled + ["-c:v", "libx264", "-preset", "medium", "-crf", "20"], h264)
  try makeClip(
    ffmpeg,
    scaled + [
      "-c:v", "libx265", "-preset", "medium", "-crf", "22", "-tag:v", "hvc1",
      "-x265-params", "log-level=error",
    ], hevc)
  try makeClip(ffmpeg, scaled + ["-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p"], mjpeg720)

  print("video files through FFmpeg (one core, median of \(runs) runs; clips made from the bundled recording)")
  print("decoding 1280×720, every frame to full-range 4:2:0")
  for (name, path) in [("H.264 (MP4)", h264), ("HEVC (MOV)", hevc)] {
    let (frames, rate) = try medianRate(runs) { try decodeAll(path, reader: .automatic) }
    print(
      String(format: "  %-12@ %4d frames  %7.0f frames/s  %6.2f ms/frame", name as NSString, frames, rate, 1000 / rate))
  }

  print("the same MJPEG AVI (1280×720, 288 frames) through each reader, to the luma plane the estimators read")
  let (builtinFrames, builtin) = try medianRate(runs) { try decodeAll(mjpeg720, reader: .automatic) }
  let (_, viaFFmpeg) = try medianRate(runs) { try decodeAll(mjpeg720, reader: .ffmpeg) }
  print(String(format: "  built-in reader + libjpeg-turbo (gray)  %7.0f frames/s  (%d frames)", builtin, builtinFrames))
  print(
    String(
      format: "  FFmpeg reader (mjpeg decoder, 4:2:0)    %7.0f frames/s  (%.2f× the built-in)", viaFFmpeg,
      viaFFmpeg / builtin))

  // The face flow over a whole clip: the recording five times over (360 frames, 640×360).
  let faceAVI = folder + "/faces.avi"
  let faceMP4 = folder + "/faces.mp4"
  try makeClip(ffmpeg, ["-stream_loop", "4", "-i", recording, "-c", "copy"], faceAVI)
  try makeClip(
    ffmpeg, ["-i", faceAVI, "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-pix_fmt", "yuv420p"],
    faceMP4)
  let flow = folder + "/faces.lua"
  try """
  local wb = require "wb"
  -- A face step that never passes: the run measures every frame of the clip.
  return wb.flow { name = "faces", steps = {
    wb.threshold { field = "face.yaw", above = 90, needs = { "face.yaw", "face.pitch", "face.ear_left" } } } }
  """.write(toFile: flow, atomically: true, encoding: .utf8)
  print("the face estimator and a face step over a whole clip (640×360, 360 frames), the whole run")
  let (_, aviRate) = try medianRate(max(3, runs / 2)) { try runFlow(flow, input: faceAVI, frames: 360) }
  let (_, mp4Rate) = try medianRate(max(3, runs / 2)) { try runFlow(flow, input: faceMP4, frames: 360) }
  print(String(format: "  MJPEG AVI (built-in reader)   %5.1f frames/s", aviRate))
  print(String(format: "  H.264 MP4 (FFmpeg)            %5.1f frames/s  (%.2f× the AVI)", mp4Rate, mp4Rate / aviRate))

  print("encoding H.264 for --record (libx264 ultrafast, CRF 23), 1280×720, 288 frames")
  let frames = try decodedFrames(h264)
  var encodeTimes: [Double] = []
  for run in 0..<runs {
    let out = folder + "/encoded-\(run).mp4"
    let start = benchNanoseconds()
    let writer = try VideoFileWriter(path: out, width: 1280, height: 720, fps: 30, dropsWhenBehind: false)
    for (index, frame) in frames.enumerated() { try writer.append(image: frame, t: Double(index) / 30) }
    try writer.finish()
    encodeTimes.append(Double(benchNanoseconds() - start) / 1e6 / Double(frames.count))
  }
  print(
    String(
      format: "  %.2f ms/frame (%.0f frames/s), the trailer and index included", median(encodeTimes),
      1000 / median(encodeTimes)))

  try runTraceMemory(folder: folder)
}

/// Peak memory of `workbench run` over traces of 10 minutes and 4 hours at
/// 30 fps, from the file and through standard input.
private func runTraceMemory(folder: String) throws {
  let workbench = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/workbench"
  guard FileManager.default.isExecutableFile(atPath: workbench) else {
    print("trace memory: \(workbench) is not built (swift build -c release --product workbench)")
    return
  }
  let flow = folder + "/never.lua"
  try """
  local wb = require "wb"
  return wb.flow { name = "never", steps = {
    wb.threshold { field = "face.yaw", above = 90 } } }
  """.write(toFile: flow, atomically: true, encoding: .utf8)
  let unlimited = ["--set", "flow.time_limit=0", "--set", "flow.step_timeout=0"]
  print("peak memory (ru_maxrss) of workbench run over a face trace read as a stream, 30 frames/s")
  for (name, minutes) in [("10 minutes", 10), ("4 hours", 240)] {
    let path = folder + "/trace-\(minutes).jsonl"
    try writeFaceTrace(path, frames: minutes * 60 * 30)
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let fromFile = try peakMemory(workbench, ["run", flow, "--input", path, "--quiet"] + unlimited, standardInput: nil)
    let fromPipe = try peakMemory(workbench, ["run", flow, "--input", "-", "--quiet"] + unlimited, standardInput: path)
    print(
      String(
        format: "  %-10@ %7d frames, %4.0f MB of trace: from the file %5.1f MB, from standard input %5.1f MB",
        name as NSString, minutes * 60 * 30, Double(size) / 1e6, Double(fromFile) / 1024, Double(fromPipe) / 1024))
    try? FileManager.default.removeItem(atPath: path)
  }
}

private func writeFaceTrace(_ path: String, frames: Int) throws {
  guard let file = fopen(path, "w") else { throw WorkbenchError(.usage, "cannot write \(path)") }
  defer { fclose(file) }
  fputs("{\"workbench_trace\":1,\"source\":\"workbench-bench\"}\n", file)
  for frame in 0..<frames {
    let yaw = 10 * sin(Double(frame) / 45)
    let line = String(
      format:
        "{\"t\":%.6f,\"frame\":%d,\"face\":{\"count\":1,\"box\":{\"x\":220.5,\"y\":108.2,\"w\":150.8,\"h\":192.1},\"yaw\":%.3f,\"pitch\":-1.7,\"roll\":-2.8,\"ear_left\":0.34,\"ear_right\":0.35,\"quality\":{\"blur\":0.91,\"light\":0.8}}}\n",
      Double(frame) / 30, frame, yaw)
    fputs(line, file)
  }
}

/// Runs a program to its end and returns its peak resident memory in KiB:
/// its VmHWM, read every 20 ms until it exits. (`ru_maxrss` from wait4 would
/// count this process's memory too: a spawned child starts on its parent's.)
private func peakMemory(_ program: String, _ arguments: [String], standardInput: String?) throws -> Int {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  let argv = ([program] + arguments).map { strdup($0) } + [nil]
  defer { for argument in argv { free(argument) } }
  var pid: pid_t = 0
  let status = posix_spawn(&pid, program, &actions, nil, argv, environ)
  guard status == 0 else {
    throw WorkbenchError(.usage, "cannot start \(program): \(String(cString: strerror(status)))")
  }
  var peak = 0
  var exit: Int32 = 0
  while waitpid(pid, &exit, WNOHANG) == 0 {
    if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    {
      peak = max(peak, kilobytes)
    }
    usleep(20_000)
  }
  guard exit == 0 || exit >> 8 == 1 else {
    throw WorkbenchError(.usage, "\(program) \(arguments.joined(separator: " ")) ended with status \(exit >> 8)")
  }
  return peak
}

private func decodeAll(_ path: String, reader: RecordingSource.Reader) throws -> Int {
  let source = try RecordingSource.open(path: path, reader: reader)
  defer { source.close() }
  let decoder = JPEGDecoder()
  let gray = ImageBuffer(format: .gray8)
  var frames = 0
  while let frame = try source.next() {
    if case .jpeg(let bytes) = frame.payload { try decoder.decode(bytes, into: gray, format: .gray8) }
    frames += 1
  }
  return frames
}

private func decodedFrames(_ path: String) throws -> [ImageBuffer] {
  let source = try RecordingSource.open(path: path)
  defer { source.close() }
  var frames: [ImageBuffer] = []
  while let frame = try source.next() {
    if case .image(let image) = frame.payload { frames.append(image.copy()) }
  }
  return frames
}

private func runFlow(_ flow: String, input: String, frames: Int) throws -> Int {
  var options = RunOptions(flow: RunSettings.flowOptions(flow), input: .file(input))
  options.flow.assignments = ["flow.time_limit=0", "flow.step_timeout=0"]
  options.eventsPath = "/dev/null"
  let outcome = RunSession.run(options, logger: Logger(label: "bench"))
  guard outcome.result?.reason == "end_of_input" else {
    throw WorkbenchError(.failed, "the face run on \(input) ended early: \(outcome.result?.reason ?? "no result")")
  }
  return frames
}

/// Runs `body` `runs` times; the frames it reports and the median frames per second.
private func medianRate(_ runs: Int, _ body: () throws -> Int) throws -> (Int, Double) {
  var rates: [Double] = []
  var frames = 0
  for _ in 0..<runs {
    let start = benchNanoseconds()
    frames = try body()
    rates.append(Double(frames) / (Double(benchNanoseconds() - start) / 1e9))
  }
  return (frames, median(rates))
}
