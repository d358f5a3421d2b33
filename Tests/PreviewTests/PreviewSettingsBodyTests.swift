import Diagnostics
import Testing

@testable import Preview

/// The body of `POST /api/settings`: a JSON object of settings, turned into
/// the `--set key=value` texts a run takes.
@Suite struct PreviewSettingsBodyTests {
  func assignments(_ body: String) throws(WorkbenchError) -> [String] {
    try PreviewServer.assignments(Array(body.utf8))
  }

  @Test func everyKindOfValueBecomesAnAssignmentInTheBodysOrder() throws {
    let body =
      #"{"liveness.turn_angle": 30, "flow.lang": "zh-HK", "face.mirror": true, "x.ratio": 0.5, "x.list": [1, "a"]}"#
    #expect(
      try assignments(body) == [
        "liveness.turn_angle=30", "flow.lang=zh-HK", "face.mirror=true", "x.ratio=0.5", #"x.list=[1,"a"]"#,
      ])
  }

  @Test func aStringIsPassedAsItIsEvenWithAnEqualsSign() throws {
    #expect(try assignments(#"{"flow.note": "a=b c"}"#) == ["flow.note=a=b c"])
  }

  @Test func bodiesThatAreNotSettingsAreRefusedSayingWhy() throws {
    let cases: [(String, String)] = [
      ("turn_angle=30", "the body is not JSON"),
      ("[1, 2]", "the body must be a JSON object with at least one setting"),
      ("{}", "the body must be a JSON object with at least one setting"),
      (#"{"a=b": 1}"#, "'a=b' is not a setting's name"),
      (#"{"": 1}"#, "'' is not a setting's name"),
    ]
    for (body, message) in cases {
      let error = try #require(throws: WorkbenchError.self) { try assignments(body) }
      #expect(error.status == .usage)
      #expect(error.diagnostics.first?.message.hasPrefix(message) == true, "\(body): \(error)")
      #expect(error.diagnostics.first?.help?.contains("liveness.turn_angle") == true)
    }
  }
}
