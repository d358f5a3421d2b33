// Face recognition: the descriptor's cost per face (one core: OpenBLAS is
// held to one thread), the alignment's accuracy (face mesh against dlib's
// 5-point model) on the real photos, and 1:N search over 1k, 100k and 1M
// made-up faces in memory (the scan of `FaceIndex`).
import BenchSupport
import FaceEstimation
import FaceRecognition
import Foundation
import Gallery
import Imaging
import JSONCore
import Logging
import RunComposition
import Session

#if canImport(Glibc)
  import Glibc
#endif

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

  // Every face of the group photo is someone else again (5 people).
  let group = root + "/Tests/Fixtures/faces/multi_face.jpg"
  let astronaut = root + "/Tests/Fixtures/faces/astronaut.jpg"
  print("recognition: alignment accuracy on \(photos.count + 1) photos of 4 people and a group photo of 5 (distances)")
  for alignment in FaceAlignment.allCases {
    let reader = try StillFaces(face: face, recognizer: recognizer, alignment: alignment)
    var descriptors = try photos.map { try reader.describeSingleFace(at: $0).descriptor }
    var owners = people
    descriptors.append(try reader.describeSingleFace(at: astronaut).descriptor)
    owners.append("astronaut")
    let image = try reader.read(group)
    for (index, found) in try reader.faces(in: image).enumerated() {
      descriptors.append(try reader.describe(found, in: image).descriptor)
      owners.append("group\(index)")
    }
    var same: [Float] = []
    var different: [Float] = []
    for i in descriptors.indices {
      for j in descriptors.indices where j > i {
        let distance = descriptors[i].distance(to: descriptors[j])
        if owners[i] == owners[j] { same.append(distance) } else { different.append(distance) }
      }
    }
    let largestSame = same.max() ?? 0
    let smallestDifferent = different.min() ?? 0
    print(
      String(
        format:
          "  %-7@ %d faces: largest same-person %.4f (of %d pairs)  smallest different-person %.4f (of %d)  margin %.4f",
        alignment.rawValue, descriptors.count, largestSame, same.count, smallestDifferent, different.count,
        smallestDifferent - largestSame))
  }

  let reader = try StillFaces(face: face, recognizer: recognizer)
  let image = try reader.read(photos[0])
  guard let found = try reader.faces(in: image).first else { return }
  guard let points = AlignmentPoints(mesh: found.landmarks) else { return }
  _ = try recognizer.describe(image, at: points)
  var perFace: [Double] = []
  for _ in 0..<runs {
    let start = benchNanoseconds()
    for _ in 0..<10 { _ = try recognizer.describe(image, at: points) }
    perFace.append(Double(benchNanoseconds() - start) / 10 / 1e6)
  }
  print(String(format: "recognition: descriptor %.1f ms per face (median of %d runs of 10)", middle(perFace), runs))

  try benchVerifyFlow(reader: reader, root: root, runs: max(3, runs / 2))

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
      let start = benchNanoseconds()
      _ = index.search(query, top: 5)
      latencies.append(Double(benchNanoseconds() - start) / 1e6)
    }
    print(
      String(
        format: "recognition: identify top 5 among %7d faces: %8.3f ms (median of %d)", size, middle(latencies),
        latencies.count))
  }
}

/// The whole verify flow (a blink, the best shot described, the match
/// against a one-person gallery) on the bundled recording, against the
/// blink flow alone on the same frames: frames/s from start to result,
/// model loading included.
private func benchVerifyFlow(reader: StillFaces, root: String, runs: Int) throws {
  let folder = NSTemporaryDirectory() + "workbench-bench-gallery-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let location = folder + "/people.sqlite"
  let man = try reader.describeSingleFace(at: root + "/Tests/Fixtures/frames/0040.jpg")
  _ = try SQLiteGallery(path: location).enroll(
    Enrollment(
      user: GalleryUser(id: "man", name: "man"),
      faces: [NewFace(descriptor: man.descriptor, imageSHA256: "", source: "0040.jpg")]))
  let recording = root + "/examples/recordings/face-blink.avi"
  var rates: [String: Double] = [:]
  for (flow, settings) in [
    ("liveness-blink", [String]()), ("verify", ["user=man", "gallery.location=\(location)"]),
  ] {
    var options = RunOptions(flow: RunSettings.flowOptions(root + "/examples/\(flow).lua"), input: .file(recording))
    options.flow.assignments = settings
    let events = folder + "/events.jsonl"
    options.eventsPath = events
    var perRun: [Double] = []
    for _ in 0..<runs {
      let start = benchNanoseconds()
      let outcome = RunSession.run(options, logger: Logger(label: "bench"))
      let seconds = Double(benchNanoseconds() - start) / 1e9
      let last = (try? String(contentsOfFile: events, encoding: .utf8))?.split(separator: "\n").last.map(String.init)
      let frames = last.flatMap { try? JSONParser.parse($0) }?["frames"]?.doubleValue
      guard outcome.result?.success == true, let frames else {
        throw MissingResult(flow: flow, reason: outcome.result?.reason ?? "no result")
      }
      perRun.append(frames / seconds)
    }
    rates[flow] = middle(perRun)
    print(
      String(
        format: "recognition: %@ flow on the bundled recording: %.1f frames/s (median of %d)", flow, middle(perRun),
        runs))
  }
  if let verify = rates["verify"], let blink = rates["liveness-blink"] {
    print(String(format: "recognition: verify / blink alone: %.2f", verify / blink))
  }
}

private struct MissingResult: Error, CustomStringConvertible {
  var flow: String
  var reason: String
  var description: String { "the \(flow) flow did not pass in the benchmark: \(reason)" }
}
