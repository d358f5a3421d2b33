import Capture
import Diagnostics
import JSONCore
import TestSupport
import Testing

@testable import Scenarios

@Suite("Scenarios that record")
struct RecordingScenarioTests {
  private func load(_ source: String) throws -> Result<[Scenario], Error> {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("case.lua", source)
    return Result { try ScenarioRunner.load(file: file) }
  }

  private func result(_ recording: [(String, JSONValue)], frames: Int64 = 72) -> [JSONValue] {
    [
      .object(
        JSONObject([
          ("type", "result"), ("t", .number(2)), ("frame", .integer(71)), ("frames", .integer(frames)),
          ("outputs", .object(JSONObject([("recording", .object(JSONObject(recording)))]))),
        ]))
    ]
  }

  @Test("record takes a --record-policy, and expect.recording what became of the file")
  func loads() throws {
    let scenario = try #require(
      try load(
        """
        return { flow = "f.lua", input = "r.avi", record = "ignore-without-face",
                 expect = { recording = { kept = true, frames = "all" } } }
        """
      ).get().first)
    #expect(scenario.record == .ignoreWithoutFace)
    #expect(scenario.expectations.recording?.kept == true)
    #expect(scenario.expectations.recording?.allFrames == true)
  }

  @Test("an unknown policy, a bad expectation, and an expectation without record are named")
  func mistakes() throws {
    let text =
      "\(try load(#"return { flow = "f.lua", input = "r.avi", record = "faces", expect = { recording = 3 } }"#))"
    #expect(text.contains("record takes a --record-policy: always, failed, passed, detections, with-face"), "\(text)")
    #expect(text.contains("recording takes \"kept\", \"discarded\""), "\(text)")
    let missing = "\(try load(#"return { flow = "f.lua", input = "r.avi", expect = { recording = "kept" } }"#))"
    #expect(missing.contains("expect.recording needs record = \"POLICY\""), "\(missing)")
  }

  @Test("checked against the result's outputs.recording")
  func check() throws {
    func failures(_ lua: JSONValue, _ events: [JSONValue]) throws -> [String] {
      try Expectations.parse(.object(JSONObject([("recording", lua)])), file: "s.lua").check(
        events: events, exitStatus: 0)
    }
    let kept = result([("policy", "with-face"), ("kept", true), ("frames", 72)])
    let dropped = result([("policy", "with-face"), ("kept", false), ("why", "no face was seen in the 72 frames")])
    #expect(try failures("kept", kept).isEmpty)
    #expect(try failures(.object(JSONObject([("frames", "all")])), kept).isEmpty)
    #expect(try failures("discarded", dropped).isEmpty)
    #expect(
      try failures("kept", dropped) == [
        "expected the recording to be kept (--record-policy with-face), but it was not kept: no face was seen in the 72 frames"
      ])
    #expect(
      try failures(.object(JSONObject([("frames", .object(JSONObject([("max", 10)])))])), kept) == [
        "expected at most 10 recorded frames, but it was kept with 72 frames"
      ])
    #expect(
      try failures(.object(JSONObject([("frames", "all")])), result([("kept", true), ("frames", 40)])) == [
        "expected the recording to hold all 72 frames the flow was given, but it was kept with 40 frames"
      ])
    #expect(
      try failures("kept", [.object(JSONObject([("type", "result")]))]) == [
        "expected the result to name the recording (outputs.recording), but it does not"
      ])
  }
}
