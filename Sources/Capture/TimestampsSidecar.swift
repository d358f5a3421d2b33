import Foundation
import JSONCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The timestamps sidecar: the real capture time of every frame of a
/// recording, kept in a small text file beside it, because a container's
/// frame rate only says when frames *should* have come.
///
/// **Where.** Beside a recording file, its full name plus
/// `.timestamps.jsonl` (`clip.avi` → `clip.avi.timestamps.jsonl`,
/// `clip.mjpeg` → `clip.mjpeg.timestamps.jsonl`); for a folder of JPEG
/// frames, `timestamps.jsonl` inside the folder.
///
/// **Format.** JSON Lines: UTF-8, one JSON object per line, blank lines
/// ignored.
/// - An optional first line, the header, marked by its first key:
///   `{"workbench_timestamps":1, ...}`. `1` is the format version (a reader
///   refuses any other). The other keys describe the device and the
///   recording and are informational: `writer`, `width`, `height`, `fps`
///   (the nominal rate), `frames`, and whatever the capture knew about the
///   device (`device`, `driver`, `card`, `pixel_format`...). Strings and
///   numbers; readers keep them as details and ignore what they don't know.
/// - Then one line per frame: `{"frame":N,"t":SECONDS}`.
///   `N` is the frame's 0-based position in the recording (chunk order in
///   an AVI, image order in an MJPEG or Y4M file, natural name order in a
///   folder: `frame2.jpg` before `frame10.jpg`), counting unreadable frames
///   too. `t` is a finite number of seconds on the capture clock (any
///   origin: a camera's monotonic buffer time is typical); times are used
///   exactly as written. Other keys on a frame line are ignored, leaving
///   room for more per-frame facts.
///
/// Example:
///
///     {"workbench_timestamps":1,"writer":"workbench AVIWriter","width":640,"height":360,"fps":30}
///     {"frame":0,"t":8123.456789}
///     {"frame":1,"t":8123.490122}
///
/// **Rules.** When the sidecar exists its times win over the container's
/// frame rate and over `--fps`. Frame lines may come in any order but a
/// frame may appear only once. A frame without a line gets the time of the
/// nearest earlier listed frame plus the nominal frame duration (container
/// rate, else `fps`, else 1/30 s) per frame in between, or, before the first
/// listed frame, the first listed time minus that. Lines for frames past
/// the end of the recording are ignored. A sidecar that cannot be parsed is
/// an error naming its line: analysing with wrong times would be worse than
/// stopping.
///
/// **Writing.** `AVIWriter` writes it atomically (a temporary file renamed
/// into place) when the recording finishes, with the header first and then
/// the frames in order.
public struct TimestampsSidecar: Sendable, Equatable {
  /// The current (and only) format version.
  public static let formatVersion: Int64 = 1

  /// The header's keys other than `workbench_timestamps`, in file order;
  /// empty when the file has no header line.
  public var header: JSONObject
  /// The time of each listed frame, by 0-based frame position.
  public var times: [Int64: Double]

  public init(header: JSONObject = JSONObject(), times: [Int64: Double] = [:]) {
    self.header = header
    self.times = times
  }

  /// Where the sidecar of a recording lives.
  public static func path(forRecording path: String, isFolder: Bool) -> String {
    let trimmed = trimmingTrailingSlashes(path)
    return isFolder ? trimmed + "/timestamps.jsonl" : trimmed + ".timestamps.jsonl"
  }

  /// Reads a sidecar; nil when there is no file at `path`. `recording` names
  /// the recording in errors.
  public static func read(path: String, recording: String) throws(CaptureError) -> TimestampsSidecar? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CaptureError(
        .unreadableFile, source: recording, "cannot read its timestamps sidecar \(path)",
        help: "check the sidecar's permissions, or move it away to use the recording's frame rate")
    }
    return try parse(Array(data), sidecarPath: path, recording: recording)
  }

  /// Parses sidecar text; errors name `sidecarPath` and the line.
  public static func parse(_ bytes: [UInt8], sidecarPath: String, recording: String) throws(CaptureError)
    -> TimestampsSidecar
  {
    func failure(_ line: Int, _ reason: String) -> CaptureError {
      CaptureError(
        .invalidRecording, source: recording, "timestamps sidecar \(sidecarPath) line \(line): \(reason)",
        help: "each line must be {\"frame\":N,\"t\":SECONDS} after an optional {\"workbench_timestamps\":1,...} "
          + "header; fix or remove the sidecar")
    }
    var sidecar = TimestampsSidecar()
    var sawContent = false
    for (offset, lineBytes) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      .enumerated()
    {
      let lineNumber = offset + 1
      var line = Array(lineBytes)
      while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == 9 {
        line.removeLast()
      }
      guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != 9 }) else { continue }
      let value: JSONValue
      do {
        value = try JSONParser.parse(bytes: line)
      } catch {
        throw failure(lineNumber, "not JSON (\(error.message))")
      }
      guard let object = value.objectValue else { throw failure(lineNumber, "a \(value.kindName), not an object") }
      if let version = object["workbench_timestamps"] {
        guard !sawContent else { throw failure(lineNumber, "the header must be the first line") }
        guard version.integerValue == formatVersion else {
          throw failure(lineNumber, "format version \(version.jsonText) is not supported (only 1)")
        }
        sidecar.header = JSONObject(object.entries.filter { $0.key != "workbench_timestamps" })
        sawContent = true
        continue
      }
      sawContent = true
      guard let frameValue = object["frame"] else { throw failure(lineNumber, "no \"frame\" key") }
      guard let frame = frameValue.integerValue, frame >= 0 else {
        throw failure(lineNumber, "\"frame\" must be a whole number ≥ 0, not \(frameValue.jsonText)")
      }
      guard let timeValue = object["t"] else { throw failure(lineNumber, "no \"t\" key") }
      guard let time = timeValue.doubleValue, time.isFinite else {
        throw failure(lineNumber, "\"t\" must be a number of seconds, not \(timeValue.jsonText)")
      }
      guard sidecar.times.updateValue(time, forKey: frame) == nil else {
        throw failure(lineNumber, "frame \(frame) is listed twice")
      }
    }
    return sidecar
  }

  /// The sidecar as text: the header line, then the frames in order. Times
  /// are written in their shortest exact form, so they read back identical.
  public func encoded() -> [UInt8] {
    var writer = JSONWriter(capacity: 64 + times.count * 32)
    var headerObject = JSONObject([("workbench_timestamps", .integer(Self.formatVersion))])
    for (key, value) in header { headerObject[key] = value }
    writer.value(.object(headerObject))
    writer.raw(UInt8(ascii: "\n"))
    for frame in times.keys.sorted() {
      writer.raw("{\"frame\":")
      writer.integer(frame)
      writer.raw(",\"t\":")
      writer.number(times[frame]!)
      writer.raw("}\n")
    }
    return writer.bytes
  }

  /// Writes the sidecar through a temporary file in the same folder renamed
  /// into place, so that `path` holds either the old sidecar or the whole new one.
  public func write(to path: String) throws(CaptureError) {
    try RecordingFiles.write(encoded(), to: path)
  }

  static func trimmingTrailingSlashes(_ path: String) -> String {
    var trimmed = path
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
    return trimmed
  }
}

/// The time of every frame of a recording: from its timestamps sidecar when
/// there is one, else from a nominal rate. Pure arithmetic on what was read
/// at open, so the same file always gives the same times.
struct TimestampsTimeline: Sendable {
  /// Where the times come from, for `SourceInfo.details["timing"]`.
  enum Origin: String, Sendable {
    case sidecar
    /// The container's own rate (AVI dwRate/dwScale, Y4M F).
    case header
    /// The `fps` the caller gave.
    case fps
    /// Nothing said: 30 frames per second.
    case defaultRate = "default"
  }

  static let defaultFramesPerSecond = 30.0

  /// One frame lasts `durationNumerator / durationDenominator` seconds; kept
  /// as the container's integers so that times are computed the same way
  /// every time and match what other readers compute.
  let durationNumerator: Double
  let durationDenominator: Double
  let origin: Origin
  private let listedFrames: [Int64]
  private let listedTimes: [Double]

  /// The nominal rate: `header` (frames per `perSeconds` seconds) when the
  /// container has one, else `fps`, else 30; then the sidecar over it.
  init(header: (frames: Double, perSeconds: Double)?, fps: Double?, sidecar: TimestampsSidecar?) {
    var origin: Origin
    if let header, header.frames > 0, header.perSeconds > 0, header.frames.isFinite, header.perSeconds.isFinite {
      durationNumerator = header.perSeconds
      durationDenominator = header.frames
      origin = .header
    } else if let fps {
      durationNumerator = 1
      durationDenominator = fps
      origin = .fps
    } else {
      durationNumerator = 1
      durationDenominator = Self.defaultFramesPerSecond
      origin = .defaultRate
    }
    let sorted = (sidecar?.times ?? [:]).sorted { $0.key < $1.key }
    listedFrames = sorted.map(\.key)
    listedTimes = sorted.map(\.value)
    if !listedFrames.isEmpty { origin = .sidecar }
    self.origin = origin
  }

  /// The nominal frames per second.
  var framesPerSecond: Double { durationDenominator / durationNumerator }

  private func duration(ofFrames count: Int64) -> Double {
    Double(count) * durationNumerator / durationDenominator
  }

  func time(ofFrame index: Int64) -> Double {
    guard !listedFrames.isEmpty else { return duration(ofFrames: index) }
    // The last listed frame at or before `index`.
    var low = 0
    var high = listedFrames.count
    while low < high {
      let middle = (low + high) / 2
      if listedFrames[middle] <= index { low = middle + 1 } else { high = middle }
    }
    if low == 0 { return listedTimes[0] - duration(ofFrames: listedFrames[0] - index) }
    let previous = low - 1
    if listedFrames[previous] == index { return listedTimes[previous] }
    return listedTimes[previous] + duration(ofFrames: index - listedFrames[previous])
  }
}
