import Foundation
import JSONCore
import TestSupport
import Testing

/// `workbench report` on what real runs wrote.
@Suite struct ReportCommandTests {
  @Test func theReportOfAnHKIDRunPlotsTheCardWithItsThresholdsAndSteps() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try folder.write("card.jsonl", CardMotion.flips(axis: "y", first: 35, second: -35).trace)
    let run = try workbench(
      [
        "run", "examples/hkid-2018.lua", "--input", trace, "--quiet", "--events", folder.file("events.jsonl"),
        "--trace-out", folder.file("seen.jsonl"), "--set", "hkid.flip_angle=20",
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    let settings = try workbench(
      ["settings", "examples/hkid-2018.lua", "--json", "--set", "hkid.flip_angle=20"], folder: folder)
    try #require(settings.status == 0, "\(settings)")
    try folder.write("settings.json", settings.stdout)

    let report = try workbench(
      [
        "report", "--events", folder.file("events.jsonl"), "--trace", folder.file("seen.jsonl"), "--settings",
        folder.file("settings.json"), "--out", folder.file("report"),
      ], folder: folder)
    #expect(report.status == 0, "\(report)")
    #expect(report.stdout == folder.file("report/report.html") + "\n")
    #expect(folder.listing(of: "report") == ["report.html"])
    let html = try #require(fileText(folder.file("report/report.html")))
    #expect(html.contains("<span class=\"verdict\">PASSED</span>"))
    let plotted = Page.attributes("data-series", of: "<svg class=\"plot\"", in: html)
    #expect(
      plotted == ["card.tilt_x", "card.tilt_y", "card.size_ratio", "card.speed", "card.glare"],
      "\(plotted)")
    // card.tilt_y: the lines are the flips' own tests, labelled by their steps.
    let tiltY = try #require(Page.plot(html, series: "card.tilt_y"))
    #expect(tiltY.contains("data-setting=\"flip right: above\" data-value=\"20\""), "\(tiltY.prefix(300))")
    #expect(tiltY.contains("data-setting=\"flip left: below\" data-value=\"-20\""))
    #expect(!tiltY.contains("hkid.flip_angle"))
    // card.tilt_x, which no step tests by name, keeps the setting's lines.
    #expect(html.contains("data-setting=\"hkid.flip_angle\" data-value=\"20\""))
    #expect(html.contains("data-setting=\"hkid.flip_angle\" data-value=\"-20\""))
    #expect(html.contains("<tr><td>hkid.flip_angle</td><td>20</td><td>--set</td><td>card.tilt_x</td></tr>"))
    for step in ["card front-on", "flip right", "back to front", "flip left", "back to front again"] {
      #expect(html.contains("data-step=\"\(step)\""), "\(step)")
    }
    for status in ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "COMPLETE"] {
      #expect(html.contains("data-status=\"\(status)\""), "\(status)")
    }
    #expect(html.contains("<td>idcard_operation_title1</td>"))
    // A trace keeps no pixels: the captures are listed without images.
    #expect(html.contains("data-capture=\"first\""))
    #expect(!html.contains("data:image"))
  }

  @Test func capturedFramesAreEmbedded() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write(
      "cap.lua",
      """
      local wb = require "wb"
      return wb.flow { name = "cap", steps = {
        wb.step { name = "ten frames", needs = { "quality.blur" }, update = function(self, m, ctx)
          if m.frame == 5 then ctx.capture("first") end
          if m.frame == 10 then ctx.capture("second"); return true end
        end } } }
      """)
    let out = try folder.subfolder("out")
    let run = try workbench(
      [
        "run", flow, "--input", "examples/recordings/face-blink.avi", "--quiet", "--artifacts", out, "--events",
        out + "/events.jsonl", "--trace-out", out + "/seen.jsonl",
      ], folder: folder)
    #expect(run.status == 0, "\(run)")
    let report = try workbench(
      ["report", "--events", out + "/events.jsonl", "--trace", out + "/seen.jsonl", "--out", out + "/report"],
      folder: folder)
    #expect(report.status == 0, "\(report)")
    let html = try #require(fileText(out + "/report/report.html"))
    let first = try #require(FileManager.default.contents(atPath: out + "/first.jpg"))
    #expect(html.contains("src=\"data:image/jpeg;base64,\(first.base64EncodedString())\""))
    #expect(Page.attributes("data-capture", of: "<div class=\"capture", in: html) == ["first", "second"])
    // The estimators the flow needs are measured and plotted; the frame size is not.
    #expect(Page.attributes("data-series", of: "<svg class=\"plot\"", in: html) == ["quality.blur"])
  }

  @Test func problemsNameThePath() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let events = try folder.write("events.jsonl", "{\"type\":\"result\",\"t\":0,\"frame\":0,\"success\":true}\n")
    let noParent = try workbench(["report", "--events", events, "--out", folder.file("no/report")], folder: folder)
    #expect(noParent.status == 2, "\(noParent)")
    #expect(
      noParent.stderr.contains("error: \(folder.file("no/report")): the folder \(folder.file("no")) does not exist"))
    let missing = try workbench(
      ["report", "--events", folder.file("none.jsonl"), "--out", folder.path], folder: folder)
    #expect(missing.status == 4, "\(missing)")
    #expect(missing.stderr.contains("error: \(folder.file("none.jsonl")): no such file"), "\(missing)")
    let bad = try folder.write("bad.jsonl", "{\"type\":\"session\"}\nnot json\n")
    let badLine = try workbench(["report", "--events", bad, "--out", folder.path], folder: folder)
    #expect(badLine.status == 4, "\(badLine)")
    #expect(badLine.stderr.contains("error: \(bad):2: not valid JSON"), "\(badLine)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("report.html")))
  }
}

/// Attribute values of the report's elements.
enum Page {
  /// The value of `name` in every tag that starts with `start`, in order.
  static func attributes(_ name: String, of start: String, in html: String) -> [String] {
    html.components(separatedBy: start).dropFirst().compactMap { tag in
      let head = tag.prefix { $0 != ">" }
      guard let range = head.range(of: " \(name)=\"") else { return nil }
      return String(head[range.upperBound...].prefix { $0 != "\"" })
    }
  }

  /// The `<svg class="plot">` of one measurement.
  static func plot(_ html: String, series: String) -> Substring? {
    html.components(separatedBy: "<svg class=\"plot\"").dropFirst()
      .first { $0.prefix { $0 != ">" }.contains("data-series=\"\(series)\"") }
      .map { Substring($0.components(separatedBy: "</svg>").first ?? "") }
  }
}
