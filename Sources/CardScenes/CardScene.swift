import Capture
import CardGeometry
import Diagnostics
import FileSystem
import Foundation
import Imaging
import JSONCore

/// What was rendered in one frame: the ground truth an estimator is judged by.
public struct CardTruth: Sendable, Equatable {
  public var index: Int
  public var t: Double
  public var pose: CardPose
  /// Card centre offset from the frame centre, frame widths and heights.
  public var offsetX: Double
  public var offsetY: Double
  /// Top-left, top-right, bottom-right, bottom-left as printed, in pixels
  /// (pixel centres at whole numbers); given even when outside the frame.
  public var corners: [Point2]
  /// The mean length of the top and bottom edges over the frame width.
  public var widthRatio: Double
  /// The card's width over the frame width were it facing the camera at its
  /// distance (the card estimator's `size_ratio`).
  public var sizeRatio: Double
  public var visible: Bool
  /// Whether all four corners are inside the frame.
  public var inFrame: Bool
  public var glare: Double
  /// Angular speed of the card, degrees per second.
  public var speed: Double

  /// The truth as one line of the `.truth.jsonl` sidecar (docs/synth.md).
  public var jsonLine: String {
    func rounded(_ value: Double, _ places: Double = 1000) -> JSONValue { .number((value * places).rounded() / places) }
    let cornerList: [JSONValue] = corners.map { .array([rounded($0.x), rounded($0.y)]) }
    let object = JSONObject([
      ("index", .integer(Int64(index))), ("t", .number(t)), ("tilt_x", rounded(pose.tiltX)),
      ("tilt_y", rounded(pose.tiltY)), ("roll", rounded(pose.roll)), ("distance_mm", rounded(pose.distance)),
      ("offset_x_mm", rounded(pose.translation.x)), ("offset_y_mm", rounded(pose.translation.y)),
      ("corners", .array(cornerList)), ("width_ratio", rounded(widthRatio, 100_000)),
      ("size_ratio", rounded(sizeRatio, 100_000)), ("visible", .bool(visible)),
      ("in_frame", .bool(inFrame)), ("glare", rounded(glare)), ("speed", rounded(speed, 100)),
    ])
    return JSONValue.object(object).jsonText
  }
}

/// How a scene is filmed.
public struct CardSceneOptions: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var fps: Double
  /// Pixels; nil for a 60° horizontal field of view.
  public var focal: Double?
  /// Chooses the background (and the noise).
  public var seed: UInt64
  public var jpegQuality: Int

  public init(
    width: Int = 1280, height: Int = 720, fps: Double = 30, focal: Double? = nil, seed: UInt64 = 1,
    jpegQuality: Int = 90
  ) {
    self.width = width
    self.height = height
    self.fps = fps
    self.focal = focal
    self.seed = seed
    self.jpegQuality = jpegQuality
  }

  public var camera: PinholeCamera {
    focal.map { PinholeCamera(focal: $0, width: width, height: height) }
      ?? PinholeCamera(width: width, height: height)
  }
}

/// A schedule filmed by a camera: frame `i` at `i / fps` seconds.
public final class CardScene {
  public let schedule: CardSchedule
  public let options: CardSceneOptions
  public let camera: PinholeCamera
  public let renderer: CardRenderer

  public init(schedule: CardSchedule, options: CardSceneOptions = CardSceneOptions(), texture: CardTexture? = nil) {
    self.schedule = schedule
    self.options = options
    camera = options.camera
    renderer = CardRenderer(camera: camera, texture: texture ?? CardTexture(), seed: options.seed)
  }

  public var frameCount: Int { Int((schedule.length * options.fps + 1e-9).rounded(.down)) + 1 }

  public func time(ofFrame index: Int) -> Double { Double(index) / options.fps }

  public func truth(frame index: Int) -> CardTruth {
    let t = time(ofFrame: index)
    let state = schedule.state(at: t, camera: camera)
    let corners = state.pose.projectedCorners(camera: camera)
    let inFrame = corners.allSatisfy {
      $0.x >= 0 && $0.y >= 0 && $0.x <= Double(camera.width - 1) && $0.y <= Double(camera.height - 1)
    }
    let span = 0.5 / options.fps
    let before = schedule.state(at: max(0, t - span), camera: camera).pose
    let after = schedule.state(at: t + span, camera: camera).pose
    let speed = before.angle(to: after) / (t + span - max(0, t - span))
    let widthRatio =
      (corners[0].distance(to: corners[1]) + corners[3].distance(to: corners[2])) / 2
      / Double(camera.width)
    return CardTruth(
      index: index, t: t, pose: state.pose, offsetX: state.offsetX, offsetY: state.offsetY, corners: corners,
      widthRatio: widthRatio,
      sizeRatio: camera.focal * CardFormat.width / state.pose.distance / Double(camera.width), visible: state.visible,
      inFrame: inFrame, glare: state.glare, speed: speed)
  }

  /// The states across frame `index`'s exposure, enough of them that the
  /// card moves at most about a pixel from one to the next.
  public func exposure(frame index: Int) -> [CardSceneState] {
    let t = time(ofFrame: index)
    let open = schedule.shutter / options.fps
    let middle = schedule.state(at: t, camera: camera)
    guard open > 0 else { return [middle] }
    let first = schedule.state(at: max(0, t - open / 2), camera: camera)
    let last = schedule.state(at: t + open / 2, camera: camera)
    let start = first.pose.projectedCorners(camera: camera)
    let end = last.pose.projectedCorners(camera: camera)
    var travel = 0.0
    for corner in 0..<4 { travel = max(travel, start[corner].distance(to: end[corner])) }
    let count = max(1, min(24, Int(travel.rounded(.up))))
    guard count > 1 else { return [middle] }
    return (0..<count).map { sample in
      let s = Double(sample) / Double(count - 1) - 0.5
      return schedule.state(at: max(0, t + s * open), camera: camera)
    }
  }

  /// Renders frame `index` (rgb8; the buffer is reused by the next call).
  @discardableResult
  public func render(frame index: Int) -> ImageBuffer {
    renderer.render(exposure(frame: index), noise: schedule.noise, noiseSeed: UInt64(index + 1))
  }

  /// Where the ground truth of a recording goes: `clip.avi` → `clip.avi.truth.jsonl`.
  public static func truthPath(forRecording path: String) -> String { path + ".truth.jsonl" }

  /// Renders every frame into an MJPEG AVI at `path` (with its timestamps
  /// sidecar) and writes the truth beside it. Both files appear only when
  /// complete. `progress` is called after each frame.
  public func write(to path: String, progress: ((Int, Int) -> Void)? = nil) throws(WorkbenchError) -> Int {
    let writer: AVIWriter
    do {
      writer = try AVIWriter(
        path: path, width: camera.width, height: camera.height, fps: options.fps,
        deviceInfo: ["device": "workbench synth card", "focal": String(format: "%.3f", camera.focal)])
    } catch {
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: path), help: error.help)
    }
    let truth = try Self.beginTruth(Self.truthPath(forRecording: path))
    // What was rendered before an error is kept, as the recording keeps its frames.
    defer { try? truth.commit() }
    // A failed write fails the file: its commit reports it.
    func writeTruth(_ line: String) { try? truth.write(Array(line.utf8)) }
    let header = JSONObject([
      ("workbench_card_truth", .integer(1)), ("width", .integer(Int64(camera.width))),
      ("height", .integer(Int64(camera.height))), ("fps", .number(options.fps)), ("focal", .number(camera.focal)),
      ("card_width_mm", .number(CardFormat.width)), ("card_height_mm", .number(CardFormat.height)),
      ("frames", .integer(Int64(frameCount))),
    ])
    writeTruth(JSONValue.object(header).jsonText + "\n")
    let encoder = JPEGEncoder()
    var jpeg: [UInt8] = []
    for index in 0..<frameCount {
      let image = render(frame: index)
      do {
        try encoder.encode(image, quality: options.jpegQuality, into: &jpeg)
        try writer.append(jpeg: jpeg, t: time(ofFrame: index))
      } catch let error as ImagingError {
        throw WorkbenchError(.usage, "frame \(index): \(error)", at: SourceLocation(file: path))
      } catch let error as CaptureError {
        throw WorkbenchError(.usage, error.message, at: SourceLocation(file: path), help: error.help)
      } catch {
        throw WorkbenchError(.usage, "\(error)", at: SourceLocation(file: path))
      }
      writeTruth(self.truth(frame: index).jsonLine + "\n")
      progress?(index + 1, frameCount)
    }
    do { try truth.commit() } catch {
      throw WorkbenchError(
        .usage, "could not finish writing: \(error.reason)",
        at: SourceLocation(file: Self.truthPath(forRecording: path)),
        help: "the partial output is at \(truth.temporaryPath)")
    }
    do { try writer.finish() } catch {
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: path), help: error.help)
    }
    return frameCount
  }

  /// The truth file of a recording, written as frames are rendered.
  private static func beginTruth(_ path: String) throws(WorkbenchError) -> AtomicFile {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      throw WorkbenchError(
        .usage, "is a folder, not a file", at: SourceLocation(file: path),
        help: "give a file name inside it, e.g. \(path)/events.jsonl")
    }
    do {
      return try AtomicFile.begin(path)
    } catch {
      throw WorkbenchError(
        .usage, "cannot write here: \(error.reason)", at: SourceLocation(file: path),
        help: "check the folder's permissions or choose another output path")
    }
  }
}
