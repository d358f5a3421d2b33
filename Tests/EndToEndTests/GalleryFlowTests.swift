import Foundation
import Imaging
import JSONCore
import TestSupport
import Testing

/// The gallery flows on the bundled real recording: enroll, face-add,
/// verify and identify, against a gallery the command line filled.
@Suite(.requires(FaceBackendInstall.recognition))
struct GalleryFlowTests {
  private let recording = "examples/recordings/face-blink.avi"

  func run(_ flow: String, _ folder: TemporaryFolder, _ settings: [String], extra: [String] = []) throws -> (
    Outcome, [JSONValue]
  ) {
    let events = folder.file("events-\(UUID().uuidString).jsonl")
    var arguments = ["run", "examples/\(flow).lua", "--input", recording, "--quiet", "--events", events] + extra
    arguments += ["--gallery", folder.file("people.sqlite")]
    for setting in settings { arguments += ["--set", setting] }
    let outcome = try workbench(arguments, folder: folder)
    return (outcome, (try? GalleryFlowTests.records(events)) ?? [])
  }

  static func records(_ path: String) throws -> [JSONValue] { try events(path) }

  func gallery(_ arguments: [String], _ folder: TemporaryFolder) throws -> Outcome {
    try workbench(["gallery", "--gallery", folder.file("people.sqlite")] + arguments, folder: folder)
  }

  @Test func verifyPassesForThePersonAndFailsForSomeoneElse() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // The man of the recording, from another of its frames; and another man.
    #expect(try gallery(["enroll", "--user", "man", "Tests/Fixtures/frames/0040.jpg"], folder).status == 0)
    #expect(try gallery(["enroll", "--user", "obama", "Tests/Fixtures/frames/obama-480.jpg"], folder).status == 0)

    var (outcome, records) = try run("verify", folder, ["user=man"])
    #expect(outcome.status == 0, "\(outcome)")
    let verified = try #require(records.first { $0["type"] == "identity" && $0["operation"] == "verify" })
    #expect(verified["match"] == .bool(true) && (verified["distance"]?.doubleValue ?? 1) < 0.4, "\(verified)")
    #expect(try result(records)["message"] == .string("Verified: the face matches"))

    (outcome, records) = try run("verify", folder, ["user=obama"])
    #expect(outcome.status == 1, "\(outcome)")
    let refused = try result(records)
    #expect(refused["reason"] == .string("face_no_match") && refused["code"] == .integer(2001), "\(refused)")
    let distance = records.first { $0["type"] == "identity" && $0["operation"] == "verify" }?["distance"]
    #expect((distance?.doubleValue ?? 0) > 0.6)

    (outcome, records) = try run("verify", folder, ["user=nobody"])
    #expect(try result(records)["reason"] == .string("user_not_found"), "\(outcome)")
  }

  @Test func enrollThenIdentifyAndAddAFace() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect(try gallery(["group", "create", "staff"], folder).status == 0)
    #expect(
      try gallery(["enroll", "--user", "obama", "--group", "staff", "Tests/Fixtures/frames/obama-480.jpg"], folder)
        .status == 0)

    var (outcome, records) = try run("enroll", folder, ["user=man", "name=The man", "group=staff", "enroll.shots=2"])
    #expect(outcome.status == 0, "\(outcome)")
    let shown = try gallery(["user", "show", "man"], folder)
    let user = try JSONParser.parse(shown.stdout)["user"]
    #expect(user?["name"] == .string("The man") && user?["groups"] == .array([.string("staff")]), "\(shown)")
    #expect(user?["faces"]?.arrayValue?.count == 2)

    // Enrolling the same id again is refused, with the flow's code.
    (outcome, records) = try run("enroll", folder, ["user=man"])
    #expect(outcome.status == 1)
    #expect(try result(records)["code"] == .integer(2002))

    (outcome, records) = try run("identify", folder, ["group=staff", "identify.top=2", "messages.language=zh-HK"])
    #expect(outcome.status == 0, "\(outcome)")
    let identified = try #require(records.first { $0["type"] == "status" && $0["status"] == "IDENTIFIED" })
    #expect(identified["user"] == .string("man"))
    #expect(identified["candidates"]?.arrayValue?.compactMap { $0["user"]?.stringValue } == ["man", "obama"])
    #expect(try result(records)["message"] == .string("已在人臉庫中識別"))

    (outcome, records) = try run("face-add", folder, ["user=man"])
    #expect(outcome.status == 0, "\(outcome)")
    let again = try JSONParser.parse(try gallery(["user", "show", "man"], folder).stdout)
    #expect(again["user"]?["faces"]?.arrayValue?.count == 3)

    (outcome, records) = try run("identify", folder, ["group=nowhere"])
    #expect(try result(records)["reason"] == .string("group_not_found"))
  }

  /// With --artifacts, the live face and the enrolled one are kept, and the
  /// session report shows them side by side with the distance.
  @Test func theReportShowsTheEnrolledAndTheLiveFace() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect(try gallery(["enroll", "--user", "man", "Tests/Fixtures/frames/0040.jpg"], folder).status == 0)
    let (outcome, records) = try run(
      "verify", folder, ["user=man"], extra: ["--artifacts", folder.file("out"), "--report", folder.file("report")])
    #expect(outcome.status == 0, "\(outcome)")
    let verified = try #require(records.first { $0["type"] == "identity" && $0["operation"] == "verify" })
    let images = try #require(verified["images"]?.objectValue)
    for role in ["live", "enrolled"] {
      let path = try #require(images[role]?.stringValue)
      let bytes = try #require(FileManager.default.contents(atPath: path))
      #expect(try JPEGDecoder().readHeader([UInt8](bytes)).width == 150)
    }
    let html = try #require(fileText(folder.file("report/report.html")))
    let section = try #require(html.range(of: "<section id=\"faces\">")).upperBound
    let faces = String(html[section...].prefix { _ in true }.split(separator: "</section>").first ?? "")
    #expect(faces.contains("verify · man") && faces.contains("distance <strong>0."), "\(faces.prefix(400))")
    #expect(faces.components(separatedBy: "<img src=\"data:image/jpeg;base64,").count == 3)
  }

  /// A flow against a shared PostgreSQL gallery: the enrollment of one
  /// process is what the verification of another finds.
  @Test func verifyAgainstAPostgreSQLGallery() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let url = try PostgresTestServer.shared().database()
    let enrolled = try workbench(
      ["gallery", "--gallery", url, "enroll", "--user", "man", "Tests/Fixtures/frames/0040.jpg"], folder: folder)
    #expect(enrolled.status == 0, "\(enrolled)")
    let events = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", "examples/verify.lua", "--input", recording, "--quiet", "--events", events, "--gallery", url,
        "--set", "user=man",
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try Self.records(events)
    #expect(records.contains { $0["type"] == "identity" && $0["operation"] == "verify" && $0["match"] == .bool(true) })
  }

  @Test func aFlowWithoutAGalleryNamedUsesTheUsersOwn() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let events = folder.file("e.jsonl")
    let outcome = try workbench(
      ["run", "examples/verify.lua", "--input", recording, "--quiet", "--events", events, "--set", "user=man"],
      folder: folder)
    // Made empty in the user's data folder: nobody is enrolled in it yet.
    #expect(outcome.status == 1, "\(outcome)")
    #expect(try result(try Self.records(events))["reason"] == .string("user_not_found"))
    #expect(FileManager.default.fileExists(atPath: folder.path + "/xdg-data/workbench/gallery.sqlite"))
  }
}
