import Foundation
import Imaging
import JSONCore
import TestSupport
import Testing

/// The face flows on the bundled real recording, measured by the face
/// estimator (installed by scripts/install-deps).
@Suite struct FaceFlowTests {
  private let recording = "examples/recordings/face-blink.avi"

  @Test func theBlinkInTheRecordingPassesTheBlinkInteraction() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", "examples/liveness-blink.lua", "--input", recording, "--quiet", "--events", folder.file("e.jsonl")],
      folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let statuses = try events(folder.file("e.jsonl")).filter { $0["type"] == "status" }
    let closed = try #require(statuses.first { $0["status"] == "EYES_CLOSED" })
    let again = try #require(statuses.first { $0["status"] == "EYES_OPENED_AGAIN" })
    // Ground truth: eyes closed at frames 26-28, the blink over by frame 30.
    #expect((25...27).contains(closed["frame"]?.integerValue ?? -1), "\(closed)")
    #expect((28...31).contains(again["frame"]?.integerValue ?? -1), "\(again)")
  }

  @Test func theBestShotIsCapturedWithAnAlignedFaceCrop() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let out = folder.file("out")
    let outcome = try workbench(
      [
        "run", "examples/best-shot.lua", "--input", recording, "--quiet", "--artifacts", out,
        "--set", "best_shot.min_face_px=100", "--events", folder.file("e.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let crop = try #require(FileManager.default.contents(atPath: out + "/best_shot.face.jpg"))
    let size = try JPEGDecoder().readHeader([UInt8](crop))
    #expect(size.width == 256 && size.height == 256, "\(size)")
    #expect(FileManager.default.fileExists(atPath: out + "/best_shot.jpg"))
    let record = try result(events(folder.file("e.jsonl")))
    #expect(record["captures"]?["best_shot"]?["images"]?["face"] == .string(out + "/best_shot.face.jpg"))
  }

  @Test func aFaceTooSmallForTheDefaultsIsRejectedAsTooFar() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      [
        "run", "examples/best-shot.lua", "--input", recording, "--quiet", "--set", "best_shot.timeout=1",
        "--events", folder.file("e.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let records = try events(folder.file("e.jsonl"))
    #expect(try result(records)["code"] == 1016)
    let rejected = try #require(records.first { $0["status"] == "FRAME_REJECTED" })
    #expect(rejected["codes"] == .array([.integer(1016)]), "\(rejected)")
  }

  @Test func aFaceModelThatDoesNotLoadIsLUNAsInitializationError1000() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("broken.task", "not a model")
    let outcome = try workbench(
      [
        "run", "examples/best-shot.lua", "--input", recording, "--quiet", "--set",
        "face.model=" + folder.file("broken.task"), "--events", folder.file("e.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("broken.task"), "\(outcome.stderr)")
    let record = try result(events(folder.file("e.jsonl")))
    #expect(record["code"] == 1000)
    #expect(record["reason"] == "initialization_failed")
    // A flow that gives the reason no code keeps the usage error's.
    let other = try workbench(
      [
        "run", "examples/liveness-blink.lua", "--input", recording, "--quiet", "--set",
        "face.model=" + folder.file("broken.task"), "--events", folder.file("b.jsonl"),
      ], folder: folder)
    #expect(other.status == 2)
    #expect(try result(events(folder.file("b.jsonl")))["code"] == -2)
  }

  @Test func withoutTheBackendAFaceFlowNamesTheCommandThatInstallsIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", "examples/liveness-blink.lua", "--input", recording, "--quiet"], folder: folder,
      environment: ["WORKBENCH_MEDIAPIPE_LIB": folder.file("nothere/libmediapipe.so")])
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("scripts/install-face-backend"), "\(outcome)")
    // Flows that read no face measurements run without it.
    let quality = try workbench(
      ["run", "examples/image-quality.lua", "--input", recording, "--quiet"], folder: folder,
      environment: ["WORKBENCH_MEDIAPIPE_LIB": folder.file("nothere/libmediapipe.so")])
    #expect(quality.status == 0, "\(quality)")
  }
}

/// A still photograph held to the camera: a real face that never moves.
@Suite struct StillPhotoTests {
  /// A folder of `count` copies of a real portrait, played at 30 fps.
  private func stillPhoto(_ folder: TemporaryFolder, count: Int = 200) throws -> String {
    let frames = try folder.subfolder("still")
    let photo = try #require(FileManager.default.contents(atPath: packageRoot + "/Tests/Fixtures/frames/obama-480.jpg"))
    for index in 0..<count {
      try photo.write(to: URL(fileURLWithPath: frames + String(format: "/%04d.jpg", index)))
    }
    return frames
  }

  @Test func aStillPhotoNeverPassesABlink() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try stillPhoto(folder)
    let outcome = try workbench(
      [
        "run", "examples/liveness-blink.lua", "--input", input, "--fps", "30", "--quiet", "--events",
        folder.file("e.jsonl"),
      ],
      folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let records = try events(folder.file("e.jsonl"))
    #expect(try result(records)["code"] == 1007)
    let statuses = records.compactMap { $0["status"]?.stringValue }
    #expect(statuses.contains("EYES_OPENED"), "the face was seen: \(statuses)")
    #expect(!statuses.contains("EYES_CLOSED"))
  }

  @Test func aStillPhotoNeverPassesAHeadTurn() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try stillPhoto(folder)
    // Seed 2 draws turn left, look up, look down.
    let outcome = try workbench(
      [
        "run", "examples/liveness-random.lua", "--input", input, "--fps", "30", "--seed", "2", "--quiet", "--events",
        folder.file("e.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let records = try events(folder.file("e.jsonl"))
    #expect(try result(records)["code"] == 1007)
    #expect(!records.contains { $0["status"] == "INTERACTION_SUCCESS" })
  }
}
