import CFFmpeg
import Foundation
import Imaging
import JSONCore

/// How a recording's frames are spaced in time, measured from every frame's time.
public struct FrameRateSummary: Sendable, Equatable {
  /// Frames per second over the whole file: (frames - 1) / (last time - first time).
  public var measuredRate: Double
  public var medianInterval: Double
  public var shortestInterval: Double
  public var longestInterval: Double
  /// Every interval is within 2% of the median, or 1.5 ms (containers that count
  /// whole milliseconds, such as Matroska, put 1/30 s at 33 or 34 ms).
  public var isConstant: Bool

  /// The summary of `times` (seconds, in presentation order); nil for fewer than two frames.
  public static func measure(_ times: [Double]) -> FrameRateSummary? {
    let sorted = times.filter(\.isFinite).sorted()
    guard sorted.count >= 2, let first = sorted.first, let last = sorted.last, last > first else { return nil }
    var intervals: [Double] = []
    intervals.reserveCapacity(sorted.count - 1)
    for index in 1..<sorted.count { intervals.append(sorted[index] - sorted[index - 1]) }
    intervals.sort()
    let median = intervals[intervals.count / 2]
    let tolerance = max(0.0015, median * 0.02)
    let shortest = intervals.first ?? median
    let longest = intervals.last ?? median
    return FrameRateSummary(
      measuredRate: Double(sorted.count - 1) / (last - first), medianInterval: median, shortestInterval: shortest,
      longestInterval: longest, isConstant: longest - median <= tolerance && median - shortest <= tolerance)
  }
}

/// What workbench sees in a recording: `workbench probe FILE`.
public struct RecordingProbe: Sendable, Equatable {
  public var path: String
  /// Whether `run --input` can read it: it opens and its first frame decodes.
  public var readable: Bool
  /// Why it cannot be read, and what to do.
  public var problem: CaptureError?
  /// `RecordingSource.Format` of the reader that reads it.
  public var format: String?
  /// "ffmpeg" for files read through FFmpeg, "workbench" for the built-in readers.
  public var reader: String?
  /// What FFmpeg says of the file (nil for a folder, or a file FFmpeg cannot open).
  public var video: VideoFileDescription?
  /// The frames as they come out (after rotation).
  public var width: Int?
  public var height: Int?
  /// Frames counted by reading the whole file (packets for FFmpeg's files).
  public var frames: Int
  /// Frames or packets that could not be read.
  public var damaged: Int
  /// From the first frame's time to the last's, plus one frame.
  public var duration: Double?
  public var rate: FrameRateSummary?
  /// Where frame times come from: "container" (presentation timestamps), "sidecar", "header", "fps", "default".
  public var timing: String?
  public var firstTime: Double?
  public var lastTime: Double?
  /// What works but `run` will not read all of: frames it skips, and why.
  public var warnings: [String] = []

  /// "libavformat 59.27.100, libavcodec 59.37.100, libswscale 6.7.100".
  public static var ffmpegVersions: String { VideoFileReader.libraryVersions }

  /// Describes the recording at `path`. Never throws for a file it cannot
  /// read: that is `readable` false with the `problem`. A video file's frames
  /// are counted from its packets unless `decodeEveryFrame`, which decodes
  /// them all and so counts the damaged ones too.
  public static func probe(path: String, decodeEveryFrame: Bool = false) -> RecordingProbe {
    var probe = RecordingProbe(path: path, readable: false, frames: 0, damaged: 0)
    let source: any FrameSource
    do {
      source = try RecordingSource.open(path: path)
    } catch {
      probe.problem = error
      // FFmpeg would wait for ever on a pipe with no writer, and take the data of one with a writer.
      var status = stat()
      guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return probe }
      probe.video = VideoFileReader.describe(path: path)
      if let video = probe.video { probe.reader = "ffmpeg"; probe.width = video.width; probe.height = video.height }
      return probe
    }
    defer { source.close() }
    probe.format = source.info.kind
    probe.width = source.info.width
    probe.height = source.info.height
    probe.timing = source.info.details["timing"]
    if source.info.kind == RecordingSource.Format.video.rawValue {
      probe.reader = "ffmpeg"
      probe.video = VideoFileReader.describe(path: path)
      probe.readable = probe.decodesFirstFrame(of: source)
      if probe.readable, probe.timing == "container", !decodeEveryFrame {
        probe.countPackets()
      } else if probe.readable {
        probe.countFrames(of: source)
      }
    } else {
      probe.reader = "workbench"
      probe.countFrames(of: source)
      probe.readable = probe.problem == nil && probe.frames > probe.damaged
      if probe.problem == nil, probe.frames == probe.damaged {
        probe.problem = RecordingProbe.noFrameRead(path: path, frames: probe.frames)
      }
    }
    return probe
  }

  /// A recording of which run reads no frame: the one message of probe and run.
  public static func noFrameRead(path: String, frames: Int) -> CaptureError {
    CaptureError(
      .invalidRecording, source: path,
      frames == 0 ? "it has no frames" : "none of its \(frames) frames can be read",
      help: frames == 0 ? "check that the recording was written to its end" : RecordingSource.supportedFormatsHelp)
  }

  private mutating func decodesFirstFrame(of source: any FrameSource) -> Bool {
    do {
      while let frame = try source.next() {
        frames += 1
        if case .unreadable = frame.payload {
          damaged += 1
          continue
        }
        firstTime = frame.t
        lastTime = frame.t
        return true
      }
      problem = CaptureError(
        .invalidRecording, source: path, "no frame of it decodes (\(damaged) damaged)",
        help: "check that the file is whole")
    } catch {
      problem = error
    }
    return false
  }

  /// Times of every frame from the packets, without decoding.
  private mutating func countPackets() {
    guard let reader = try? VideoFileReader(path: path, decode: false) else { return }
    defer { reader.close() }
    var times: [Double] = []
    frames = 0
    damaged = 0
    loop: while true {
      switch reader.readPacket() {
      case .packet(let seconds, _, _):
        frames += 1
        if let seconds { times.append(seconds) }
      case .damaged:
        damaged += 1
        break loop
      case .end:
        break loop
      }
    }
    summarize(times)
  }

  /// Reads every frame (without decoding JPEGs) for their times.
  private mutating func countFrames(of source: any FrameSource) {
    var times: [Double] = firstTime.map { [$0] } ?? []
    // A JPEG frame's header says what run will do with it: the same rule (FrameSize), no decoding.
    let decoder = JPEGDecoder()
    var oversized = 0
    var sizeProblem: String?
    do {
      while let frame = try source.next() {
        frames += 1
        switch frame.payload {
        case .unreadable: damaged += 1
        case .jpeg(let bytes):
          guard let header = try? decoder.readHeader(bytes) else {
            damaged += 1
            break
          }
          if let problem = FrameSize.problem(width: header.width, height: header.height) {
            damaged += 1
            oversized += 1
            sizeProblem = sizeProblem ?? "the JPEG is " + problem
          }
        default: break
        }
        times.append(frame.t)
      }
    } catch {
      problem = error
    }
    if let sizeProblem {
      warnings.append("run skips \(oversized) of the \(frames) frames: \(sizeProblem)")
    }
    summarize(times)
  }

  private mutating func summarize(_ times: [Double]) {
    let sorted = times.sorted()
    firstTime = sorted.first
    lastTime = sorted.last
    rate = FrameRateSummary.measure(sorted)
    if let first = sorted.first, let last = sorted.last {
      duration = last - first + (rate?.medianInterval ?? 0)
    }
  }
}

extension VideoFileReader {
  /// What FFmpeg says of `path`, even when it cannot decode it; nil when
  /// FFmpeg cannot open it at all.
  static func describe(path: String) -> VideoFileDescription? {
    var handle: OpaquePointer?
    var info = wb_video_info()
    var message = [CChar](repeating: 0, count: 256)
    let status = message.withUnsafeMutableBufferPointer {
      wb_video_open(path, 0, 1, &handle, &info, $0.baseAddress, $0.count)
    }
    if let handle { wb_video_close(handle) }
    guard Int(status) == WB_VIDEO_OK || Int(status) == WB_VIDEO_NO_VIDEO else { return nil }
    return VideoFileDescription(info)
  }
}

extension RecordingProbe {
  /// The probe as a person reads it.
  public var text: String {
    var lines = ["\(path): " + (readable ? "readable" : "not readable")]
    func add(_ label: String, _ value: String) {
      lines.append("  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + value)
    }
    if let reader {
      add("reader", reader == "ffmpeg" ? "FFmpeg (\(Self.ffmpegVersions))" : "workbench (\(format ?? "?"))")
    }
    if let video {
      add(
        "container",
        video.containerLongName.isEmpty ? video.container : "\(video.container) (\(video.containerLongName))")
      if video.videoStreams > 0 {
        var codec = video.codec + (video.profile.map { " (\($0))" } ?? "")
        if let pixelFormat = video.pixelFormat { codec += ", " + pixelFormat }
        if !video.fullRange, video.decodable { codec += ", limited range (read as full range)" }
        if !video.decodable { codec += ", no decoder in this build" }
        add("video", codec)
        var size = "\(video.storedWidth)×\(video.storedHeight)"
        if video.rotation != 0 || video.mirrored {
          let turn = video.rotation != 0 ? "turned \(video.rotation)° clockwise" : ""
          let mirror = video.mirrored ? (turn.isEmpty ? "" : " and ") + "mirrored left to right" : ""
          size += " stored, " + turn + mirror + " to \(video.width)×\(video.height) (the file's display matrix)"
        }
        add("size", size)
      }
      let audio = video.audioStreams
      if audio > 0 { add("audio", "\(audio) stream\(audio == 1 ? "" : "s"), ignored") }
      if video.otherStreams > 0 {
        add("other", "\(video.otherStreams) stream\(video.otherStreams == 1 ? "" : "s"), ignored")
      }
    } else if let width, let height {
      add("size", "\(width)×\(height)")
    }
    if readable || frames > 0 {
      var counted = "\(frames)"
      if let declared = video?.declaredFrames, declared != frames { counted += " (the container says \(declared))" }
      if damaged > 0 { counted += ", \(damaged) damaged" }
      add("frames", counted)
    }
    if let duration, let firstTime, let lastTime {
      add("duration", String(format: "%.3f s (frames from %.3f s to %.3f s)", duration, firstTime, lastTime))
    }
    if let rate {
      let intervals = String(
        format: "intervals %.1f–%.1f ms, median %.1f ms", rate.shortestInterval * 1000, rate.longestInterval * 1000,
        rate.medianInterval * 1000)
      add(
        "rate",
        (rate.isConstant ? "constant" : "variable") + String(format: ", %.3f fps measured (", rate.measuredRate)
          + intervals + ")")
    }
    if let timing { add("times", Self.timingText(timing)) }
    for warning in warnings { add("warning", warning) }
    if let problem {
      lines.append("  problem     \(problem.message)")
      if let help = problem.help { lines.append("  help        \(help)") }
    }
    return lines.joined(separator: "\n")
  }

  private static func timingText(_ timing: String) -> String {
    switch timing {
    case "container": return "each frame's presentation timestamp"
    case "sidecar": return "the timestamps sidecar beside it"
    case "header": return "the container's frame rate"
    case "fps": return "the rate given with --fps"
    default: return "30 frames per second (nothing in the file says; --fps sets it)"
    }
  }

  /// The probe as JSON (`workbench probe --json`).
  public var jsonText: String {
    var object = JSONObject()
    object["path"] = .string(path)
    object["readable"] = .bool(readable)
    if let format { object["format"] = .string(format) }
    if let reader { object["reader"] = .string(reader) }
    if let width, let height {
      object["width"] = .integer(Int64(width))
      object["height"] = .integer(Int64(height))
    }
    if let video {
      var entry = JSONObject()
      entry["container"] = .string(video.container)
      entry["container_name"] = .string(video.containerLongName)
      entry["codec"] = .string(video.codec)
      entry["codec_name"] = .string(video.codecLongName)
      if let profile = video.profile { entry["profile"] = .string(profile) }
      if let pixelFormat = video.pixelFormat { entry["pixel_format"] = .string(pixelFormat) }
      entry["stored_width"] = .integer(Int64(video.storedWidth))
      entry["stored_height"] = .integer(Int64(video.storedHeight))
      entry["rotation"] = .integer(Int64(video.rotation))
      entry["mirrored"] = .bool(video.mirrored)
      entry["full_range"] = .bool(video.fullRange)
      entry["decodable"] = .bool(video.decodable)
      if let declared = video.declaredFrames { entry["declared_frames"] = .integer(Int64(declared)) }
      if let rate = video.averageRate { entry["declared_rate"] = Self.number(rate) }
      if let bitRate = video.bitRate { entry["bit_rate"] = .integer(Int64(bitRate)) }
      entry["video_streams"] = .integer(Int64(video.videoStreams))
      entry["audio_streams"] = .integer(Int64(video.audioStreams))
      entry["other_streams"] = .integer(Int64(video.otherStreams))
      entry["libraries"] = .string(Self.ffmpegVersions)
      object["video"] = .object(entry)
    }
    object["frames"] = .integer(Int64(frames))
    object["damaged"] = .integer(Int64(damaged))
    if !warnings.isEmpty { object["warnings"] = .array(warnings.map(JSONValue.string)) }
    if let duration { object["duration"] = Self.number(duration) }
    if let firstTime { object["first_t"] = Self.number(firstTime) }
    if let lastTime { object["last_t"] = Self.number(lastTime) }
    if let rate {
      var entry = JSONObject()
      entry["constant"] = .bool(rate.isConstant)
      entry["measured_fps"] = Self.number(rate.measuredRate)
      entry["median_interval"] = Self.number(rate.medianInterval)
      entry["shortest_interval"] = Self.number(rate.shortestInterval)
      entry["longest_interval"] = Self.number(rate.longestInterval)
      object["rate"] = .object(entry)
    }
    if let timing { object["timing"] = .string(timing) }
    if let problem {
      object["error"] = .string(problem.message)
      if let help = problem.help { object["help"] = .string(help) }
    }
    return JSONValue.object(object).jsonText
  }

  private static func number(_ value: Double) -> JSONValue { .number(value.roundedToMicroseconds) }
}
