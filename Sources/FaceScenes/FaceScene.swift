import Diagnostics
import FileSystem
import Foundation
import JSONCore
import Randomness

/// How a face scene is measured: the frame and the clock.
public struct FaceSceneOptions: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var fps: Double
  public var seed: UInt64

  public init(width: Int = 1280, height: Int = 720, fps: Double = 30, seed: UInt64 = 1) {
    self.width = width
    self.height = height
    self.fps = fps
    self.seed = seed
  }
}

/// Turns a face schedule into the measurement trace the face estimator
/// would report for it: `face.*` for the largest face, `face.faces` for
/// each, `image.*` and the frame's `quality.*`, in the estimator's schema
/// (docs/face.md), with its noise and quirks.
///
/// The constants come from the face estimator on the bundled recording
/// (examples/recordings/face-blink.avi): open eyes' aspect ratio 0.33–0.35
/// with ±0.005 frame to frame, shut 0.04–0.05; blink blendshapes 0.04–0.08
/// open, 0.55–0.6 shut; yaw, pitch and roll jitter a few tenths of a degree.
public struct FaceScene {
  public let schedule: FaceSchedule
  public let options: FaceSceneOptions
  /// Changes whenever the same schedule and seed would give other numbers
  /// (caches of scenes key on it).
  public static let version = 1

  /// Eye aspect ratio of fully shut eyes.
  static let shutEyeRatio = 0.045
  /// eyeBlink blendshape of open and shut eyes.
  static let openBlendshape = 0.06
  static let shutBlendshape = 0.58
  /// Width over height of the face box.
  static let boxAspect = 0.79
  /// Distance between the eye centres over the box width, front-on.
  static let eyeSpan = 0.45

  public init(schedule: FaceSchedule, options: FaceSceneOptions = FaceSceneOptions()) {
    self.schedule = schedule
    self.options = options
  }

  public var frameCount: Int {
    let frames = schedule.length * options.fps
    guard frames.isFinite, frames >= 0, frames < 10_000_000 else { return 1 }
    return Int(frames.rounded(.down)) + 1
  }

  /// The trace's header line.
  public func header(source: String?) -> JSONValue {
    var fields: [(String, JSONValue)] = [
      ("workbench_trace", .integer(1)), ("source", .string("workbench synth face")),
    ]
    if let source { fields.append(("schedule", .string(source))) }
    fields += [
      ("fps", .number(options.fps)), ("width", .integer(Int64(options.width))),
      ("height", .integer(Int64(options.height))), ("seed", .integer(Int64(options.seed))),
    ]
    return .object(JSONObject(fields))
  }

  /// Every frame's measurements, in order.
  public func frames() -> [JSONValue] {
    var random = SeededRandom(seed: options.seed)
    return (0..<frameCount).map { index in frame(index, random: &random) }
  }

  /// Lines are written to the trace in blocks of about this size.
  static let writeBlockBytes = 1 << 16

  /// Writes the trace to `path` (a temporary file, renamed when complete).
  /// Returns the number of frames.
  @discardableResult
  public func write(to path: String, source: String? = nil) throws(WorkbenchError) -> Int {
    func cannotWrite(_ error: AtomicFileError) -> WorkbenchError {
      WorkbenchError(
        .usage, "cannot write the trace: \(error.reason)", at: SourceLocation(file: path),
        help: "check the folder and free space")
    }
    let file: AtomicFile
    do {
      file = try AtomicFile.begin(path, temporaryName: .suffix(".tmp-\(getpid())"), permissions: .masked(0o666))
    } catch {
      throw cannotWrite(error)
    }
    // A block of lines at a time: a long scene never sits in memory whole.
    var random = SeededRandom(seed: options.seed)
    var block = Array((header(source: source).jsonText + "\n").utf8)
    do {
      for index in 0..<frameCount {
        block += (frame(index, random: &random).jsonText + "\n").utf8
        if block.count >= Self.writeBlockBytes {
          try file.write(block)
          block.removeAll(keepingCapacity: true)
        }
      }
      try file.write(block)
      try file.commit()
    } catch {
      file.abandon()
      throw cannotWrite(error)
    }
    return frameCount
  }

  func frame(_ index: Int, random: inout SeededRandom) -> JSONValue {
    let t = Double(index) / options.fps
    let state = schedule.state(at: t)
    let noise = schedule.noise
    func gaussian(_ sigma: Double) -> Double {
      guard sigma > 0 else { return 0 }
      // Box–Muller: the estimator's jitter is close to normal.
      let u = max(random.nextDouble(), 1e-12)
      let v = random.nextDouble()
      return sigma * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
    func round(_ value: Double, _ places: Double = 1000) -> JSONValue { .number((value * places).rounded() / places) }
    func clamp(_ value: Double) -> Double { min(1, max(0, value)) }

    var fields: [(String, JSONValue)] = [
      ("t", .number(t.roundedToMicroseconds)), ("frame", .integer(Int64(index))),
    ]
    // The estimator loses a face now and then: no face at all in that frame.
    let lost = schedule.dropout > 0 && random.nextDouble() < schedule.dropout
    let count = lost ? 0 : state.count
    let width = Double(options.width)
    let height = Double(options.height)
    let shorter = min(width, height)

    var faces: [JSONValue] = []
    for position in 0..<count {
      // Others stand beside the first, smaller (further back): the largest is first.
      var face = state
      if position > 0 {
        face.size *= pow(0.7, Double(position))
        face.x += (position % 2 == 1 ? 0.28 : -0.28) * Double((position + 1) / 2)
        face.yaw *= 0.3
        face.pitch *= 0.3
      }
      let boxHeight = face.size * shorter * (1 + gaussian(0.004 * noise))
      let boxWidth = boxHeight * FaceScene.boxAspect * (0.85 + 0.15 * cos(face.yaw * .pi / 180))
      let centreX = width / 2 + face.x * width + gaussian(0.6 * noise)
      let centreY = height / 2 + face.y * height + gaussian(0.6 * noise)
      let boxX = centreX - boxWidth / 2
      let boxY = centreY - boxHeight / 2
      let border = min(boxX, boxY, width - boxX - boxWidth, height - boxY - boxHeight) / shorter
      let eyeDistance = FaceScene.eyeSpan * boxWidth * max(0.2, cos(face.yaw * .pi / 180))
      // Landmark jitter moves the pose a few tenths of a degree; looking
      // far to the side makes it worse.
      let poseJitter = (0.3 + 0.01 * abs(face.yaw)) * noise
      func eyeRatio(_ openness: Double) -> Double {
        max(
          0.01,
          FaceScene.shutEyeRatio + (schedule.openEyeRatio - FaceScene.shutEyeRatio) * openness + gaussian(0.005 * noise)
        )
      }
      func blendshape(_ openness: Double) -> Double {
        clamp(
          FaceScene.openBlendshape + (FaceScene.shutBlendshape - FaceScene.openBlendshape) * (1 - openness)
            + gaussian(0.012 * noise))
      }
      let quality: [(String, JSONValue)] = [
        ("blur", round(clamp(face.blur + gaussian(0.01 * noise)))),
        ("darkness", round(clamp(face.darkness + gaussian(0.005 * noise)))),
        ("lightness", round(clamp(face.lightness + gaussian(0.003 * noise)))),
        ("illumination", round(clamp(face.illumination + gaussian(0.01 * noise)))),
        ("specularity", round(clamp(face.specularity + gaussian(0.003 * noise)))),
      ]
      faces.append(
        .object(
          JSONObject([
            (
              "box",
              .object(
                JSONObject([
                  ("x", round(boxX)), ("y", round(boxY)), ("w", round(boxWidth)), ("h", round(boxHeight)),
                ]))
            ),
            ("yaw", round(face.yaw + gaussian(poseJitter))), ("pitch", round(face.pitch + gaussian(poseJitter * 1.5))),
            ("roll", round(face.roll + gaussian(poseJitter * 0.7))),
            ("blink_left", round(blendshape(face.eyeLeft))), ("blink_right", round(blendshape(face.eyeRight))),
            ("ear_left", round(eyeRatio(face.eyeLeft))), ("ear_right", round(eyeRatio(face.eyeRight))),
            ("size", round(max(boxWidth, boxHeight) / shorter)), ("border_distance", round(border)),
            ("eye_distance", round(eyeDistance)), ("smile", round(clamp(face.smile + gaussian(0.01 * noise)))),
            ("mouth_open", round(clamp(face.mouthOpen + gaussian(0.008 * noise)))),
            ("quality", .object(JSONObject(quality))),
          ])))
    }
    var face: [(String, JSONValue)] = [("count", .integer(Int64(count)))]
    if let largest = faces.first?.objectValue {
      for (key, value) in largest { face.append((key, value)) }
      face.append(("faces", .array(faces)))
    }
    fields.append(("face", .object(JSONObject(face))))
    fields.append(
      (
        "image",
        .object(JSONObject([("width", .integer(Int64(options.width))), ("height", .integer(Int64(options.height)))]))
      ))
    // The frame-wide quality follows the face's light; sharpness is the camera's.
    fields.append(
      (
        "quality",
        .object(
          JSONObject([
            ("blur", round(clamp(state.blur + gaussian(0.01 * noise)))),
            ("darkness", round(clamp(state.darkness + gaussian(0.005 * noise)))),
            ("lightness", round(clamp(state.lightness + gaussian(0.003 * noise)))),
            ("illumination", round(clamp(state.illumination + gaussian(0.01 * noise)))),
            ("specularity", round(clamp(state.specularity + gaussian(0.003 * noise)))),
          ]))
      ))
    return .object(JSONObject(fields))
  }
}
