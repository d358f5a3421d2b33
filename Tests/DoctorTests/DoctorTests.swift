import Doctor
import Foundation
import JSONCore
import Settings
import TestSupport
import Testing

@Suite("workbench doctor: each part, and the broken cases it exists for")
struct DoctorTests {
  /// A workbench folder with the pinned list and the given files, nothing else.
  static func home(files: [String: String]) throws -> (TemporaryFolder, WorkbenchHome) {
    let folder = try TemporaryFolder(prefix: "doctor-home")
    for (path, text) in files {
      let full = folder.path + "/" + path
      try FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try text.write(toFile: full, atomically: true, encoding: .utf8)
    }
    try FileManager.default.createDirectory(
      atPath: folder.path + "/third_party", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: packageRootPath + "/" + PinnedFiles.listPath, toPath: folder.path + "/" + PinnedFiles.listPath)
    return (folder, WorkbenchHome(root: folder.path))
  }

  static func finding(_ part: String, in report: DoctorReport) throws -> DoctorFinding {
    try #require(report.findings.first { $0.part == part }, "no finding for \(part)")
  }

  @Test("the user's folders: one not made yet is ok when it can be made, one under a file is a warning")
  func usersFolders() throws {
    let (folder, home) = try Self.home(files: ["in-the-way": "a file, not a folder"])
    defer { folder.remove() }
    let environment = [
      "HOME": folder.path, "XDG_CACHE_HOME": folder.path + "/cache", "XDG_DATA_HOME": folder.path + "/in-the-way/data",
    ]
    let report = Doctor(home: home, environment: environment, devicePaths: []).examine()
    let cache = try Self.finding("eval cache", in: report)
    #expect(cache.status == .ok && cache.detail.contains("cache/workbench will be made on first use"), "\(cache)")
    let gallery = try Self.finding("your gallery", in: report)
    #expect(gallery.status == .warning && gallery.advice?.contains("XDG_DATA_HOME") == true, "\(gallery)")
    #expect(try Self.finding("your settings", in: report).status != .missing)
  }

  @Test("a model with another checksum is missing, names both sums and says how to get the pinned one")
  func modelWithAnotherChecksum() throws {
    let (folder, home) = try Self.home(files: ["models/face_landmarker.task": "not the model"])
    defer { folder.remove() }
    let report = Doctor(home: home, environment: [:], devicePaths: []).examine()
    let model = try Self.finding("face model", in: report)
    #expect(model.status == .missing)
    #expect(model.detail.contains("not the pinned 64184e229b26"))
    #expect(model.advice?.contains(WorkbenchHome.faceBackendInstallCommand) == true)
    #expect(report.exitStatus == 1)
    #expect(report.missingForExamples.contains(model))
  }

  @Test("a library with another checksum is not loaded, and is missing")
  func libraryWithAnotherChecksum() throws {
    let (folder, home) = try Self.home(files: ["third_party/mediapipe/libmediapipe.so": "not a library"])
    defer { folder.remove() }
    let report = Doctor(home: home, environment: [:], devicePaths: []).examine()
    let library = try Self.finding("face library (MediaPipe)", in: report)
    #expect(library.status == .missing)
    #expect(library.detail.contains("not the pinned"))
    #expect(!library.detail.contains("loads"))
  }

  @Test("a missing face library is named with the variable that points elsewhere; the other parts are still checked")
  func missingLibrary() throws {
    let (folder, home) = try Self.home(files: [:])
    defer { folder.remove() }
    let report = Doctor(
      home: home, environment: ["WORKBENCH_MEDIAPIPE_LIB": folder.path + "/nowhere/libmediapipe.so"],
      devicePaths: []
    ).examine()
    let library = try Self.finding("face library (MediaPipe)", in: report)
    #expect(library.status == .missing)
    #expect(library.detail.contains("there is no"))
    #expect(library.advice?.contains("WORKBENCH_MEDIAPIPE_LIB") == true)
    #expect(try Self.finding("FFmpeg", in: report).status == .ok)
    #expect(try Self.finding("OpenCV DNN", in: report).detail.contains("OpenCV 4"))
    #expect(try Self.finding("Lua and the step library", in: report).status == .missing)
  }

  @Test("without a camera: a warning that the examples need none, and the exit status stays 0 for it")
  func noCamera() throws {
    let (folder, home) = try Self.home(files: [:])
    defer { folder.remove() }
    let camera = try Self.finding("camera", in: Doctor(home: home, environment: [:], devicePaths: []).examine())
    #expect(camera.status == .warning)
    #expect(!camera.neededByExamples)
  }

  @Test("the package's own folder: Lua loads the bundled flow, and the pinned files check when installed")
  func packageFolder() throws {
    let report = Doctor(home: WorkbenchHome(root: packageRootPath), environment: [:], devicePaths: []).examine()
    let lua = try Self.finding("Lua and the step library", in: report)
    #expect(lua.status == .ok)
    #expect(lua.detail.hasPrefix("Lua 5.4"))
    for part in ["face library (MediaPipe)", "face model", "recognition models (dlib)"] {
      let finding = try Self.finding(part, in: report)
      #expect(finding.status == .ok || finding.detail.contains("there is no"), "\(part): \(finding.detail)")
    }
  }

  @Test("--json says the same as the text: every finding, and ok false when an example's part is missing")
  func json() throws {
    let (folder, home) = try Self.home(files: [:])
    defer { folder.remove() }
    let report = Doctor(home: home, environment: [:], devicePaths: []).examine()
    let json = try JSONParser.parse(report.json())
    #expect(json["ok"] == .bool(false))
    let findings = try #require(json["findings"]?.arrayValue)
    #expect(findings.count == report.findings.count)
    #expect(findings.compactMap { $0["part"]?.stringValue } == report.findings.map(\.part))
    #expect(findings.compactMap { $0["status"]?.stringValue } == report.findings.map(\.status.rawValue))
    let text = report.render()
    #expect(text.hasSuffix("missing " + report.missingForExamples.map(\.part).joined(separator: ", ")))
  }
}
