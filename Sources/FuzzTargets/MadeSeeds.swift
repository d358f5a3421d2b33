import Capture
import Foundation
import Imaging
import JSONCore
import LicenseActivation
import Licensing

/// Small, valid inputs made in code: a fuzzer learns a format fastest from
/// a few short examples that reach deep into its parser.
enum MadeSeeds {
  // MARK: - Licenses

  /// A fixed key, so that the seeds and the target agree on who signs.
  static let licenseKey = LicensePrivateKey(rawRepresentation: Data((1...32).map { UInt8($0) }))!
  static let product = "workbench"
  static let fingerprint = MachineFingerprint(identity: "fuzz-machine")
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  @Sendable static func licenses() -> [[UInt8]] {
    let issuer = LicenseIssuer(privateKey: licenseKey)
    let licenses = [
      License(
        id: "f0", product: product, eid: "11111111-2222-3333-4444-555555555555", binding: .machine(fingerprint),
        issued: now.addingTimeInterval(-86_400), expires: now.addingTimeInterval(86_400 * 30),
        features: ["face", "card"]),
      License(
        id: "f1", product: product, eid: "e", binding: .container, issued: now.addingTimeInterval(-10),
        expires: now.addingTimeInterval(-5), features: []),
    ]
    return licenses.compactMap { try? issuer.issue($0) }.map { Array($0) }
  }

  @Sendable static func propertyLists() -> [[UInt8]] {
    let entries: [String: Any] = [
      "EID": "11111111-2222-3333-4444-555555555555", "ProductID": "workbench", "Server": "http://127.0.0.1:8740",
      "Timeout": 15, "ContainerMode": 0,
    ]
    return [PropertyListSerialization.PropertyListFormat.binary, .xml].compactMap {
      try? PropertyListSerialization.data(fromPropertyList: entries, format: $0, options: 0)
    }.map { Array($0) } + [
      Array(#"{ EID = "11111111-2222-3333-4444-555555555555"; ProductID = workbench; Server = "http://h"; }"#.utf8)
    ]
  }

  @Sendable static func activationRequests() -> [[UInt8]] {
    [
      ActivationRequest(eid: "11111111-2222-3333-4444-555555555555", product: product, binding: .machine(fingerprint)),
      ActivationRequest(eid: "e", product: "p", binding: .container),
    ].map { Array($0.jsonData) }
  }

  @Sendable static func activationAnswers() -> [[UInt8]] {
    [
      ActivationProblem(.unknownEID, "the EID is not known to this server"),
      ActivationProblem(reason: ActivationProblem.malformedRequest, message: "missing \"eid\""),
    ].map { Array($0.jsonData) }
  }

  // MARK: - Images and recordings

  /// A 16×16 gradient, as JPEG.
  static func jpeg(width: Int = 16, height: Int = 16, subsampling: JPEGSubsampling = .yuv420) -> [UInt8] {
    let image = ImageBuffer(width: width, height: height, format: .rgb8)
    for index in 0..<(width * height * 3) { image.pixels[index] = UInt8(truncatingIfNeeded: index * 7) }
    return (try? JPEGEncoder().encode(image, quality: 50, subsampling: subsampling)) ?? []
  }

  @Sendable static func jpegs() -> [[UInt8]] {
    [jpeg(), jpeg(width: 8, height: 24, subsampling: .yuv444), jpeg(width: 33, height: 7, subsampling: .gray)]
  }

  /// A PNG's signature and IHDR, and BMPs with the info header and the old core header.
  @Sendable static func photoHeaders() -> [[UInt8]] {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    let bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 12)
    return [
      png + [0, 0, 2, 0x80, 0, 0, 1, 0xE0, 8, 2, 0, 0, 0],
      bmp + [40, 0, 0, 0, 0x80, 2, 0, 0, 0x20, 0xFE, 0xFF, 0xFF, 1, 0, 24, 0],
      bmp + [12, 0, 0, 0, 0x80, 2, 0xE0, 1, 1, 0, 24, 0],
    ]
  }

  @Sendable static func mjpegStreams() -> [[UInt8]] {
    [jpeg() + jpeg() + jpeg(width: 8, height: 8)]
  }

  @Sendable static func aviRecordings() -> [[UInt8]] {
    let path = FuzzScratch.folder + "/seed.avi"
    defer {
      unlink(path)
      unlink(TimestampsSidecar.path(forRecording: path, isFolder: false))
    }
    guard let writer = try? AVIWriter(path: path, width: 16, height: 16, fps: 30) else { return [] }
    for frame in 0..<3 { try? writer.append(jpeg: jpeg(), t: Double(frame) / 30) }
    guard (try? writer.finish()) != nil, let bytes = FileManager.default.contents(atPath: path) else { return [] }
    return [Array(bytes)]
  }

  @Sendable static func y4mRecordings() -> [[UInt8]] {
    let frame420 = Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: 16 * 16 * 3 / 2)
    let frameMono = Array("FRAME\n".utf8) + [UInt8](repeating: 40, count: 8 * 8)
    return [
      Array("YUV4MPEG2 W16 H16 F30:1 Ip A1:1 C420jpeg\n".utf8) + frame420 + frame420,
      Array("YUV4MPEG2 W8 H8 F25:1 Cmono XYSCSS=MONO\n".utf8) + frameMono,
    ]
  }

  /// Tiny H.264 videos in MP4, MOV and MKV (four frames of 32×24), written by
  /// the recorder's own writer.
  @Sendable static func videoFiles() -> [[UInt8]] {
    let folder = NSTemporaryDirectory() + "workbench-fuzz-seeds-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var seeds: [[UInt8]] = []
    for name in ["seed.mp4", "seed.mov", "seed.mkv"] {
      let path = folder + "/" + name
      guard let writer = try? VideoFileWriter(path: path, width: 32, height: 24, fps: 30, dropsWhenBehind: false)
      else { continue }
      let image = ImageBuffer(width: 32, height: 24, format: .yuv420p)
      for index in 0..<4 {
        for offset in 0..<image.byteCount { image.pixels[offset] = UInt8(truncatingIfNeeded: offset &+ index &* 40) }
        try? writer.append(image: image, t: Double(index) / 30)
      }
      try? writer.finish()
      if let data = FileManager.default.contents(atPath: path) { seeds.append([UInt8](data)) }
    }
    return seeds
  }

  @Sendable static func sidecars() -> [[UInt8]] {
    var header = JSONObject()
    header["workbench_timestamps"] = .integer(1)
    header["device"] = "/dev/video0"
    let sidecar = TimestampsSidecar(header: header, times: [0: 0, 1: 0.033, 2: 0.0671, 5: 0.2])
    return [sidecar.encoded()]
  }
}
