import FaceEstimation
import Foundation
import Testing

@Suite("Face geometry")
struct FaceGeometryTests {
  /// A column-major 4×4 matrix of R = Ry(yaw) Rx(pitch) Rz(roll) (radians).
  func transform(yaw: Double, pitch: Double, roll: Double) -> [Float] {
    func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
      (0..<3).map { r in (0..<3).map { c in (0..<3).reduce(0) { $0 + a[r][$1] * b[$1][c] } } }
    }
    let ry = [[cos(yaw), 0, sin(yaw)], [0, 1, 0], [-sin(yaw), 0, cos(yaw)]]
    let rx = [[1, 0, 0], [0, cos(pitch), -sin(pitch)], [0, sin(pitch), cos(pitch)]]
    let rz = [[cos(roll), -sin(roll), 0], [sin(roll), cos(roll), 0], [0, 0, 1]]
    let r = multiply(multiply(ry, rx), rz)
    var m = [Float](repeating: 0, count: 16)
    for c in 0..<3 { for row in 0..<3 { m[c * 4 + row] = Float(r[row][c]) } }
    m[14] = -60
    m[15] = 1
    return m
  }

  @Test("the identity is a front-on face")
  func identity() throws {
    let pose = try #require(FaceGeometry.pose(fromTransform: transform(yaw: 0, pitch: 0, roll: 0)))
    #expect(abs(pose.yaw) < 1e-4 && abs(pose.pitch) < 1e-4 && abs(pose.roll) < 1e-4)
  }

  @Test("turning toward the image's right is a positive yaw (the person's own left)")
  func yaw() throws {
    let pose = try #require(FaceGeometry.pose(fromTransform: transform(yaw: 25 * .pi / 180, pitch: 0, roll: 0)))
    #expect(abs(pose.yaw - 25) < 0.01)
    #expect(abs(pose.pitch) < 0.01 && abs(pose.roll) < 0.01)
  }

  @Test("the forward axis tipping up (camera +y) is a positive pitch")
  func pitch() throws {
    // Rx with a negative angle turns +z toward +y.
    let pose = try #require(FaceGeometry.pose(fromTransform: transform(yaw: 0, pitch: -15 * .pi / 180, roll: 0)))
    #expect(abs(pose.pitch - 15) < 0.01)
    #expect(abs(pose.yaw) < 0.01 && abs(pose.roll) < 0.01)
  }

  @Test("yaw, pitch and roll come back apart when combined")
  func combined() throws {
    let pose = try #require(
      FaceGeometry.pose(fromTransform: transform(yaw: 0.3, pitch: -0.2, roll: 0.1)))
    #expect(abs(pose.yaw - 0.3 * 180 / .pi) < 0.01)
    #expect(abs(pose.pitch - 0.2 * 180 / .pi) < 0.01)
    #expect(abs(pose.roll + 0.1 * 180 / .pi) < 0.01)
    #expect(pose.mirrored == HeadPose(yaw: -pose.yaw, pitch: pose.pitch, roll: -pose.roll))
  }

  @Test("no pose from a matrix that is not 4×4 or not finite")
  func badMatrix() {
    #expect(FaceGeometry.pose(fromTransform: []) == nil)
    #expect(FaceGeometry.pose(fromTransform: [Float](repeating: .nan, count: 16)) == nil)
  }

  @Test("eye aspect ratio: lid gap over eye width")
  func eyeAspectRatio() throws {
    var points = [SIMD3<Float>](repeating: .zero, count: 6)
    points[0] = SIMD3(0, 0, 0)
    points[3] = SIMD3(30, 0, 0)
    points[1] = SIMD3(10, -5, 0)
    points[5] = SIMD3(10, 5, 0)
    points[2] = SIMD3(20, -4, 0)
    points[4] = SIMD3(20, 4, 0)
    let ratio = try #require(FaceGeometry.eyeAspectRatio(points, [0, 1, 2, 3, 4, 5]))
    #expect(abs(ratio - 18.0 / 60.0) < 1e-6)
    #expect(FaceGeometry.eyeAspectRatio(points, [0, 1, 2, 3, 4, 9]) == nil)
  }

  @Test("box overlap: shared area over the smaller box")
  func overlap() {
    let a = FaceBox(x: 0, y: 0, width: 100, height: 100)
    #expect(a.overlap(FaceBox(x: 10, y: 10, width: 20, height: 20)) == 1)
    #expect(a.overlap(FaceBox(x: 50, y: 0, width: 100, height: 100)) == 0.5)
    #expect(a.overlap(FaceBox(x: 200, y: 0, width: 10, height: 10)) == 0)
  }
}
