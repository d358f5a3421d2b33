import Foundation
import Imaging
import TestSupport

/// A still photo held up to a camera, as an attacker would: its face placed
/// at a point of a grey 640×480 frame at a size, rotated in the picture's
/// plane (`tilt`) and turned about its vertical axis (`turn`), seen through
/// a pinhole camera. What the motion cues' tests show the real face
/// estimator instead of a head.
public struct PhotoStage {
  /// A bundled photo and its face box (x, y, width, height in the photo's
  /// pixels, as the face estimator finds it).
  public struct Photo {
    public let image: ImageBuffer
    public let face: (x: Double, y: Double, width: Double, height: Double)

    public init(path: String, face: (x: Double, y: Double, width: Double, height: Double)) throws {
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      image = ImageBuffer(format: .rgb8)
      try JPEGDecoder().decode(bytes, into: image, format: .rgb8)
      self.face = face
    }

    /// Tests/Fixtures/frames/obama-480.jpg: a man, front-on (yaw 2°, pitch 0° as placed).
    public static func obama() throws -> Photo {
      try Photo(path: packageRootPath + "/Tests/Fixtures/frames/obama-480.jpg", face: (197.1, 72.4, 124.0, 144.8))
    }
    /// Tests/Fixtures/frames/biden-480.jpg: another man, turned (yaw 12.5° as placed).
    public static func biden() throws -> Photo {
      try Photo(path: packageRootPath + "/Tests/Fixtures/frames/biden-480.jpg", face: (209.4, 96.9, 146.8, 193.0))
    }
    /// Tests/Fixtures/frames/0001.jpg and 0027.jpg: the blink video's man with his eyes open and shut.
    public static func eyesOpen() throws -> Photo {
      try Photo(path: packageRootPath + "/Tests/Fixtures/frames/0001.jpg", face: (222.0, 108.1, 150.3, 192.5))
    }
    public static func eyesShut() throws -> Photo {
      try Photo(path: packageRootPath + "/Tests/Fixtures/frames/0027.jpg", face: (222.0, 108.1, 150.3, 192.5))
    }
    /// Tests/Fixtures/faces/astronaut.jpg: a woman looking down (pitch −9.6° as placed).
    public static func astronaut() throws -> Photo {
      try Photo(path: packageRootPath + "/Tests/Fixtures/faces/astronaut.jpg", face: (264.9, 71.0, 92.1, 107.6))
    }
  }

  public static let width = 640
  public static let height = 480
  /// The camera's focal length and the photo's distance, in pixels.
  static let focal = 700.0
  static let distance = 700.0

  /// The frame with `photo`'s face centred at (x, y), its box's larger side
  /// `size` pixels, tilted and turned by those degrees.
  public static func frame(
    _ photo: Photo, x: Double = 320, y: Double = 220, size: Double = 200, tilt: Double = 0, turn: Double = 0
  ) -> ImageBuffer {
    let frame = ImageBuffer(width: width, height: height, format: .rgb8)
    let source = photo.image
    let scale = size / max(photo.face.width, photo.face.height)
    let faceX = photo.face.x + photo.face.width / 2
    let faceY = photo.face.y + photo.face.height / 2
    let (sinTurn, cosTurn) = (sin(turn * .pi / 180), cos(turn * .pi / 180))
    let (sinTilt, cosTilt) = (sin(tilt * .pi / 180), cos(tilt * .pi / 180))
    for row in 0..<height {
      for column in 0..<width {
        // From the frame back to the photo: undo the projection, the turn, the tilt, the scale.
        let px = (Double(column) - x) / focal
        let py = (Double(row) - y) / focal
        let turnedX = px * distance / (cosTurn - px * sinTurn)
        let turnedY = py * (distance + turnedX * sinTurn)
        let planeX = turnedX * cosTilt + turnedY * sinTilt
        let planeY = -turnedX * sinTilt + turnedY * cosTilt
        let u = planeX / scale + faceX
        let v = planeY / scale + faceY
        let offset = (row * width + column) * 3
        guard u >= 0, v >= 0, u < Double(source.width - 1), v < Double(source.height - 1) else {
          for channel in 0..<3 { frame.pixels[offset + channel] = 90 }
          continue
        }
        let (u0, v0) = (Int(u), Int(v))
        let (fu, fv) = (u - Double(u0), v - Double(v0))
        for channel in 0..<3 {
          func at(_ x: Int, _ y: Int) -> Double { Double(source.pixels[(y * source.width + x) * 3 + channel]) }
          let top = at(u0, v0) * (1 - fu) + at(u0 + 1, v0) * fu
          let bottom = at(u0, v0 + 1) * (1 - fu) + at(u0 + 1, v0 + 1) * fu
          frame.pixels[offset + channel] = UInt8(max(0, min(255, (top * (1 - fv) + bottom * fv).rounded())))
        }
      }
    }
    return frame
  }

  /// Writes `frames` as a JPEG folder (0001.jpg, …) at `folder`, for `run --input`.
  public static func writeFolder(_ frames: [ImageBuffer], to folder: String) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let encoder = JPEGEncoder()
    for (index, frame) in frames.enumerated() {
      let bytes = try encoder.encode(frame, quality: 92)
      try Data(bytes).write(to: URL(fileURLWithPath: folder + String(format: "/%04d.jpg", index + 1)))
    }
  }
}
