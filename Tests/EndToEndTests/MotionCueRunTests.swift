import FaceEstimationTesting
import Foundation
import Imaging
import JSONCore
import TestSupport
import Testing

/// Photo swaps shown to whole runs of the interactions, on the real face
/// estimator: the frames are bundled photos placed in a frame at test time
/// (PhotoStage). Each attack passes with the motion limit raised out of the
/// way, which is how it passed before face.pose_jump.
@Suite(.requires(FaceBackendInstall.landmarks), .serialized)
struct MotionCueRunTests {
  /// A flow of one interaction step, written as Lua.
  func flow(_ step: String, in folder: TemporaryFolder) throws -> String {
    try folder.write(
      "flow.lua",
      """
      local wb = require "wb"
      return wb.flow { name = "interaction", time_limit = 30, steps = { \(step) } }
      """)
  }

  /// The result event of a run of `flow` on `frames`, and its exit status.
  func run(_ flow: String, frames: [ImageBuffer], in folder: TemporaryFolder, set: [String] = [])
    throws -> (status: Int32, result: JSONValue)
  {
    let input = folder.file("frames-\(UUID().uuidString.prefix(8))")
    try PhotoStage.writeFolder(frames, to: input)
    let outcome = try workbench(
      ["run", flow, "--input", input, "--events", "-", "--quiet"] + set.flatMap { ["--set", $0] }, folder: folder)
    let last = try #require(outcome.stdout.split(separator: "\n").last)
    return (outcome.status, try JSONParser.parse(bytes: Array(last.utf8)))
  }

  func expectJump(_ step: String, _ frames: [ImageBuffer]) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try flow(step, in: folder)
    let attacked = try run(flow, frames: frames, in: folder)
    #expect(attacked.status == 1)
    #expect(attacked.result["reason"]?.stringValue == "pose_jump", "\(attacked.result)")
    #expect(attacked.result["code"]?.doubleValue == 1018)
    let unchecked = try run(flow, frames: frames, in: folder, set: ["motion.max_deg_per_s=5000"])
    #expect(unchecked.status == 0, "without the limit the swap passes: \(unchecked.result)")
  }

  @Test func aPhotoSwappedForATurnedOneFailsTheHeadTurn() throws {
    let front = PhotoStage.frame(try .obama())
    let turned = PhotoStage.frame(try .biden())
    try expectJump(
      #"wb.head_turn { direction = "left", end_angle = 12 }"#,
      Array(repeating: front, count: 8) + Array(repeating: turned, count: 8))
  }

  @Test func aPhotoSwappedForOneLookingDownFailsTheHeadPitch() throws {
    let front = PhotoStage.frame(try .obama())
    let down = PhotoStage.frame(try .astronaut())
    try expectJump(
      #"wb.head_pitch { direction = "down", end_angle = 9 }"#,
      Array(repeating: front, count: 8) + Array(repeating: down, count: 8))
  }

  @Test func aPhotoWithShutEyesSwappedInAndOutFailsTheBlink() throws {
    let open = PhotoStage.frame(try .eyesOpen())
    // Two photos are never held alike: the one with shut eyes is tilted.
    let shut = PhotoStage.frame(try .eyesShut(), tilt: 15)
    try expectJump(
      "wb.blink { }",
      Array(repeating: open, count: 12) + Array(repeating: shut, count: 4) + Array(repeating: open, count: 8))
  }

  @Test func theBundledRecordingOfARealHeadNeverJumps() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      [
        "run", "examples/liveness-blink.lua", "--input", "examples/recordings/face-blink.avi", "--trace-out",
        folder.file("t.jsonl"), "--quiet",
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let frames = try (fileText(folder.file("t.jsonl")) ?? "").split(separator: "\n").dropFirst().map {
      try JSONParser.parse(bytes: Array($0.utf8))
    }
    let jumps = frames.compactMap { $0["face"]?["pose_jump"] }
    #expect(jumps.count > 20)
    #expect(jumps.allSatisfy { $0 == .bool(false) })
  }
}
