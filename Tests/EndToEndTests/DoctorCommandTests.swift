import Foundation
import JSONCore
import TestSupport
import Testing

@Suite("workbench doctor, as a user runs it")
struct DoctorCommandTests {
  @Test(
    "with the face backend installed and a license: everything a bundled example needs is ok, exit 0",
    .requires(FaceBackendInstall.recognition))
  func healthy() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["doctor"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.hasSuffix("the bundled examples can run\n"), "\(outcome.stdout)")
    for part in ["Lua and the step library", "face library (MediaPipe)", "face model", "license"] {
      let line = outcome.stdout.split(separator: "\n").first { $0.contains(part) }
      #expect(line?.hasPrefix("ok ") == true, "\(part): \(line ?? "no line")")
    }
  }

  @Test("an expired license is missing, with its reason and what to do; exit 1")
  func expiredLicense() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(
      in: try folder.subfolder("license"), features: ["face"], expiresIn: 1, issuedAgo: 3 * 86_400)
    let outcome = try workbench(["doctor"], folder: folder, environment: ["WORKBENCH_LICENSE_CONFIG": files.config])
    #expect(outcome.status == 1, "\(outcome)")
    let lines = outcome.stdout.split(separator: "\n")
    let index = try #require(lines.firstIndex { $0.contains(" license ") }, "\(outcome.stdout)")
    #expect(lines[index].hasPrefix("missing"))
    #expect(lines[index].contains("expired"), "\(lines[index])")
    #expect(lines[index + 1].contains("→"), "no advice under the license line")
    let last = try #require(lines.last)
    #expect(last.hasPrefix("the bundled examples cannot run: missing") && last.contains("license"), "\(last)")
  }

  @Test("the face library missing: named in the JSON, with the rest still checked; exit 1")
  func missingLibraryJSON() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["doctor", "--json"], folder: folder,
      environment: ["WORKBENCH_MEDIAPIPE_LIB": folder.path + "/no/libmediapipe.so"])
    #expect(outcome.status == 1, "\(outcome)")
    let json = try JSONParser.parse(outcome.stdout)
    #expect(json["ok"] == .bool(false))
    let findings = try #require(json["findings"]?.arrayValue)
    let library = try #require(findings.first { $0["part"]?.stringValue == "face library (MediaPipe)" })
    #expect(library["status"] == .string("missing"))
    #expect(library["needed_by_examples"] == .bool(true))
    #expect(findings.contains { $0["part"]?.stringValue == "license" })
    #expect(findings.contains { $0["part"]?.stringValue == "FFmpeg" && $0["status"]?.stringValue == "ok" })
  }
}
