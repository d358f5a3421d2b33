// Face recognition: the descriptor's cost per face (one core: OpenBLAS is
// held to one thread), the alignment's accuracy (face mesh against dlib's
// 5-point model) on the real photos, and 1:N search over 1k, 100k and 1M
// made-up faces in memory (the scan of `FaceIndex`).
import FaceEstimation
import FaceRecognition
import Foundation
import Gallery
import Imaging

#if canImport(Glibc)
  import Glibc
#endif

private func recognitionNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

private func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func runRecognitionBenchmarks() throws {
  let root = benchPackageRoot()
  let models = FaceRecognitionModels.resolve(home: root)
  let face = FaceEstimators.options(home: root)
  guard models.isInstalled, FaceEstimators.isInstalled(face) else {
    print("recognition: the models are not installed (scripts/install-face-backend); skipped")
    return
  }
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let recognizer = try FaceRecognizer(models: models)
  let photos = [
    "frames/obama-480.jpg", "people/obama2-480.jpg", "people/obama3-480.jpg", "frames/biden-480.jpg", "frames/0001.jpg",
    "frames/0027.jpg",
  ].map { root + "/Tests/Fixtures/" + $0 }
  let people = ["obama", "obama", "obama", "biden", "blink", "blink"]

  print("recognition: alignment accuracy on \(photos.count) real photos of 3 people (distances)")
  for alignment in FaceAlignment.allCases {
    let reader = try StillFaces(face: face, recognizer: recognizer, alignment: alignment)
    let descriptors = try photos.map { try reader.describeSingleFace(at: $0).descriptor }
    var same: [Float] = []
    var different: [Float] = []
    for i in descriptors.indices {
      for j in descriptors.indices where j > i {
        let distance = descriptors[i].distance(to: descriptors[j])
        if people[i] == people[j] { same.append(distance) } else { different.append(distance) }
      }
    }
    let largestSame = same.max() ?? 0
    let smallestDifferent = different.min() ?? 0
    print(
      String(
        format: "  %-7@ largest same-person %.4f  smallest different-person %.4f  margin %.4f", alignment.rawValue,
        largestSame, smallestDifferent, smallestDifferent - largestSame))
  }

  let reader = try StillFaces(face: face, recognizer: recognizer)
  let image = try reader.read(photos[0])
  guard let found = try reader.faces(in: image).first else { return }
  guard let points = AlignmentPoints(mesh: found.landmarks) else { return }
  _ = try recognizer.describe(image, at: points)
  var perFace: [Double] = []
  for _ in 0..<runs {
    let start = recognitionNanoseconds()
    for _ in 0..<10 { _ = try recognizer.describe(image, at: points) }
    perFace.append(Double(recognitionNanoseconds() - start) / 10 / 1e6)
  }
  print(String(format: "recognition: descriptor %.1f ms per face (median of %d runs of 10)", middle(perFace), runs))

  let sizes = (ProcessInfo.processInfo.environment["BENCH_GALLERY_SIZES"] ?? "1000,100000,1000000")
    .split(separator: ",").compactMap { Int($0) }
  var state: UInt64 = 0x9E37_79B9_7F4A_7C15
  func next() -> Float {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 4000
  }
  for size in sizes {
    var stored: [StoredDescriptor] = []
    stored.reserveCapacity(size)
    for index in 0..<size {
      // 5 faces a user, as an enrollment of 5 photos gives.
      let descriptor = FaceDescriptor(values: (0..<128).map { _ in next() })!
      stored.append(StoredDescriptor(faceID: Int64(index), userID: "u\(index / 5)", descriptor: descriptor))
    }
    let index = FaceIndex(stored, revision: 0)
    stored = []
    let query = FaceDescriptor(values: (0..<128).map { _ in next() })!
    _ = index.search(query, top: 5)
    var latencies: [Double] = []
    for _ in 0..<max(runs, 5) {
      let start = recognitionNanoseconds()
      _ = index.search(query, top: 5)
      latencies.append(Double(recognitionNanoseconds() - start) / 1e6)
    }
    print(
      String(
        format: "recognition: identify top 5 among %7d faces: %8.3f ms (median of %d)", size, middle(latencies),
        latencies.count))
  }
}
