import Foundation
import JSONCore
import TestSupport
import Testing

/// The HKID 2018 flow on a rendered recording, measured by the card
/// estimator, with its artifacts signed and checked.
@Suite struct HKIDRenderedTests {
  @Test func aRenderedFlipPassesAndItsSignedArtifactsVerify() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let scene = folder.file("scene.avi")
    let synth = try workbench(
      ["synth", "card", "--schedule", "examples/synth/hkid-2018-pass.json", "--out", scene, "--size", "640x360"],
      folder: folder)
    #expect(synth.status == 0, "\(synth)")
    #expect(FileManager.default.fileExists(atPath: scene + ".truth.jsonl"))

    let out = folder.file("out")
    let run = try workbench(
      [
        "run", "examples/hkid-2018.lua", "--input", scene, "--quiet", "--events", folder.file("events.jsonl"),
        "--record", out + "/session.avi", "--artifacts", out,
        "--set", "integrity.signing_key=\(TestLicense.files.privateKey)",
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    let records = try events(folder.file("events.jsonl"))
    let statuses = records.filter { $0["type"] == "status" }.compactMap { $0["status"]?.stringValue }
    #expect(statuses == ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "RESET", "COMPLETE"], "\(statuses)")
    let first = try #require(records.first { $0["type"] == "intermediate" })
    #expect(first["code"] == 1)
    #expect(first["images"]?["card"] == .string(out + "/first.card.jpg"), "\(first)")
    #expect(first["images"]?["portrait"] == .string(out + "/first.portrait.jpg"))
    let success = try result(records)
    #expect(success["captures"]?["complete"]?["images"]?["portrait"] == .string(out + "/complete.portrait.jpg"))
    // The rendered card's drawn face is found by the face backend (scripts/install-deps installs it).
    let captures = records.filter { $0["type"] == "capture" }
    #expect(captures.map { $0["methods"]?["portrait"] } == ["face", "face", "face"], "\(captures)")
    #expect(success["captures"]?["complete"]?["methods"]?["portrait"] == "face")
    for name in ["first", "second", "complete"] {
      for suffix in [".jpg", ".card.jpg", ".portrait.jpg"] {
        let data = try #require(FileManager.default.contents(atPath: out + "/" + name + suffix), "\(name)\(suffix)")
        #expect(data.prefix(2) == Data([0xFF, 0xD8]))
      }
    }

    let verify = ["verify", out, "--public-key", TestLicense.files.publicKey]
    let good = try workbench(verify, folder: folder)
    #expect(good.status == 0, "\(good)")
    #expect(good.stdout.contains("timestamps  start 0.000 s | first "), "\(good)")
    #expect(good.stdout.contains(" | second "))
    #expect(good.stdout.contains(" | complete "))
    for file in ["session.avi", "first.card.jpg"] {
      let path = out + "/" + file
      let original = try #require(FileManager.default.contents(atPath: path))
      var bytes = [UInt8](original)
      bytes[bytes.count / 2] ^= 0x10
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      let changed = try workbench(verify, folder: folder)
      #expect(changed.status == 1, "\(file): \(changed)")
      try original.write(to: URL(fileURLWithPath: path))
    }
  }
}
