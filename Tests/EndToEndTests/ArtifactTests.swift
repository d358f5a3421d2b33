import Foundation
import JSONCore
import Licensing
import TestSupport
import Testing

/// --artifacts keeps captured frames; with integrity.signing_key the run
/// signs them with its recording, and `workbench verify` checks them.
@Suite struct ArtifactTests {
  private let captureFlow = """
    local wb = require "wb"
    return wb.flow { name = "cap", steps = {
      wb.step { name = "ten frames", needs = { "image.width" }, update = function(self, m, ctx)
        if m.frame == 5 then ctx.capture("first") end
        if m.frame == 10 then ctx.capture("second"); return true end
      end } } }
    """

  private func flipByte(_ path: String, at offset: Int) throws {
    var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
    bytes[offset] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  @Test func aSignedRunVerifiesAndOneChangedByteOfAnyFileIsFound() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write("cap.lua", captureFlow)
    let out = folder.file("out")
    let run = try workbench(
      [
        "run", flow, "--input", "examples/recordings/face-blink.avi", "--quiet", "--record", out + "/session.avi",
        "--artifacts", out, "--set", "integrity.signing_key=\(TestLicense.files.privateKey)",
        "--events", folder.file("events.jsonl"),
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    #expect(
      Set(folder.listing(of: "out"))
        == ["first.jpg", "second.jpg", "session.avi", "session.avi.timestamps.jsonl", "signature.json"])
    let records = try events(folder.file("events.jsonl"))
    let captures = records.filter { $0["type"] == "capture" }
    #expect(captures.map { $0["name"] } == ["first", "second"])
    #expect(captures.first?["images"]?["frame"] == .string(out + "/first.jpg"))
    // The frame is kept as it came: the recording's own JPEG.
    let image = try #require(FileManager.default.contents(atPath: out + "/first.jpg"))
    #expect(image.prefix(2) == Data([0xFF, 0xD8]))

    let verify = ["verify", out, "--public-key", TestLicense.files.publicKey]
    let good = try workbench(verify, folder: folder)
    #expect(good.status == 0, "\(good)")
    #expect(
      good.stdout.contains("timestamps  start 0.000 s | first 0.167 s | second 0.333 s | stop 0.333 s"), "\(good)")
    #expect(good.stdout.hasSuffix("verifies    yes\n"), "\(good)")

    for file in ["session.avi", "first.jpg", "session.avi.timestamps.jsonl"] {
      let path = out + "/" + file
      let original = try #require(FileManager.default.contents(atPath: path))
      try flipByte(path, at: original.count / 2)
      let changed = try workbench(verify, folder: folder)
      #expect(changed.status == 1, "\(file): \(changed)")
      #expect(changed.stderr.contains("error: \(path): changed since it was signed"), "\(changed)")
      try original.write(to: URL(fileURLWithPath: path))
    }
    #expect(try workbench(verify, folder: folder).status == 0)

    // Another key, or a changed signature file.
    let other = try TestLicense.make(in: try folder.subfolder("other"), features: [])
    let wrongKey = try workbench(["verify", out, "--public-key", other.publicKey], folder: folder)
    #expect(wrongKey.status == 1, "\(wrongKey)")
    #expect(wrongKey.stderr.contains("the signature does not verify with public key"), "\(wrongKey)")
    let signature = out + "/signature.json"
    let text = try #require(fileText(signature))
    try text.replacingOccurrences(of: "\"payload\":\"ey", with: "\"payload\":\"ez").write(
      toFile: signature, atomically: true, encoding: .utf8)
    let forged = try workbench(verify, folder: folder)
    #expect(forged.status == 1, "\(forged)")

    try FileManager.default.removeItem(atPath: signature)
    let missing = try workbench(verify, folder: folder)
    #expect(missing.status == 2, "\(missing)")
    #expect(missing.stderr.contains("no signature here"), "\(missing)")
  }

  @Test func theResultNamesEveryFileTheRunWroteOnceItIsThere() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write("cap.lua", captureFlow)
    let out = folder.file("out")
    let eventsPath = folder.file("events.jsonl")
    let run = try workbench(
      [
        "run", flow, "--input", "examples/recordings/face-blink.avi", "--quiet", "--record", out + "/session.avi",
        "--artifacts", out, "--set", "integrity.signing_key=\(TestLicense.files.privateKey)", "--events", eventsPath,
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    let end = try result(events(eventsPath))
    let outputs = try #require(end["outputs"]?.objectValue)
    #expect(outputs.keys == ["recording", "artifacts", "signature"])
    let recording = try #require(outputs["recording"])
    #expect(recording["path"] == .string(out + "/session.avi"))
    #expect(recording["timestamps"] == .string(out + "/session.avi.timestamps.jsonl"))
    #expect(recording["kept"] == true)
    #expect(recording["frames"] == end["frames"])
    #expect(outputs["artifacts"]?["folder"] == .string(out))
    #expect(outputs["artifacts"]?["files"] == .array([.string(out + "/first.jpg"), .string(out + "/second.jpg")]))
    #expect(outputs["signature"] == .string(out + "/signature.json"))
    // Each name is a file as the run left it: complete, under its own name, and nothing else is there.
    var named = [recording["path"], recording["timestamps"], outputs["signature"]].compactMap { $0?.stringValue }
    named += outputs["artifacts"]?["files"]?.arrayValue?.compactMap(\.stringValue) ?? []
    #expect(Set(named.map { ($0 as NSString).lastPathComponent }) == Set(folder.listing(of: "out")))
    #expect(try workbench(["verify", out, "--public-key", TestLicense.files.publicKey], folder: folder).status == 0)
  }

  @Test func withoutAKeyTheArtifactsAreKeptUnsigned() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write("cap.lua", captureFlow)
    let run = try workbench(
      ["run", flow, "--input", "examples/recordings/face-blink.avi", "--quiet", "--artifacts", folder.file("out")],
      folder: folder)
    #expect(run.status == 0, "\(run)")
    #expect(folder.listing(of: "out") == ["first.jpg", "second.jpg"])
  }

  @Test func anArtifactsPathThatIsAFileIsRefusedBeforeTheRun() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write("cap.lua", captureFlow)
    let file = try folder.write("taken", "x")
    let run = try workbench(
      [
        "run", flow, "--input", "examples/recordings/face-blink.avi", "--quiet", "--artifacts", file, "--events",
        folder.file("events.jsonl"),
      ], folder: folder)
    #expect(run.status == 2, "\(run)")
    #expect(run.stderr.contains("error: \(file) (key '--artifacts'): is a file, not a folder"), "\(run)")
    #expect(try result(events(folder.file("events.jsonl")))["reason"] == "output_error")
  }
}

extension TemporaryFolder {
  func listing(of name: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: file(name))) ?? []).sorted()
  }
}
