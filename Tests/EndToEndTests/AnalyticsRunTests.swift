import Foundation
import JSONCore
import TestSupport
import Testing

/// `run --analytics` with the real binary: the records of Uqudo's tracer,
/// the host application's session id, and a mapping from --settings-dir.
@Suite struct AnalyticsRunTests {
  private let sessionId = "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"

  private func trace(_ path: String) throws -> [JSONValue] {
    let text = try #require(fileText(path), "no analytics file at \(path)")
    return try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
  }

  private func summary(_ records: [JSONValue]) -> [String] {
    records.map { record in
      ["event", "status", "statusCode"].map { record[$0]?.stringValue ?? "-" }.joined(separator: ":")
    }
  }

  @Test func theHKIDCardsTraceHasItsSidesAStepByStepCompleteAndItsDocument() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("analytics.jsonl")
    let outcome = try workbench(
      [
        "run", "examples/hkid-2003.lua", "--input", "examples/traces/hkid-2003-pass.jsonl", "--lang", "zh-HK",
        "--analytics", path, "--analytics-session-id", sessionId, "--quiet",
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try trace(path)
    #expect(
      summary(records) == [
        "INIT:SUCCESS:-", "VIEW:SUCCESS:-", "START:SUCCESS:-", "COMPLETE:SUCCESS:-",
        "IN_PROGRESS:SUCCESS:SCAN_DOCUMENT_FLIP_FIRST_SIDE", "IN_PROGRESS:SUCCESS:SCAN_DOCUMENT_FRONT_PROCESSED",
        "COMPLETE:SUCCESS:-", "COMPLETE:SUCCESS:-", "IN_PROGRESS:SUCCESS:SCAN_DOCUMENT_FLIP_SECOND_SIDE",
        "IN_PROGRESS:SUCCESS:SCAN_DOCUMENT_BACK_PROCESSED", "COMPLETE:SUCCESS:-", "COMPLETE:SUCCESS:-",
        "FINISH:SUCCESS:-",
      ])
    #expect(records.allSatisfy { $0["sessionId"] == .string(sessionId) })
    // INIT is the SDK's: no page, no document; every later record has both.
    #expect(records[0]["page"] == .null && records[0]["documentType"] == .null, "\(records[0])")
    #expect(records.dropFirst().allSatisfy { $0["page"] == "SCAN" && $0["documentType"] == "HKG_ID_2003" })
    // The message of a code is the run's text, in its language.
    let zh = try catalog("zh-HK")
    #expect(records[4]["statusMessage"] == zh["idcard_operation_title4"], "\(records[4])")
    #expect(records[5]["statusMessage"] == zh["result.first"], "\(records[5])")
    #expect(records.filter { $0["statusCode"] == .null }.allSatisfy { $0["statusMessage"] == .null })
  }

  @Test func aSessionIdThatIsNotAUUIDIsAUsageErrorNamingTheOption() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let run = ["run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl"]
    let bad = try workbench(
      run + ["--analytics", folder.file("a.jsonl"), "--analytics-session-id", "session-7"], folder: folder)
    #expect(bad.status == 2, "\(bad)")
    #expect(bad.stderr.contains("--analytics-session-id takes a UUID"), "\(bad)")
    #expect(bad.stderr.contains("'session-7'"), "\(bad)")
    #expect(fileText(folder.file("a.jsonl")) == nil)
    let alone = try workbench(run + ["--analytics-session-id", sessionId], folder: folder)
    #expect(alone.status == 2, "\(alone)")
    #expect(alone.stderr.contains("--analytics-session-id goes with --analytics"), "\(alone)")
  }

  @Test func aFaceFlowThatFailsEndsWithTheStepsItNeverReachedSkipped() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("analytics.jsonl")
    let outcome = try workbench(
      [
        "run", "examples/liveness.lua", "--input", "examples/traces/liveness-slow-blink.jsonl", "--analytics", path,
        "--quiet",
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let records = try trace(path)
    #expect(
      summary(records).suffix(5) == [
        "COMPLETE:SUCCESS:-", "COMPLETE:SUCCESS:-", "COMPLETE:FAILURE:FACE_TIMEOUT", "SKIP:FAILURE:-",
        "FINISH:FAILURE:FACE_TIMEOUT",
      ])
    let english = try catalog("en")
    #expect(records.last?["statusMessage"] == english["result.step_timeout"], "\(records.last!)")
    #expect(records.allSatisfy { $0["documentType"] == .null })
  }

  @Test func aMappingFromTheSettingsFolderReplacesTheBundledOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // The site's copy of the bundled mapping, with codes and a document type of its own.
    let bundled = try #require(fileText(packageRoot + "/configs/analytics.json"))
    var text = bundled
    for (old, new) in [
      (#""face.not_found": "FACE_INCORRECT_POSITION_DETECTED""#, #""face.not_found": "SITE_NO_FACE""#),
      (#""result.step_timeout": "FACE_TIMEOUT""#, #""result.step_timeout": "SITE_SLOW""#),
      (#""hkid-2003": "HKG_ID_2003","#, #""hkid-2003": "HKG_ID_2003", "liveness": "SITE_FACE","#),
    ] {
      #expect(text.contains(old), "\(old)")
      text = text.replacingOccurrences(of: old, with: new)
    }
    try folder.write("site/analytics.json", text)
    let path = folder.file("analytics.jsonl")
    let run = [
      "run", "examples/liveness.lua", "--input", "examples/traces/liveness-slow-blink.jsonl", "--analytics", path,
      "--quiet", "--settings-dir", folder.file("site"),
    ]
    let outcome = try workbench(run, folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let records = try trace(path)
    #expect(records.contains { $0["statusCode"] == "SITE_NO_FACE" }, "\(summary(records))")
    #expect(records.last?["statusCode"] == "SITE_SLOW", "\(summary(records))")
    #expect(records.last?["documentType"] == "SITE_FACE")

    // A copy that leaves a page's code out is refused, naming the key.
    try folder.write(
      "site/analytics.json", bundled.replacingOccurrences(of: #""IDENTIFIED": "FACE_IDENTIFIED","#, with: ""))
    let partial = try workbench(run, folder: folder)
    #expect(partial.status == 2, "\(partial)")
    #expect(partial.stderr.contains("missing key 'codes.FACE.IDENTIFIED'"), "\(partial)")
  }
}
