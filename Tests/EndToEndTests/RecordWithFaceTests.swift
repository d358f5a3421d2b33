import Foundation
import Imaging
import JSONCore
import TestSupport
import Testing

/// A JPEG folder of `count` frames with no face in them: a textured wall.
private func wallFrames(in folder: TemporaryFolder, count: Int = 30) throws -> String {
  let path = try folder.subfolder("wall")
  let image = ImageBuffer(width: 320, height: 240, format: .rgb8)
  for index in 0..<image.byteCount { image.pixels[index] = UInt8(index % 7 * 20) }
  let jpeg = try JPEGEncoder().encode(image, quality: 90)
  for index in 0..<count {
    try Data(jpeg).write(to: URL(fileURLWithPath: path + "/" + String(format: "%04d.jpg", index + 1)))
  }
  return path
}

/// `--record-policy with-face` and `ignore-without-face`: LUNA ID's "record
/// only with a face" (the whole session, kept only when a face was seen).
@Suite struct RecordWithFaceTests {
  private let recording = "examples/recordings/face-blink.avi"

  @Test(arguments: ["with-face", "ignore-without-face"])
  func aSessionWithAFaceIsKeptWholeEvenWhenTheFlowReadsNoFace(_ policy: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let kept = folder.file("seen.avi")
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", imageQualityFlow, "--input", recording, "--record", kept, "--record-policy", policy, "--events",
        eventsPath, "--quiet",
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try events(eventsPath)
    // The image-quality flow reads no face: the policy runs the face estimator.
    #expect(try sessionInput(records)["estimators"]?.arrayValue?.contains("face.mediapipe") == true)
    let end = try result(records)
    let written = try #require(end["outputs"]?["recording"])
    #expect(written["kept"] == true, "\(written)")
    #expect(written["policy"] == .string(policy))
    #expect(written["frames"] == end["frames"])
    #expect(folder.listing.filter { $0.hasPrefix("seen.avi") } == ["seen.avi", "seen.avi.timestamps.jsonl"])
    // Every frame the flow saw, not only those with a face.
    let sidecar = try #require(fileText(kept + ".timestamps.jsonl"))
    #expect(sidecar.split(separator: "\n").count - 1 == end["frames"]?.integerValue.map(Int.init))
  }

  @Test func aSessionWithoutAFaceLeavesNoRecordingAndAnOlderFileAlone() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try wallFrames(in: folder)
    let older = try folder.write("seen.avi", "an earlier recording")
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", "examples/liveness-blink.lua", "--input", input, "--record", older, "--record-policy",
        "ignore-without-face", "--events", eventsPath, "--quiet",
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    #expect(fileText(older) == "an earlier recording")
    #expect(folder.listing.filter { $0.hasPrefix("seen.avi") || $0.contains("pending") } == ["seen.avi"])
    let written = try #require(try result(events(eventsPath))["outputs"]?["recording"])
    #expect(written["kept"] == false, "\(written)")
    #expect(written["policy"] == "ignore-without-face")
    #expect(written["why"] == "no face was seen in the 30 frames the flow was given")
    #expect(written["frames"] == nil && written["timestamps"] == nil)
    #expect(
      outcome.stderr.contains(
        "\(older) was not kept (--record-policy ignore-without-face): no face was seen in the 30 frames"),
      "\(outcome)")
  }

  @Test func theSignatureCoversNeitherADroppedRecordingNorAnOlderFileAtItsPath() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try wallFrames(in: folder)
    let flow = try folder.write(
      "cap.lua",
      """
      local wb = require "wb"
      return wb.flow { name = "cap", steps = {
        wb.step { name = "ten frames", needs = { "image.width" }, update = function(self, m, ctx)
          if m.frame == 5 then ctx.capture("first") end
          if m.frame == 10 then ctx.capture("second"); return true end
        end } } }
      """)
    let out = try folder.subfolder("out")
    let older = try folder.write("out/session.avi", "an earlier recording")
    let eventsPath = folder.file("events.jsonl")
    let run = try workbench(
      [
        "run", flow, "--input", input, "--quiet", "--record", older, "--record-policy", "with-face", "--artifacts",
        out, "--set", "integrity.signing_key=\(TestLicense.files.privateKey)", "--events", eventsPath,
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    let outputs = try #require(try result(events(eventsPath))["outputs"])
    #expect(outputs["recording"]?["kept"] == false)
    #expect(outputs["signature"] == .string(out + "/signature.json"))
    let verify = try workbench(["verify", out, "--public-key", TestLicense.files.publicKey], folder: folder)
    #expect(verify.status == 0, "\(verify)")
    let signed = verify.stdout.split(separator: "\n").filter { $0.hasPrefix("file ") }
    #expect(
      signed.count == 2 && signed.allSatisfy { $0.contains("first.jpg") || $0.contains("second.jpg") }, "\(verify)")
    #expect(fileText(older) == "an earlier recording")
  }

  @Test func withoutTheFaceBackendTheRunStopsAndNamesTheCommandThatInstallsIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", imageQualityFlow, "--input", recording, "--record", folder.file("seen.avi"), "--record-policy",
        "with-face", "--set", "face.model=\(folder.file("none.task"))", "--events", eventsPath, "--quiet",
      ], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("scripts/install-face-backend"), "\(outcome)")
    let end = try result(events(eventsPath))
    #expect(end["reason"] == "initialization_failed", "the face estimator could not start")
    #expect(end["outputs"]?["recording"]?["kept"] == false)
    #expect(!FileManager.default.fileExists(atPath: folder.file("seen.avi")))
  }

  @Test func theFailedPolicyNamesWhyItDroppedTheRecording() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", imageQualityFlow, "--input", recording, "--record", folder.file("seen.avi"), "--record-policy",
        "failed", "--events", eventsPath, "--quiet",
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let written = try #require(try result(events(eventsPath))["outputs"]?["recording"])
    #expect(written["kept"] == false)
    #expect(written["policy"] == "failed")
    #expect(written["why"] == "the flow passed")
    #expect(outcome.stderr.contains("(--record-policy failed): the flow passed"), "\(outcome)")
  }

  @Test func anUnknownPolicyListsTheLUNANames() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", recording, "--record", folder.file("x.avi"), "--record-policy", "faces"],
      folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(
      outcome.stderr.contains(
        "--record-policy takes one of: always, failed, passed, detections, with-face, ignore-without-face"),
      "\(outcome)")
  }
}
