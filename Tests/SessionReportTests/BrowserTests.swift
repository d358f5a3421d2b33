import Foundation
import SessionReport
import TestSupport
import Testing

@Suite struct BrowserTests {
  /// The report of a whole run, from the files the run wrote, in `folder/report`.
  func writeReport(in folder: TemporaryFolder) throws -> String {
    let out = try folder.subfolder("out")
    // The run's --artifacts folder: the captures name out/first.jpg.
    try FileManager.default.copyItem(
      atPath: packageRootPath + "/Tests/Fixtures/frames/0001.jpg", toPath: out + "/first.jpg")
    let run = SyntheticRun(image: "out/first.jpg")
    let events = try folder.write("out/events.jsonl", run.eventsText)
    let trace = try folder.write("out/trace.jsonl", run.traceText)
    let settings = try folder.write("out/settings.json", SyntheticRun.settingsText)
    let input = try SessionReport.Input.load(events: events, trace: trace, settings: settings)
    return try SessionReport.write(input, to: folder.file("report"))
  }

  @Test(
    .enabled(
      if: Browser.available || Browser.required,
      "chromium or python3 is not installed (scripts/install-test-deps installs chromium); with CI=true this test runs and fails instead"
    ))
  func chromiumRendersTheReport() throws {
    let chromium = try #require(
      Browser.chromium, "CI is set and chromium is not installed: run scripts/install-test-deps")
    let python = try #require(Browser.python, "CI is set and python3 is not installed")
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let report = try writeReport(in: folder)
    let html = String(decoding: try #require(FileManager.default.contents(atPath: report)), as: UTF8.self)

    // The DOM as rendered: a copy of the page with the probe.
    let probePage = folder.file("report/probe.html")
    try html.replacingOccurrences(of: "</body>", with: probeScript + "\n</body>")
      .write(toFile: probePage, atomically: true, encoding: .utf8)
    let dump = try Browser.run(
      chromium, Browser.options(folder) + ["--virtual-time-budget=5000", "--dump-dom", "file://" + probePage],
      folder: folder)
    #expect(dump.status == 0, "\(dump.stderr)")
    let title = try #require(
      Page.elements(dump.stdout, start: "<title>probe ", end: "</title>").first, "the probe did not run: \(dump.stderr)"
    )
    let probe =
      try JSONSerialization.jsonObject(
        with: Data(title.dropFirst("<title>probe ".count).dropLast("</title>".count).utf8)) as? [String: Any]
    let counts = try #require(probe)
    #expect(counts["plots"] as? Int == 6)
    #expect(counts["plotsShown"] as? Int == 6, "every plot has a size on the page")
    #expect(counts["linesDrawn"] as? Int == 6, "every plot has its line")
    #expect(counts["thresholds"] as? Int == 8, "±flip angle on both tilts, far and near ratio, speed, glare")
    #expect(counts["thresholdLabels"] as? Int == 8)
    #expect(counts["bands"] as? Int == 30, "5 steps on 6 plots")
    #expect(counts["statuses"] as? Int == 8)
    #expect(counts["images"] as? Int == 2)
    #expect(counts["decoded"] as? Int == 2, "the embedded JPEGs decode")
    #expect(counts["naturalWidths"] as? [Int] == [640, 640])
    #expect(counts["hintRows"] as? Int == 3)
    #expect(counts["settingRows"] as? Int == SyntheticRun.settings.count)
    #expect(counts["badgeColour"] as? String == "rgb(26, 127, 55)", "the stylesheet applies")

    // The page itself, as a reader sees it.
    let screenshot = folder.file("report.png")
    let started = Date()
    let shot = try Browser.run(
      chromium,
      Browser.options(folder) + ["--screenshot=" + screenshot, "--window-size=1280,2000", "file://" + report],
      folder: folder)
    print("chromium screenshot took \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    #expect(shot.status == 0, "\(shot.stderr)")
    let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot: \(shot.stderr)")
    let bytes = [UInt8](png)
    try #require(bytes.count > 24 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
    let be32 = { (offset: Int) in bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    #expect(be32(16) == 1280 && be32(20) == 2000, "IHDR size \(be32(16))×\(be32(20))")
    // Decoded with zlib: a blank or unstyled page fails here.
    let stats = try Browser.run(
      python, [packageRootPath + "/Tests/SessionReportTests/Fixtures/png-stats.py", screenshot, "1a7f37", "0969da"],
      folder: folder)
    #expect(stats.status == 0, "\(stats.stderr)")
    // SESSION_REPORT_KEEP=DIR keeps the page, the probe and the screenshot there, to look at.
    if let keep = ProcessInfo.processInfo.environment["SESSION_REPORT_KEEP"] {
      try? FileManager.default.removeItem(atPath: keep)
      try FileManager.default.copyItem(atPath: folder.path, toPath: keep)
      print("png stats: \(stats.stdout) probe: \(title)")
    }
    let decoded = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
    #expect(decoded["width"] as? Int == 1280)
    #expect(decoded["height"] as? Int == 2000)
    let nonWhite = try #require(decoded["non_white"] as? Int)
    #expect(nonWhite > 1280 * 2000 / 20, "only \(nonWhite) pixels are not white")
    #expect((decoded["colours"] as? Int ?? 0) > 100, "\(decoded)")
    let near = try #require(decoded["near"] as? [String: Int])
    #expect(near["1a7f37", default: 0] > 3000, "the green PASSED badge: \(near)")
    #expect(near["0969da", default: 0] > 1000, "the measurement lines: \(near)")
  }
}
