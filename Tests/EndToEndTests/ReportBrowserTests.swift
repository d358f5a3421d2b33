import Foundation
import TestSupport
import Testing

/// `run --report` on a real card run and a real face run, rendered by
/// headless Chromium: the plots, hints and key frames are on the page, and
/// a screenshot is not blank.
@Suite(
  .enabled(
    if: Browser.available || Browser.required,
    "chromium or python3 is not installed (scripts/install-test-deps installs chromium); with CI=true this runs"))
struct ReportBrowserTests {
  struct Rendered {
    var counts: [String: Any]
    var nonWhite: Int
  }

  /// Renders `report` with the probe, and screenshots it.
  private func render(_ report: String, folder: TemporaryFolder) throws -> Rendered {
    let chromium = try #require(
      Browser.chromium, "CI is set and chromium is not installed: run scripts/install-test-deps")
    let python = try #require(Browser.python)
    let html = String(decoding: try #require(FileManager.default.contents(atPath: report)), as: UTF8.self)
    let probePage = (report as NSString).deletingLastPathComponent + "/probe.html"
    try html.replacingOccurrences(of: "</body>", with: probeScript + "\n</body>")
      .write(toFile: probePage, atomically: true, encoding: .utf8)
    let dump = try Browser.run(
      chromium, Browser.options(folder) + ["--virtual-time-budget=5000", "--dump-dom", "file://" + probePage],
      folder: folder)
    #expect(dump.status == 0, "\(dump.stderr)")
    let start = try #require(dump.stdout.range(of: "<title>probe "), "the probe did not run: \(dump.stderr)")
    let end = try #require(dump.stdout.range(of: "</title>", range: start.upperBound..<dump.stdout.endIndex))
    let json = String(dump.stdout[start.upperBound..<end.lowerBound])
      .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    let counts = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])

    let screenshot = folder.file("shot.png")
    let shot = try Browser.run(
      chromium,
      Browser.options(folder) + ["--screenshot=" + screenshot, "--window-size=1280,1600", "file://" + report],
      folder: folder)
    #expect(shot.status == 0, "\(shot.stderr)")
    let stats = try Browser.run(
      python, [packageRoot + "/Tests/SessionReportTests/Fixtures/png-stats.py", screenshot, "1a7f37", "0969da"],
      folder: folder)
    #expect(stats.status == 0, "\(stats.stderr)")
    let decoded = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
    return Rendered(counts: counts, nonWhite: decoded["non_white"] as? Int ?? 0)
  }

  @Test func theReportOfACardRunShowsItsPlotsHintsAndKeyFrames() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let scene = folder.file("scene.avi")
    let synth = try workbench(
      ["synth", "card", "--schedule", "examples/synth/hkid-2018-pass.json", "--out", scene, "--size", "640x360"],
      folder: folder)
    #expect(synth.status == 0, "\(synth)")
    let run = try workbench(
      [
        "run", "examples/hkid-2018.lua", "--input", scene, "--report", folder.file("report"), "--artifacts",
        folder.file("out"),
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    #expect(run.stderr.contains("report: \(folder.file("report"))/report.html"), "\(run)")
    let rendered = try render(folder.file("report/report.html"), folder: folder)
    let counts = rendered.counts
    #expect((counts["plots"] as? Int ?? 0) >= 5, "\(counts)")
    #expect(counts["linesDrawn"] as? Int == counts["plots"] as? Int, "\(counts)")
    #expect((counts["thresholds"] as? Int ?? 0) >= 8, "flip and front angles, far and near, speed, glare: \(counts)")
    #expect((counts["hintRows"] as? Int ?? 0) >= 8, "\(counts)")
    // The three captures: the frame, the rectified card and the portrait each.
    #expect((counts["decoded"] as? Int ?? 0) >= 9, "\(counts)")
    #expect(counts["decoded"] as? Int == counts["images"] as? Int)
    #expect(rendered.nonWhite > 1280 * 1600 / 20, "only \(rendered.nonWhite) pixels are not white")
  }

  @Test func theReportOfAFaceRunShowsItsPlotsHintsAndKeyFrames() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let run = try workbench(
      [
        "run", "examples/best-shot.lua", "--input", "examples/recordings/face-blink.avi", "--set",
        "best_shot.min_face_px=100", "--report", folder.file("report"), "--artifacts", folder.file("out"),
        // With an events file of its own, the report is made from that file.
        "--events", folder.file("events.jsonl"),
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    let rendered = try render(folder.file("report/report.html"), folder: folder)
    let counts = rendered.counts
    #expect((counts["plots"] as? Int ?? 0) >= 5, "yaw, pitch, roll, eye openness, quality: \(counts)")
    #expect((counts["thresholds"] as? Int ?? 0) >= 2, "\(counts)")
    #expect((counts["hintRows"] as? Int ?? 0) >= 1, "\(counts)")
    // The best shot: the frame and the aligned face.
    #expect((counts["decoded"] as? Int ?? 0) >= 2, "\(counts)")
    #expect(rendered.nonWhite > 1280 * 1600 / 20, "only \(rendered.nonWhite) pixels are not white")
  }
}
