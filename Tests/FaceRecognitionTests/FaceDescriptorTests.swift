import FaceRecognition
import Testing

@Suite struct FaceDescriptorTests {
  @Test func bytesRoundTripExactly() throws {
    let values = (0..<128).map { Float($0) * 0.01 - 0.5 }
    let descriptor = try #require(FaceDescriptor(values: values))
    #expect(descriptor.bytes.count == 512)
    #expect(FaceDescriptor(bytes: descriptor.bytes) == descriptor)
    #expect(Array(descriptor.bytes[4..<8]) == [0x48, 0xE1, 0xFA, 0xBE])  // -0.49 as little-endian float32
  }

  @Test func rejectsWrongLengthsAndNonNumbers() {
    #expect(FaceDescriptor(values: [Float](repeating: 0, count: 127)) == nil)
    #expect(FaceDescriptor(values: [Float](repeating: .nan, count: 128)) == nil)
    #expect(FaceDescriptor(bytes: [UInt8](repeating: 0, count: 511)) == nil)
  }

  @Test func distanceIsEuclidean() throws {
    var values = [Float](repeating: 0, count: 128)
    let origin = try #require(FaceDescriptor(values: values))
    values[0] = 3
    values[127] = 4
    let other = try #require(FaceDescriptor(values: values))
    #expect(origin.distance(to: other) == 5)
    #expect(other.distance(to: origin) == 5)
    #expect(FaceMatch(distance: 0.59, threshold: 0.6).isMatch)
    #expect(!FaceMatch(distance: 0.6, threshold: 0.6).isMatch)
  }

  @Test func meshPointsFollowDlibsOrderWhateverTheMirror() throws {
    var mesh = [SIMD3<Float>](repeating: .zero, count: 478)
    mesh[33] = SIMD3(100, 100, 0)  // the person's right eye, outer corner: the image's left
    mesh[133] = SIMD3(130, 101, 0)
    mesh[362] = SIMD3(170, 101, 0)
    mesh[263] = SIMD3(200, 100, 0)
    mesh[2] = SIMD3(150, 150, 0)
    let points = try #require(AlignmentPoints(mesh: mesh, scale: 2))
    #expect(points.points == [SIMD2(400, 200), SIMD2(340, 202), SIMD2(200, 200), SIMD2(260, 202), SIMD2(300, 300)])
    // Mirrored, the mesh's eyes swap sides; the points stay in image order.
    for index in [33, 133, 362, 263, 2] { mesh[index].x = 300 - mesh[index].x }
    let mirrored = try #require(AlignmentPoints(mesh: mesh))
    #expect(mirrored.points.map(\.x) == [200, 170, 100, 130, 150])
    #expect(AlignmentPoints(mesh: Array(mesh.prefix(300))) == nil)
  }
}
