import Estimators
import Foundation
import Imaging
import JSONCore
import Measurements

/// The face estimator, handing an aligned crop of the most prominent face
/// to captures (a best shot's "face" image): the eyes level, at a fixed
/// distance apart and height, the way face descriptors expect their input.
public final class FaceCaptureEstimator: Estimator, CaptureImageProvider {
  let face: FaceEstimator
  /// Side of the square crop, pixels.
  static let side = 256
  /// The eyes' distance apart and their height, as shares of the side.
  static let eyeDistance = 0.36
  static let eyeHeight = 0.40
  private let crop = ImageBuffer(format: .rgb8)

  public init(_ face: FaceEstimator) { self.face = face }

  public var descriptor: EstimatorDescriptor { face.descriptor }
  public func prepare(schema: MeasurementSchema) throws(EstimatorError) { try face.prepare(schema: schema) }
  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    face.estimate(frame, into: &measurements)
  }

  public var captureImageNames: [String] { ["face"] }

  public func captureImage(named name: String, frame: DecodedFrame) -> ImageBuffer? {
    guard name == "face", let largest = face.faces.first, largest.landmarks.count > 362 else { return nil }
    let source = frame.hasColor ? frame.color : frame.gray
    guard source.width > 0, frame.sourceWidth > 0 || frame.width > 0 else { return nil }
    // Landmarks are in pixels of the frame as captured; the decoded frame may be smaller.
    let scale = Double(source.width) / Double(frame.sourceWidth > 0 ? frame.sourceWidth : frame.width)
    func point(_ index: Int) -> (Double, Double) {
      let p = largest.landmarks[index]
      return (Double(p.x) * scale, Double(p.y) * scale)
    }
    func mid(_ a: Int, _ b: Int) -> (Double, Double) {
      let (p, q) = (point(a), point(b))
      return ((p.0 + q.0) / 2, (p.1 + q.1) / 2)
    }
    // Eye centres from the corners of each eye, ordered left to right in the image.
    var eyes = [mid(33, 133), mid(362, 263)]
    if eyes[0].0 > eyes[1].0 { eyes.swapAt(0, 1) }
    let dx = eyes[1].0 - eyes[0].0
    let dy = eyes[1].1 - eyes[0].1
    let distance = (dx * dx + dy * dy).squareRoot()
    guard distance > 2 else { return nil }
    let side = Double(Self.side)
    // Output (u, v) → source: rotate by the eye line's angle and scale.
    let zoom = distance / (Self.eyeDistance * side)
    let cosA = dx / distance * zoom
    let sinA = dy / distance * zoom
    let centre = ((eyes[0].0 + eyes[1].0) / 2, (eyes[0].1 + eyes[1].1) / 2)
    let origin = (side / 2, Self.eyeHeight * side)
    crop.reshape(width: Self.side, height: Self.side, format: .rgb8)
    let channels = source.format.bytesPerPixel
    for v in 0..<Self.side {
      for u in 0..<Self.side {
        let x = Double(u) - origin.0
        let y = Double(v) - origin.1
        let sx = centre.0 + cosA * x - sinA * y
        let sy = centre.1 + sinA * x + cosA * y
        let out = crop.pixels + (v * Self.side + u) * 3
        let ix = Int(sx.rounded(.down))
        let iy = Int(sy.rounded(.down))
        guard ix >= 0, iy >= 0, ix + 1 < source.width, iy + 1 < source.height else {
          out[0] = 0
          out[1] = 0
          out[2] = 0
          continue
        }
        let fx = sx - Double(ix)
        let fy = sy - Double(iy)
        for c in 0..<3 {
          let channel = channels == 3 ? c : 0
          func at(_ x: Int, _ y: Int) -> Double { Double(source.pixels[(y * source.width + x) * channels + channel]) }
          let top = at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx
          let bottom = at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx
          out[c] = UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
        }
      }
    }
    return crop
  }
}

extension FaceCaptureEstimator: SelectiveEstimator {
  public func select(reads: [String]?) { face.select(reads: reads) }
}

extension FaceCaptureEstimator: OverlayDrawing {
  public func overlay() -> JSONObject { face.overlay() }
}
