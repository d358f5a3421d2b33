import Foundation
import Gallery
import JSONCore
import TestSupport
import Testing

/// `workbench gallery` on real photos, and a gallery that survives SIGKILL.
@Suite struct GalleryCommandTests {
  static let frames = "Tests/Fixtures/frames/"
  static let people = "Tests/Fixtures/people/"

  func gallery(_ arguments: [String], _ folder: TemporaryFolder) throws -> (Outcome, JSONObject) {
    let outcome = try workbench(["gallery", "--gallery", folder.file("people.sqlite")] + arguments, folder: folder)
    let answer = try JSONParser.parse(outcome.stdout).objectValue ?? JSONObject()
    return (outcome, answer)
  }

  @Test(.requires(FaceBackendInstall.recognition))
  func enrollVerifyAndIdentifyOnRealPhotos() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var (outcome, answer) = try gallery(["group", "create", "staff"], folder)
    #expect(outcome.status == 0, "\(outcome)")
    (outcome, answer) = try gallery(
      ["enroll", "--user", "obama", "--group", "staff", "--name", "Barack Obama", Self.frames + "obama-480.jpg"], folder
    )
    #expect(outcome.status == 0, "\(outcome)")
    #expect(answer["faces"]?.arrayValue?.count == 1)

    // Another man is not him: exit 1, no match, and the distance says how far.
    (outcome, answer) = try gallery(["verify", "--user", "obama", Self.frames + "biden-480.jpg"], folder)
    #expect(outcome.status == 1, "\(outcome)")
    #expect(answer["match"] == .bool(false) && (answer["distance"]?.doubleValue ?? 0) > 0.6)
    #expect(answer["threshold"] == .number(0.6))
    // Two other photos of him are him.
    for photo in ["obama2-480.jpg", "obama3-480.jpg"] {
      (outcome, answer) = try gallery(["verify", "--user", "obama", Self.people + photo], folder)
      #expect(outcome.status == 0, "\(outcome)")
      #expect(answer["match"] == .bool(true) && (answer["distance"]?.doubleValue ?? 1) < 0.6)
    }

    (outcome, answer) = try gallery(
      ["enroll", "--user", "biden", "--group", "staff", Self.frames + "biden-480.jpg"], folder)
    #expect(outcome.status == 0, "\(outcome)")
    (outcome, answer) = try gallery(
      ["identify", "--group", "staff", "--top", "2", Self.people + "obama3-480.jpg"], folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(answer["user"] == .string("obama"))
    #expect(answer["candidates"]?.arrayValue?.compactMap { $0["user"]?.stringValue } == ["obama", "biden"])

    (outcome, answer) = try gallery(["user", "show", "obama"], folder)
    #expect(answer["user"]?["faces"]?.arrayValue?.first?["sha256"]?.stringValue?.count == 64)
  }

  @Test(.requires(FaceBackendInstall.recognition))
  func inputErrorsHaveTheirNamesAndExitCodes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    _ = try gallery(["enroll", "--user", "obama", Self.frames + "obama-480.jpg"], folder)
    let cases: [([String], String, Int32)] = [
      (["verify", "--user", "nobody", Self.people + "obama2-480.jpg"], "user_not_found", 5),
      (["enroll", "--user", "obama", Self.people + "obama2-480.jpg"], "user_exists", 5),
      (["enroll", "--user", "x", "--group", "nowhere", Self.people + "obama2-480.jpg"], "group_not_found", 5),
      (["identify", "--group", "nowhere", Self.people + "obama2-480.jpg"], "group_not_found", 5),
      (["enroll", "--user", "crowd", "Tests/Fixtures/faces/multi_face.jpg"], "several_faces", 4),
      (["enroll", "--user", "x", "nothere.jpg"], "invalid_image_path", 4),
      (["enroll", "--user", "x", "README.md"], "invalid_image", 4),
      (["enroll", "--user", "x"], "missing_image", 2),
      (["verify", "--user", "obama"], "missing_image", 2),
    ]
    for (arguments, name, status) in cases {
      let (outcome, answer) = try gallery(arguments, folder)
      #expect(outcome.status == status && answer["error"] == .string(name), "\(arguments): \(outcome)")
      #expect(outcome.stderr.hasPrefix("error: "), "\(outcome)")
    }
    // The group was not made on the way, and the refused enrollments added no one.
    let (_, users) = try gallery(["user", "list"], folder)
    #expect(users["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["obama"])
  }

  /// A PNG's header declares 20000×20000 pixels (1.2 GB decoded): it is refused
  /// from its header, before the decoder takes that memory. A folder is named as one.
  @Test(.requires(FaceBackendInstall.recognition))
  func aPhotoTooBigOrAFolderIsRefusedBeforeDecoding() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    png += [0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20, 8, 2, 0, 0, 0, 0, 0, 0, 0]
    let huge = folder.file("huge.png")
    try Data(png).write(to: URL(fileURLWithPath: huge))
    let (outcome, answer) = try gallery(["enroll", "--user", "u", huge], folder)
    #expect(outcome.status == 4 && answer["error"] == "invalid_image", "\(outcome)")
    #expect(outcome.stderr.contains("the PNG is 20000×20000 pixels, more than workbench reads"), "\(outcome)")
    #expect(outcome.stderr.contains("at most 33177600 pixels"), "\(outcome)")
    let photos = try folder.subfolder("photos")
    let (again, refused) = try gallery(["enroll", "--user", "u", photos], folder)
    #expect(again.status == 4 && refused["error"] == "invalid_image", "\(again)")
    #expect(again.stderr.contains("this is a folder, not a photo"), "\(again)")
    #expect(!again.stderr.contains("permissions"), "\(again)")
  }

  /// Ids, names and details have their limits on every path in, and a
  /// command refused for them, or an import that is not an export, makes no gallery file.
  @Test func refusedNamesAndImportsMakeNoGallery() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let export = #"{"workbench_gallery":1,"descriptor":"dlib_face_recognition_resnet_model_v1"}"#
    let cases: [([String], String, String)] = [
      (["enroll", "--user", "u", "--group", "", "photo.jpg"], "invalid_name", "the group id is empty"),
      (["group", "create", ""], "invalid_name", "the group id is empty"),
      (["group", "create", "g", "--name", String(repeating: "n", count: 257)], "invalid_name", "more than 256"),
      (["user", "add", "u", "--name", String(repeating: "n", count: 300)], "invalid_name", "300 characters"),
      (
        ["user", "add", "u", "--details", #"{"note":""# + String(repeating: "x", count: 17_000) + #""}"#],
        "invalid_name", "more than 16384"
      ),
      (["import", try folder.write("empty.jsonl", "")], "invalid_import", "the file is empty"),
      (
        ["import", try folder.write("headless.jsonl", "\n" + #"{"user":{"id":"a"},"faces":[]}"# + "\n")],
        "invalid_import", "headless.jsonl:2: not a gallery export"
      ),
    ]
    for (arguments, name, message) in cases {
      let (outcome, answer) = try gallery(arguments, folder)
      #expect(answer["error"] == .string(name), "\(arguments.prefix(3)): \(outcome)")
      #expect(answer["message"]?.stringValue?.contains(message) == true, "\(arguments.prefix(3)): \(outcome)")
      #expect(!FileManager.default.fileExists(atPath: folder.file("people.sqlite")), "\(arguments.prefix(3))")
    }
    let wrongKinds = try folder.write(
      "kinds.jsonl",
      [
        export, #"{"user":{"id":"a","details":[1,2]},"faces":[]}"#, #"{"user":{"id":"b","name":7},"faces":[]}"#,
        #"{"user":{"id":"c","groups":["g",1]},"faces":[]}"#,
      ].joined(separator: "\n"))
    let (outcome, answer) = try gallery(["import", wrongKinds], folder)
    #expect(outcome.status == 2 && answer["error"] == "invalid_import", "\(outcome)")
    #expect(
      answer["message"]?.stringValue == "\(wrongKinds):2: the user's details must be a JSON object, not a JSON array")
    for (line, record) in [
      (3, #"{"user":{"id":"b","name":7},"faces":[]}"#), (4, #"{"user":{"id":"c","groups":["g",1]},"faces":[]}"#),
    ] {
      let single = try folder.write("one.jsonl", export + "\n\n" + record + "\n")
      let (_, refused) = try gallery(["import", single], folder)
      #expect(refused["error"] == "invalid_import", "line \(line): \(refused)")
      #expect(refused["message"]?.stringValue?.contains("one.jsonl:3: the user's") == true, "\(refused)")
    }
  }

  /// A gallery file no one may write (0444) is read by the commands that
  /// only read, with no -wal or -shm file left beside it; the others say it
  /// is read-only and change nothing.
  @Test func aReadOnlyGalleryIsReadAndNotChanged() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    _ = try gallery(["group", "create", "staff"], folder)
    _ = try gallery(["user", "add", "alice", "--group", "staff"], folder)
    let path = folder.file("people.sqlite")
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
    defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }
    for arguments in [["user", "list"], ["user", "show", "alice"], ["group", "list"]] {
      let (outcome, answer) = try gallery(arguments, folder)
      #expect(outcome.status == 0, "\(arguments): \(outcome)")
      #expect(answer["error"] == nil, "\(arguments): \(answer)")
    }
    let (listed, users) = try gallery(["user", "list"], folder)
    #expect(users["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["alice"], "\(listed)")
    let (exported, _) = try gallery(["export", folder.file("backup.jsonl")], folder)
    #expect(exported.status == 0, "\(exported)")
    #expect(
      folder.listing.filter { $0.hasPrefix("people.sqlite") } == ["people.sqlite"], "no -wal or -shm left beside it")
    for arguments in [
      ["user", "add", "bob"], ["group", "remove", "staff"], ["user", "edit", "alice", "--name", "A"],
    ] {
      let (outcome, answer) = try gallery(arguments, folder)
      #expect(outcome.status == 5 && answer["error"] == "gallery_unavailable", "\(arguments): \(outcome)")
      #expect(answer["message"]?.stringValue?.contains("the gallery file is read-only") == true, "\(answer)")
    }
  }

  @Test func argumentsItCannotTakeAreAJSONAnswerToo() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let cases: [([String], String)] = [
      (["identify", "--top", "0", "x.jpg"], "--top must be 1 to 100, not 0"),
      (["--threshold", "nan", "identify", "x.jpg"], "--threshold must be more than 0 and less than 2"),
      (["enroll", "--bogus"], "unknown option '--bogus'"),
      (["bogus"], "bogus"),
    ]
    for (arguments, message) in cases {
      let (outcome, answer) = try gallery(arguments, folder)
      #expect(outcome.status == 2 && answer["error"] == "usage_error", "\(arguments): \(outcome)")
      #expect(answer["message"]?.stringValue?.contains(message) == true, "\(arguments): \(outcome)")
      #expect(outcome.stdout.split(separator: "\n").count == 1, "one JSON object: \(outcome.stdout)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder.file("people.sqlite")))
  }

  @Test func withoutAGalleryTheCommandSaysHowToNameOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["gallery", "user", "list"], folder: folder, environment: ["WORKBENCH_GALLERY": nil])
    #expect(outcome.status == 5, "\(outcome)")
    #expect(outcome.stderr.contains("--gallery FILE"), "\(outcome)")
    let own = folder.path + "/xdg-data/workbench/gallery.sqlite"
    #expect(outcome.stderr.contains("none at \(own) yet"), "\(outcome)")
    #expect(!FileManager.default.fileExists(atPath: own), "a command that only reads makes no gallery")
    let missing = try workbench(["gallery", "--gallery", folder.file("none.sqlite"), "user", "list"], folder: folder)
    #expect(missing.status == 5 && missing.stdout.contains("gallery_unavailable"), "\(missing)")
  }

  @Test func withoutAGalleryNamedTheUsersOwnIsMadeOnFirstChange() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let created = try workbench(
      ["gallery", "group", "create", "staff"], folder: folder, environment: ["WORKBENCH_GALLERY": nil])
    #expect(created.status == 0, "\(created)")
    #expect(FileManager.default.fileExists(atPath: folder.path + "/xdg-data/workbench/gallery.sqlite"))
    let listed = try workbench(["gallery", "group", "list"], folder: folder, environment: ["WORKBENCH_GALLERY": nil])
    #expect(listed.status == 0 && listed.stdout.contains("staff"), "\(listed)")
  }

  /// A shared gallery: one process enrolls into a PostgreSQL database, and
  /// another, on its own connection, identifies the new face.
  @Test(.requires(FaceBackendInstall.recognition))
  func twoProcessesShareAPostgreSQLGallery() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let url = try PostgresTestServer.shared().database()
    func gallery(_ arguments: [String]) throws -> (Outcome, JSONObject) {
      let outcome = try workbench(["gallery", "--gallery", url] + arguments, folder: folder)
      return (outcome, try JSONParser.parse(outcome.stdout).objectValue ?? JSONObject())
    }
    var (outcome, answer) = try gallery(["group", "create", "kiosk"])
    #expect(outcome.status == 0, "\(outcome)")
    (outcome, answer) = try gallery(["identify", "--group", "kiosk", Self.people + "obama2-480.jpg"])
    #expect(outcome.status == 1 && answer["candidates"] == .array([]), "\(outcome)")
    (outcome, answer) = try gallery(["enroll", "--user", "obama", "--group", "kiosk", Self.frames + "obama-480.jpg"])
    #expect(outcome.status == 0, "\(outcome)")
    (outcome, answer) = try gallery(["identify", "--group", "kiosk", Self.people + "obama2-480.jpg"])
    #expect(outcome.status == 0 && answer["user"] == .string("obama"), "\(outcome)")
    (outcome, answer) = try gallery(["verify", "--user", "obama", Self.frames + "biden-480.jpg"])
    #expect(outcome.status == 1 && answer["match"] == .bool(false), "\(outcome)")
    // The password never shows in messages.
    let refused = try workbench(
      ["gallery", "--gallery", "postgres://someone:secret@127.0.0.1:1/none", "user", "list"], folder: folder)
    #expect(
      refused.status == 5 && !refused.stdout.contains("secret") && !refused.stderr.contains("secret"), "\(refused)")
  }

  /// An import killed half way: every user before the kill is there whole
  /// (their faces, their groups), none after it, and SQLite finds nothing wrong.
  @Test func aGalleryKilledMidImportStaysConsistent() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let count = 6000
    let export = try folder.write("export.jsonl", Self.exportLines(count: count).joined(separator: "\n") + "\n")
    let path = folder.file("people.sqlite")
    let run = try Launched(["gallery", "--gallery", path, "import", export], folder: folder)
    // Kill it once some users are in, while it is still writing.
    var seen = 0
    let deadline = Date().addingTimeInterval(120)
    while run.isRunning && seen < 200 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.02)
      seen = (try? SQLiteGallery(path: path, create: false).users(inGroup: nil).count) ?? 0
    }
    kill(run.process.processIdentifier, SIGKILL)
    let outcome = run.wait()
    #expect(outcome.signaled, "the import ended before it was killed: \(outcome)")

    let store = try SQLiteGallery(path: path, create: false)
    #expect(try store.problems().isEmpty)
    let users = try store.users(inGroup: nil)
    #expect(users.count >= seen && users.count < count, "\(users.count) users")
    let ids = Set(users.map(\.id))
    #expect(ids == Set((0..<users.count).map { "u\($0)" }), "not a prefix of the file")
    for user in users {
      let index = Int(user.id.dropFirst())!
      #expect(user.faceCount == index % 5 + 1 && user.groups == ["staff"], "\(user)")
    }
    // It goes on where it stopped.
    let resumed = try workbench(["gallery", "--gallery", path, "import", "--skip-existing", export], folder: folder)
    #expect(resumed.status == 0, "\(resumed)")
    #expect(try store.users(inGroup: nil).count == count)
  }

  /// The same for a PostgreSQL gallery: killed mid-import, each user is
  /// there whole or not at all.
  @Test func aPostgreSQLGalleryKilledMidImportStaysConsistent() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let count = 3000
    let export = try folder.write("export.jsonl", Self.exportLines(count: count).joined(separator: "\n") + "\n")
    let url = try PostgresTestServer.shared().database()
    let run = try Launched(["gallery", "--gallery", url, "import", export], folder: folder)
    let store = try PostgresGallery(url: url)
    var seen = 0
    let deadline = Date().addingTimeInterval(120)
    while run.isRunning && seen < 100 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.02)
      seen = (try? store.users(inGroup: nil).count) ?? 0
    }
    kill(run.process.processIdentifier, SIGKILL)
    let outcome = run.wait()
    #expect(outcome.signaled, "the import ended before it was killed: \(outcome)")
    let users = try store.users(inGroup: nil)
    #expect(users.count >= seen && users.count < count, "\(users.count) users")
    #expect(Set(users.map(\.id)) == Set((0..<users.count).map { "u\($0)" }), "not a prefix of the file")
    for user in users {
      #expect(user.faceCount == Int(user.id.dropFirst())! % 5 + 1 && user.groups == ["staff"], "\(user)")
    }
    #expect(try store.descriptors(user: nil, group: nil).count == users.reduce(0) { $0 + $1.faceCount })
  }

  static func exportLines(count: Int) -> [String] {
    var lines = [#"{"workbench_gallery":1,"descriptor":"dlib_face_recognition_resnet_model_v1"}"#]
    lines.append(#"{"group":{"id":"staff","name":"Staff"}}"#)
    for index in 0..<count {
      let faces = (0...(index % 5)).map { face in
        let values = (0..<128).map { Float(($0 * 31 + index * 7 + face) % 97) / 97 - 0.5 }
        let bytes = FaceDescriptorBytes.of(values)
        return #"{"descriptor":"\#(bytes)","sha256":"\#(String(repeating: "0", count: 64))","source":"f\#(face)"}"#
      }
      lines.append(
        #"{"user":{"id":"u\#(index)","name":"U","details":{},"groups":["staff"]},"faces":[\#(faces.joined(separator: ","))]}"#
      )
    }
    return lines
  }
}

enum FaceDescriptorBytes {
  static func of(_ values: [Float]) -> String {
    var bytes: [UInt8] = []
    for value in values {
      let bits = value.bitPattern
      bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
    }
    return Data(bytes).base64EncodedString()
  }
}
