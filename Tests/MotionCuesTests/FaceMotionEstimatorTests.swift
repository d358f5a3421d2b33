import Estimators
import FaceEstimation
import FaceEstimationTesting
import Foundation
import Imaging
import Measurements
import MotionCues
import TestSupport
import Testing

/// What face.motion wrote on each frame.
struct MotionFrame {
  var jump: Bool?
  var poseSpeed: Double?
  var parallax: Double?
}

/// The real face estimator and face.motion over frames, at 30 frames a second.
func measureMotion(_ frames: [ImageBuffer], fps: Double = 30) throws -> [MotionFrame] {
  let face = FaceEstimator(options: FaceBackendInstall.options)
  let motion = FaceMotionEstimator(face: face, settings: nil)
  let schema = MeasurementSchema()
  try face.prepare(schema: schema)
  try motion.prepare(schema: schema)
  let jump = try schema.valueNode("face.pose_jump", estimator: "test")
  let speed = try schema.valueNode("face.pose_speed", estimator: "test")
  let parallax = try schema.valueNode("face.parallax", estimator: "test")
  var seen: [MotionFrame] = []
  let decoded = DecodedFrame()
  for (index, image) in frames.enumerated() {
    decoded.color.reshape(width: image.width, height: image.height, format: .rgb8)
    decoded.color.pixels.update(from: image.pixels, count: image.byteCount)
    decoded.hasColor = true
    try ImageConversion.rgb8ToGray8(decoded.color, into: decoded.gray)
    decoded.sourceWidth = image.width
    decoded.sourceHeight = image.height
    decoded.index = Int64(index)
    decoded.t = Double(index) / fps
    var measurements = MeasurementFrame(t: decoded.t, index: decoded.index)
    face.estimate(decoded, into: &measurements)
    motion.estimate(decoded, into: &measurements)
    var frame = MotionFrame()
    if case .bool(let value) = measurements[jump] { frame.jump = value }
    if case .number(let value) = measurements[speed] { frame.poseSpeed = value }
    if case .number(let value) = measurements[parallax] { frame.parallax = value }
    seen.append(frame)
  }
  return seen
}

/// The frames of a JPEG folder.
func folderFrames(_ folder: String, count: Int) throws -> [ImageBuffer] {
  try (1...count).map { index in
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + String(format: "/%04d.jpg", index))))
    let image = ImageBuffer(format: .rgb8)
    try JPEGDecoder().decode(bytes, into: image, format: .rgb8)
    return image
  }
}

@Suite("face.motion on the real face estimator", .serialized, .requires(FaceBackendInstall.requirement))
struct FaceMotionEstimatorTests {
  @Test("a front-on photo swapped for a turned one is one jump, on the frame of the swap")
  func yawSwap() throws {
    let front = PhotoStage.frame(try .obama())
    let turned = PhotoStage.frame(try .biden())
    let seen = try measureMotion(Array(repeating: front, count: 10) + Array(repeating: turned, count: 10))
    #expect(seen.allSatisfy { $0.jump != nil }, "a face on every frame")
    #expect(seen.indices.filter { seen[$0].jump == true } == [10])
    #expect((seen[10].poseSpeed ?? 0) > 250)
    #expect(seen.allSatisfy { $0.parallax == nil }, "no parallax is measured across a swap")
  }

  @Test("a photo swapped for one looking down is a jump")
  func pitchSwap() throws {
    let front = PhotoStage.frame(try .obama())
    let down = PhotoStage.frame(try .astronaut())
    let seen = try measureMotion(Array(repeating: front, count: 10) + Array(repeating: down, count: 10))
    #expect(seen.indices.filter { seen[$0].jump == true } == [10])
  }

  @Test("a photo moved, tilted or turned as a hand does it is no jump, and stays flat")
  func movedPhotos() throws {
    let photo = try PhotoStage.Photo.obama()
    let moved = (0...15).map { PhotoStage.frame(photo, x: 200 + 16 * Double($0)) }
    let tilted = (0...15).map { PhotoStage.frame(photo, tilt: 2 * Double($0)) }
    let turned = (0...15).map { PhotoStage.frame(photo, turn: 50 * Double($0) / 15) }
    for (name, frames) in [("moved", moved), ("tilted", tilted), ("turned", turned)] {
      let seen = try measureMotion(frames)
      #expect(seen.allSatisfy { $0.jump == false }, "\(name)")
      let parallax = seen.compactMap(\.parallax)
      #expect(parallax.allSatisfy { $0 < 0.04 }, "\(name): \(parallax)")
    }
  }

  @Test("the real head of the bundled blink video never jumps")
  func realHead() throws {
    let frames = try folderFrames(packageRootPath + "/Tests/Fixtures/faces/single_face_blink_30fps", count: 72)
    let seen = try measureMotion(frames)
    #expect(seen.filter { $0.jump != nil }.count == 72)
    #expect(seen.allSatisfy { $0.jump == false })
    #expect(seen.compactMap(\.poseSpeed).allSatisfy { $0 < 100 })
  }
}
