import Capture
import Foundation
import JSONCore
import TestSupport
import Testing

/// examples/card-then-face.lua on a card rendered with a given person's
/// photo as its portrait, followed by the bundled real recording of a man:
/// his own card passes, another man's card fails with face_no_match, and
/// the analytics trace says FACE_NO_MATCH on the face page.
@Suite(.requires(FaceBackendInstall.recognition), .serialized)
struct CardThenFaceTests {
  /// A JPEG folder: the frames of a card rendered with `portrait`, then
  /// those of the face recording, at 30 frames per second.
  static func session(portrait: String, folder: TemporaryFolder) throws -> String {
    let card = folder.file("card-\(UUID().uuidString).avi")
    let rendered = try workbench(
      [
        "synth", "card", "--schedule", "examples/synth/card-then-face.json", "--out", card, "--size", "640x360",
        "--portrait", portrait,
      ], folder: folder)
    #expect(rendered.status == 0, "\(rendered)")
    let frames = try folder.subfolder("session-\(UUID().uuidString)")
    var count = 0
    for path in [card, packageRoot + "/examples/recordings/face-blink.avi"] {
      let source = try RecordingSource.open(path: path)
      defer { source.close() }
      while let frame = try source.next() {
        guard case .jpeg(let bytes) = frame.payload else { continue }
        try Data(bytes).write(to: URL(fileURLWithPath: frames + String(format: "/%05d.jpg", count)))
        count += 1
      }
    }
    #expect(count > 200)
    return frames
  }

  func run(_ input: String, _ folder: TemporaryFolder) throws -> (Outcome, [JSONValue], [JSONValue]) {
    let events = folder.file("events-\(UUID().uuidString).jsonl")
    let analytics = folder.file("analytics-\(UUID().uuidString).jsonl")
    let outcome = try workbench(
      [
        "run", "examples/card-then-face.lua", "--input", input, "--quiet", "--events", events, "--analytics",
        analytics,
      ], folder: folder)
    let trace = try (fileText(analytics) ?? "").split(separator: "\n").map { try JSONParser.parse(String($0)) }
    return (outcome, try GalleryFlowTests.records(events), trace)
  }

  @Test func theHoldersOwnCardPassesAndAnotherMansFails() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let own = try Self.session(portrait: "Tests/Fixtures/people/man-portrait.jpg", folder: folder)
    var (outcome, records, trace) = try run(own, folder)
    #expect(outcome.status == 0, "\(outcome)")
    let statuses = records.filter { $0["type"] == "status" }.compactMap { $0["status"]?.stringValue }
    for status in ["BEGIN", "ORTH", "LEFTDOWN", "CARD_COMPLETE", "INTERACTION_SUCCESS", "BEST_SHOT", "COMPLETE"] {
      #expect(statuses.contains(status), "\(status) in \(statuses)")
    }
    let compared = try #require(records.first { $0["type"] == "identity" && $0["operation"] == "compare" })
    #expect(compared["match"] == .bool(true) && (compared["distance"]?.doubleValue ?? 1) < 0.5, "\(compared)")
    // After CARD_COMPLETE the trace is on the face page: the last steps complete there.
    let passed = try #require(trace.last { $0["event"] == .string("COMPLETE") })
    #expect(passed["status"] == .string("SUCCESS") && passed["page"] == .string("FACE"), "\(passed)")
    #expect(trace.last?["event"] == .string("FINISH") && trace.last?["status"] == .string("SUCCESS"))
    #expect(trace.dropFirst().allSatisfy { $0["documentType"] == .string("HKG_ID_2018") })

    let other = try Self.session(portrait: "Tests/Fixtures/people/obama-portrait.jpg", folder: folder)
    (outcome, records, trace) = try run(other, folder)
    #expect(outcome.status == 1, "\(outcome)")
    let refused = try result(records)
    #expect(refused["reason"] == .string("face_no_match") && refused["code"] == .integer(2001), "\(refused)")
    let far = try #require(records.first { $0["type"] == "identity" && $0["operation"] == "compare" })
    #expect((far["distance"]?.doubleValue ?? 0) > 0.6, "\(far)")
    let finish = try #require(trace.last)
    #expect(finish["statusCode"] == .string("FACE_NO_MATCH") && finish["page"] == .string("FACE"), "\(finish)")
    #expect(trace.contains { $0["page"] == .string("SCAN") })
  }
}
