import Foundation
import Imaging
import JSONCore
import TestSupport
import Testing

/// The flow that checks image quality: it passes on the fixture frames once
/// they have held for half a second (frame 15 at 30 fps).
let imageQualityFlow = "examples/image-quality.lua"

/// The fixture frames the recordings are built from, in the order they repeat.
private let fixtureFrameNames = ["0001", "0002", "0003", "0040"]

/// How many frames the built recordings hold: about a second at 30 fps.
let recordingFrameCount = 32

/// The bytes of one fixture JPEG (Tests/Fixtures/frames/NAME.jpg).
func fixtureJPEG(_ name: String) throws -> [UInt8] {
  let path = packageRoot + "/Tests/Fixtures/frames/\(name).jpg"
  return Array(try #require(FileManager.default.contents(atPath: path), "no fixture frame \(path)"))
}

/// `count` JPEG frames: the fixture frames repeated in order.
func fixtureFrames(count: Int = recordingFrameCount) throws -> [[UInt8]] {
  let distinct = try fixtureFrameNames.map(fixtureJPEG)
  return (0..<count).map { distinct[$0 % distinct.count] }
}

/// The formats a recording can have, each built at test time from the fixture frames.
enum RecordingKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case jpegFolder = "jpeg-folder"
  case mjpeg
  case avi
  case y4m

  var testDescription: String { rawValue }

  /// What the session record's `input.kind` says for it.
  var inputKind: String { rawValue }
}

/// Writes the recordings the tests read.
enum RecordingBuilder {
  /// A folder of numbered JPEG files.
  static func jpegFolder(in folder: TemporaryFolder, name: String = "frames", count: Int = recordingFrameCount)
    throws -> String
  {
    let path = try folder.subfolder(name)
    for (index, jpeg) in try fixtureFrames(count: count).enumerated() {
      let file = path + "/" + String(format: "%04d.jpg", index + 1)
      try Data(jpeg).write(to: URL(fileURLWithPath: file))
    }
    return path
  }

  /// An MJPEG stream: the JPEGs one after another.
  static func mjpeg(in folder: TemporaryFolder, name: String = "frames.mjpeg", count: Int = recordingFrameCount)
    throws -> String
  {
    let path = folder.file(name)
    try Data(try fixtureFrames(count: count).flatMap { $0 }).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// An MJPEG AVI made by `workbench record` from a JPEG folder at 30 fps.
  static func avi(
    in folder: TemporaryFolder, name: String = "frames.avi", count: Int = recordingFrameCount,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let frames = try jpegFolder(in: folder, name: "avi-source", count: count)
    let path = folder.file(name)
    let outcome = try workbench(
      ["record", "--input", frames, "--fps", "30", "--out", path], folder: folder, sourceLocation: sourceLocation)
    try #require(outcome.status == 0, "\(outcome)", sourceLocation: sourceLocation)
    return path
  }

  /// A YUV4MPEG2 4:2:0 file: the fixture frames' luma, with neutral chroma.
  static func y4m(in folder: TemporaryFolder, name: String = "frames.y4m", count: Int = recordingFrameCount)
    throws -> String
  {
    let decoder = JPEGDecoder()
    var planes: [String: [UInt8]] = [:]
    var width = 0
    var height = 0
    for name in fixtureFrameNames {
      let image = ImageBuffer(format: .gray8)
      try decoder.decode(try fixtureJPEG(name), into: image, format: .gray8)
      if width == 0 {
        width = image.width
        height = image.height
      }
      try #require(image.width == width && image.height == height, "the fixture frames differ in size")
      let luma = Array(UnsafeBufferPointer(start: image.pixels, count: image.width * image.height))
      let chroma = [UInt8](repeating: 128, count: ((width + 1) / 2) * ((height + 1) / 2))
      planes[name] = luma + chroma + chroma
    }
    var bytes = Array("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n".utf8)
    for index in 0..<count {
      bytes += Array("FRAME\n".utf8)
      bytes += try #require(planes[fixtureFrameNames[index % fixtureFrameNames.count]])
    }
    let path = folder.file(name)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The recording of `kind`, and the options `run` needs to read it.
  static func build(_ kind: RecordingKind, in folder: TemporaryFolder) throws -> (path: String, options: [String]) {
    switch kind {
    case .jpegFolder: return (try jpegFolder(in: folder), ["--fps", "30"])
    case .mjpeg: return (try mjpeg(in: folder), [])
    case .avi: return (try avi(in: folder), [])
    case .y4m: return (try y4m(in: folder), [])
    }
  }

  /// `count` bytes that are neither a trace (no leading `{`) nor any
  /// recording's magic, the same on every run.
  static func noise(count: Int) -> [UInt8] {
    var state: UInt32 = 0x1234_5678
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    for _ in 0..<count {
      state = state &* 1_664_525 &+ 1_013_904_223
      bytes.append(UInt8(truncatingIfNeeded: state >> 24))
    }
    bytes[0] = 0x42
    return bytes
  }
}

/// The `input` object of the session record (the first record).
func sessionInput(_ records: [JSONValue], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
  let session = try #require(records.first, sourceLocation: sourceLocation)
  #expect(session["type"] == "session", sourceLocation: sourceLocation)
  return try #require(session["input"], "the session record has no input", sourceLocation: sourceLocation)
}

/// The exit status a finished flow's result stands for.
func expectedStatus(of result: JSONValue) -> Int32 { result["success"] == true ? 0 : 1 }

/// Runs `workbench` in the package root with `environment` added to the test's
/// own (`Launched` always removes WORKBENCH_HOME, so plugin tests use this).
func workbenchWithEnvironment(
  _ arguments: [String], folder: TemporaryFolder, environment: [String: String],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Outcome {
  let binary = try #require(
    workbenchBinary, "the workbench binary was not found; run swift build --build-tests", sourceLocation: sourceLocation
  )
  let id = UUID().uuidString
  let stdoutPath = folder.path + "/stdout-\(id).txt"
  let stderrPath = folder.path + "/stderr-\(id).txt"
  _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
  _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: binary)
  process.arguments = arguments
  process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
  var merged = ProcessInfo.processInfo.environment
  merged.removeValue(forKey: "WORKBENCH_HOME")
  merged.removeValue(forKey: "WORKBENCH_LICENSE_PUBLIC_KEY")
  // Runs check the test license, never one of the machine (as `Launched` does).
  merged["WORKBENCH_LICENSE_CONFIG"] = TestLicense.files.config
  for (key, value) in environment { merged[key] = value }
  process.environment = merged
  process.standardInput = FileHandle.nullDevice
  process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
  process.standardError = FileHandle(forWritingAtPath: stderrPath)
  try process.run()
  // A safety limit so that a hung run cannot hang the suite; not a timing check.
  let deadline = Date().addingTimeInterval(300)
  while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
  if process.isRunning {
    Issue.record("workbench \(arguments) did not finish; killed", sourceLocation: sourceLocation)
    kill(process.processIdentifier, SIGKILL)
  }
  process.waitUntilExit()
  return Outcome(
    status: process.terminationStatus,
    stdout: String(decoding: FileManager.default.contents(atPath: stdoutPath) ?? Data(), as: UTF8.self),
    stderr: String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self),
    signaled: process.terminationReason == .uncaughtSignal)
}
