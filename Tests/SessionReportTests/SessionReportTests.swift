import Diagnostics
import Foundation
import JSONCore
import TestSupport
import Testing

@testable import SessionReport

@Suite struct PlotTests {
  let html = SessionReport.render(SyntheticRun().input)

  @Test func oneSVGPerNumericCardMeasurementMostRelevantFirst() {
    // card.found is a boolean and card.corners geometry: neither is plotted.
    let series = Page.plots(html).map { Page.attribute("data-series", in: $0) }
    #expect(
      series == ["card.tilt_x", "card.tilt_y", "card.size_ratio", "card.width_ratio", "card.speed", "card.glare"])
    #expect(Page.count("<svg", in: html) == series.count + 1, "the plots and the timeline")
  }

  @Test func thresholdLinesSitAtTheSettingsValueOnTheValueAxis() throws {
    let plot = try #require(Page.plot(html, series: "card.tilt_y"))
    // tilt_y spans −35…35 and the lines ±25: the axis runs −40…40 in steps of 20.
    #expect(Page.attribute("data-y-min", in: plot) == "-40")
    #expect(Page.attribute("data-y-max", in: plot) == "40")
    let top = try #require(Page.attribute("data-plot-top", in: plot).flatMap(Double.init))
    let bottom = try #require(Page.attribute("data-plot-bottom", in: plot).flatMap(Double.init))
    for value in [25.0, -25.0] {
      let group = try #require(
        Page.elements(
          String(plot), start: "<g class=\"threshold\" data-setting=\"hkid.flip_angle\" data-value=\"\(Int(value))\"",
          end: "</g>"
        ).first,
        "no line for \(value)")
      let line = try #require(Page.elements(String(group), start: "<line", end: "/>").first)
      let y = try #require(Page.attribute("y1", in: line).flatMap(Double.init))
      #expect(Page.attribute("y2", in: line).flatMap(Double.init) == y, "horizontal")
      let expected = top + (40 - value) / 80 * (bottom - top)
      #expect(abs(y - expected) <= 0.05, "y \(y) for \(value), expected \(expected)")
      #expect(group.contains("hkid.flip_angle = \(Int(value))"), "labelled with the setting and its value")
    }
    #expect(Page.count("class=\"threshold\"", in: plot) == 2)
  }

  @Test func settingsBecomeLinesOnTheirMeasurementsOnly() throws {
    // FAR and NEAR read the card's size with the tilt taken out, not its projected width.
    #expect(try #require(Page.plot(html, series: "card.width_ratio")).contains("hkid.far_ratio") == false)
    let ratio = try #require(Page.plot(html, series: "card.size_ratio"))
    #expect(ratio.contains("data-setting=\"hkid.far_ratio\" data-value=\"0.3\""))
    #expect(ratio.contains("data-setting=\"hkid.near_ratio\" data-value=\"0.85\""))
    #expect(!ratio.contains("hkid.flip_angle"))
    let speed = try #require(Page.plot(html, series: "card.speed"))
    #expect(speed.contains("data-setting=\"hkid.max_speed\" data-value=\"150\""))
    #expect(try #require(Page.plot(html, series: "card.glare")).contains("data-setting=\"hkid.glare_max\""))
    // front_hold_ms is a time, not a level: no line anywhere.
    #expect(!html.contains("data-setting=\"hkid.front_hold_ms\""))
  }

  @Test func stepsAreShadedBandsWithTheirNamesAtTheirTimes() throws {
    let plot = try #require(Page.plot(html, series: "card.tilt_y"))
    let bands = Page.elements(String(plot), start: "<rect class=\"band", end: "</rect>")
    #expect(
      bands.compactMap { Page.attribute("data-step", in: $0) } == [
        "card front-on", "flip right", "back to front", "flip left", "back to front again",
      ])
    // 5 s over 880 px from x = 64: "flip right" runs from 1 s to 1.8 s.
    let flip = try #require(bands.first { $0.contains("data-step=\"flip right\"") })
    #expect(Page.attribute("x", in: flip) == "240.0")
    #expect(Page.attribute("width", in: flip) == "140.8")
    #expect(Page.attribute("class", in: flip)?.hasPrefix("band passed") == true)
    #expect(plot.contains(">flip right</text>"))
    #expect(html.contains("<rect class=\"step-bar passed\""), "the timeline has the steps too")
  }

  @Test func aFailedStepIsShadedAsFailed() throws {
    let html = SessionReport.render(SyntheticRun(success: false).input)
    let plot = try #require(Page.plot(html, series: "card.tilt_y"))
    let failed = Page.elements(String(plot), start: "<rect class=\"band failed", end: "</rect>")
    #expect(failed.count == 1)
    #expect(failed.first.flatMap { Page.attribute("data-step", in: $0) } == "flip left")
    #expect(failed.first?.contains("end_of_input") == true, "the tooltip says why")
  }

  @Test func statusesAreMarkedInTheTimelineAndEveryPlot() throws {
    let statuses = ["BEGIN", "FAR", "VALID", "ORTH", "RESET", "LEFTDOWN", "RESET", "COMPLETE"]
    let plots = Page.plots(html)
    for plot in plots {
      let marks = Page.elements(String(plot), start: "<g class=\"status-mark\"", end: "</g>")
      #expect(marks.compactMap { Page.attribute("data-status", in: $0) } == statuses)
    }
    #expect(Page.count("<g class=\"status-mark\"", in: html) == statuses.count * (plots.count + 1))
    let orth = try #require(
      Page.elements(String(plots[1]), start: "<g class=\"status-mark\" data-status=\"ORTH\"", end: "</g>").first)
    #expect(orth.contains("x1=\"240.0\""), "at 1 s")
  }

  @Test func aMissingValueBreaksTheLine() throws {
    let plot = try #require(Page.plot(html, series: "card.tilt_y"))
    let path = try #require(Page.elements(String(plot), start: "<path class=\"series\"", end: "/>").first)
    let d = try #require(Page.attribute("d", in: path))
    #expect(Page.count("M", in: d) == 2, "one break where the card is out of view")
    #expect(Page.count("L", in: d) == SyntheticRun.frameCount - 6 - 2)
    // Without the gap the line is whole.
    let whole = SessionReport.render(SyntheticRun(gapStart: 0, gapEnd: 0).input)
    let wholePath = try #require(
      Page.plot(whole, series: "card.tilt_y").flatMap {
        Page.elements(String($0), start: "<path class=\"series\"", end: "/>").first
      })
    #expect(Page.count("M", in: Page.attribute("d", in: wholePath) ?? "") == 1)
  }

  @Test func aLonePointIsADot() throws {
    var run = SyntheticRun()
    run.gapStart = 1
    run.gapEnd = 150
    let html = SessionReport.render(run.input)
    let plot = try #require(Page.plot(html, series: "card.tilt_y"))
    #expect(Page.count("<circle class=\"point\"", in: plot) == 2, "the first and the last frame")
  }
}

@Suite struct SectionTests {
  let html = SessionReport.render(SyntheticRun().input)

  @Test func headerHasTheFlowTheResultBadgeAndTheFacts() {
    #expect(html.contains("<h1>hkid-2018</h1>"))
    #expect(html.contains("<p class=\"file\">examples/hkid-2018.lua</p>"))
    #expect(html.contains("<div class=\"badge passed\" id=\"verdict\"><span class=\"verdict\">PASSED</span>"))
    #expect(html.contains("code 0 · passed"))
    #expect(html.contains("<dt>duration</dt><dd>5 s</dd>"))
    #expect(html.contains("<dt>frames</dt><dd>151</dd>"))
    #expect(html.contains("<dt>seed</dt><dd>0</dd>"))
    #expect(html.contains("<dt>input</dt><dd>card.jsonl (trace)</dd>"))
    let failed = SessionReport.render(SyntheticRun(success: false).input)
    #expect(failed.contains("<div class=\"badge failed\" id=\"verdict\"><span class=\"verdict\">FAILED</span>"))
    #expect(failed.contains("code 3 · end_of_input"))
  }

  @Test func hintsAreListedAsShown() {
    #expect(
      Page.rows(html, section: "hints") == [
        ["0.000", "idcard_operation_title1", "Hold the card front-on", "en", ""],
        ["1.000", "idcard_operation_title2", "Flip the card to the right", "en", ""],
        ["3.000", "idcard_operation_title3", "Flip the card to the left", "en", ""],
      ])
    #expect(Page.count("<circle class=\"hint-mark\"", in: html) == 3)
  }

  @Test func textIsEscaped() {
    let run = SyntheticRun(hintText: "<script>alert(\"x & y\")</script>")
    let html = SessionReport.render(run.input)
    #expect(!html.contains("<script"))
    #expect(html.contains("<td>&lt;script&gt;alert(&quot;x &amp; y&quot;)&lt;/script&gt;</td>"))
  }

  @Test func settingsAreListedWithWhereTheyAreDrawn() {
    let rows = Page.rows(html, section: "settings")
    #expect(rows.count == SyntheticRun.settings.count)
    #expect(rows.contains(["hkid.flip_angle", "25", "--set", "card.tilt_x, card.tilt_y"]))
    #expect(rows.contains(["hkid.far_ratio", "0.3", "default", "card.size_ratio"]))
    #expect(rows.contains(["hkid.front_hold_ms", "300", "default", ""]))
    #expect(rows.contains(["messages.language", "en", "configs/settings.json", ""]))
  }

  @Test func everyFieldOfTheResultIsShown() {
    #expect(
      Page.rows(html, section: "result") == [
        ["type", "result"], ["t", "5"], ["frame", "150"], ["success", "true"], ["code", "0"], ["reason", "passed"],
        ["message", "Complete"], ["steps_passed", "5"], ["steps", "5"], ["frames", "151"], ["duration", "5"],
      ])
  }

  @Test func statusesAndIntermediateResultsAreListed() {
    let rows = Page.rows(html, section: "statuses")
    #expect(
      rows.map { $0[2] } == ["BEGIN", "FAR", "VALID", "ORTH", "intermediate", "RESET", "LEFTDOWN", "RESET", "COMPLETE"])
    #expect(rows[1] == ["0.200", "6", "FAR", "ratio=0.25"])
  }

  @Test func capturedImagesAreEmbeddedAsDataURIs() throws {
    let jpeg = try #require(FileManager.default.contents(atPath: packageRootPath + "/Tests/Fixtures/frames/0001.jpg"))
    let uri = "src=\"data:image/jpeg;base64,\(jpeg.base64EncodedString())\""
    #expect(Page.count(uri, in: html) == 2, "first and second")
    let captures = Page.elements(html, start: "<div class=\"capture", end: "</div>\n")
    #expect(captures.compactMap { Page.attribute("data-capture", in: $0) } == ["first", "second"])
    #expect(captures.first?.contains("t 1.800 s") == true)
    #expect(captures.first?.contains("frame 54") == true)
    #expect(!html.contains("class=\"capture at-failure\""))
    #expect(!html.contains("src=\"http"), "nothing external")
    #expect(!html.contains("href="))
  }

  @Test func afterAFailureTheLastCaptureIsMarked() {
    let html = SessionReport.render(SyntheticRun(success: false).input)
    #expect(html.contains("<div class=\"capture at-failure\" data-capture=\"first\">"))
    #expect(html.contains("last capture before the failure"))
  }

  @Test func anImageThatIsNotThereIsNamedNotEmbedded() {
    let html = SessionReport.render(SyntheticRun(image: "out/nothere.jpg").input)
    #expect(!html.contains("data:image"))
    #expect(Page.count("<div class=\"missing\">image not found</div>", in: html) == 2)
    #expect(html.contains("<code>out/nothere.jpg</code>"))
  }

  @Test func theSameInputGivesTheSameBytes() {
    #expect(SessionReport.render(SyntheticRun().input) == html)
    #expect(
      SessionReport.render(SyntheticRun(success: false).input)
        == SessionReport.render(SyntheticRun(success: false).input))
  }

  @Test func givenThresholdsAreDrawnBesideTheRules() throws {
    var input = SyntheticRun().input
    input.thresholds = [SessionReport.Threshold(path: "card.glare", value: 0.05, label: "warn")]
    input.thresholdRules = []
    let html = SessionReport.render(input)
    #expect(try #require(Page.plot(html, series: "card.glare")).contains("data-setting=\"warn\" data-value=\"0.05\""))
    #expect(!html.contains("hkid.flip_angle = 25"), "no rules, no lines from settings")
  }

  @Test func noFramesStillGivesAPage() {
    let html = SessionReport.render(SessionReport.Input(events: SyntheticRun().events))
    #expect(Page.plots(html).isEmpty)
    #expect(html.contains("No measurements to plot"))
    #expect(html.contains("<svg class=\"lane\""))
  }
}

@Suite struct ThresholdRuleTests {
  func lines(_ key: String, _ value: JSONValue, series: Set<String>) -> [String] {
    ThresholdRule.thresholds(
      for: [SessionReport.Setting(key: key, value: value, source: "default")], rules: ThresholdRule.defaults,
      series: series
    ).map { "\($0.path) \($0.value) \($0.label)" }
  }

  let everything: Set<String> = [
    "card.tilt_x", "card.tilt_y", "card.width_ratio", "card.size_ratio", "card.speed", "card.glare", "face.yaw",
    "face.pitch",
    "face.roll", "face.ear_left", "face.ear_right", "quality.blur", "face.quality.blur", "quality.darkness",
  ]

  @Test func cardSettings() {
    #expect(
      lines("hkid.flip_angle", 25, series: everything) == [
        "card.tilt_x 25.0 hkid.flip_angle", "card.tilt_x -25.0 hkid.flip_angle",
        "card.tilt_y 25.0 hkid.flip_angle", "card.tilt_y -25.0 hkid.flip_angle",
      ])
    #expect(lines("hkid.near_ratio", 0.85, series: everything) == ["card.size_ratio 0.85 hkid.near_ratio"])
    #expect(lines("hkid.glare_max", 0.08, series: everything) == ["card.glare 0.08 hkid.glare_max"])
    #expect(lines("hkid.max_speed", 150, series: everything) == ["card.speed 150.0 hkid.max_speed"])
  }

  @Test func faceSettings() {
    #expect(
      lines("liveness.yaw_end", 30, series: everything) == [
        "face.yaw 30.0 liveness.yaw_end", "face.yaw -30.0 liveness.yaw_end",
      ])
    #expect(lines("liveness.pitch_start", 5, series: everything).first == "face.pitch 5.0 liveness.pitch_start")
    #expect(lines("best_shot.max_angle", 25, series: everything).count == 6)
    #expect(
      lines("best_shot.max_yaw", 25, series: everything) == [
        "face.yaw 25.0 best_shot.max_yaw", "face.yaw -25.0 best_shot.max_yaw",
      ])
    #expect(
      lines("best_shot.light", 0.57, series: ["face.quality.lightness"]) == [
        "face.quality.lightness 0.57 best_shot.light"
      ])
    #expect(
      lines("best_shot.dark", 0.5, series: ["face.quality.darkness"]) == ["face.quality.darkness 0.5 best_shot.dark"])
    #expect(
      lines("liveness.closed_below", 0.15, series: everything) == [
        "face.ear_left 0.15 liveness.closed_below", "face.ear_right 0.15 liveness.closed_below",
      ])
  }

  @Test func qualitySettings() {
    #expect(
      lines("image_quality.min_sharpness", 0.61, series: everything) == [
        "quality.blur 0.61 image_quality.min_sharpness", "face.quality.blur 0.61 image_quality.min_sharpness",
      ])
    #expect(lines("my.min_darkness", 0.5, series: everything) == ["quality.darkness 0.5 my.min_darkness"])
  }

  @Test func onlyNumbersOnPlottedSeries() {
    #expect(lines("hkid.flip_angle", 25, series: ["face.yaw"]).isEmpty)
    #expect(lines("hkid.flip_angle", "25", series: everything).isEmpty)
    #expect(lines("best_shot.accept_eyes_closed", true, series: everything).isEmpty)
    #expect(lines("hkid.front_hold_ms", 300, series: everything).isEmpty)
    #expect(lines("flow.time_limit", 20, series: everything).isEmpty)
  }
}

@Suite struct WriteTests {
  @Test func writesReportHTMLIntoANewFolder() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = SyntheticRun().input
    let path = try SessionReport.write(input, to: folder.file("report"))
    #expect(path == folder.file("report/report.html"))
    let written = try #require(FileManager.default.contents(atPath: path))
    #expect(String(decoding: written, as: UTF8.self) == SessionReport.render(input))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.file("report")) == ["report.html"],
      "no temporary file left")
    // Again into the same folder: replaced.
    try SessionReport.write(SyntheticRun(success: false).input, to: folder.file("report"))
    #expect(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self).contains("FAILED"))
  }

  @Test func aFolderWhoseParentIsMissingIsNamed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let target = folder.file("no/such/report")
    let error = try #require(throws: WorkbenchError.self) { try SessionReport.write(SyntheticRun().input, to: target) }
    #expect(error.description.hasPrefix(target + ": the folder " + folder.file("no/such") + " does not exist"))
    #expect(error.status == .usage)
    #expect(!FileManager.default.fileExists(atPath: folder.file("no")))
  }

  @Test func aFileInsteadOfAFolderIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("taken", "x")
    let error = try #require(throws: WorkbenchError.self) { try SessionReport.write(SyntheticRun().input, to: file) }
    #expect(error.description.hasPrefix(file + ": is a file, not a folder"))
  }
}

@Suite struct LoadTests {
  @Test func theFilesOfARunGiveTheSamePage() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let run = SyntheticRun(image: packageRootPath + "/Tests/Fixtures/frames/0001.jpg")
    let events = try folder.write("events.jsonl", run.eventsText)
    let trace = try folder.write("trace.jsonl", run.traceText)
    let settings = try folder.write("settings.json", SyntheticRun.settingsText)
    let loaded = try SessionReport.Input.load(events: events, trace: trace, settings: settings)
    // Whole numbers read back as integers: compare the JSON.
    #expect(loaded.events.map(\.jsonText) == run.events.map(\.jsonText))
    #expect(loaded.frames.map(\.jsonText) == run.frames.map(\.jsonText), "the header line is not a frame")
    #expect(loaded.settings == SyntheticRun.settings)
    #expect(loaded.imageFolders == [".", folder.path])
    var expected = run.input
    expected.imageFolders = loaded.imageFolders
    #expect(SessionReport.render(loaded) == SessionReport.render(expected))
  }

  @Test func imagesAreFoundBesideTheEvents() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let jpeg = try #require(FileManager.default.contents(atPath: packageRootPath + "/Tests/Fixtures/frames/0002.jpg"))
    try jpeg.write(to: URL(fileURLWithPath: folder.file("first.jpg")))
    let run = SyntheticRun(image: "elsewhere/first.jpg")
    let events = try folder.write("events.jsonl", run.eventsText)
    let html = SessionReport.render(try SessionReport.Input.load(events: events, trace: nil, settings: nil))
    #expect(Page.count("data:image/jpeg;base64,\(jpeg.base64EncodedString())", in: html) == 2)
  }

  @Test func aBadLineIsNamedWithItsFileAndLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let events = try folder.write("events.jsonl", SyntheticRun().eventsText)
    let trace = try folder.write("trace.jsonl", "{\"workbench_trace\":1}\n{\"t\":0}\n{\"t\":\n")
    let settings = try folder.write("settings.json", "{\"key\":\"x\"}")
    let error = try #require(throws: WorkbenchError.self) {
      try SessionReport.Input.load(events: events, trace: trace, settings: nil)
    }
    #expect(error.description.hasPrefix(trace + ":3: not valid JSON"))
    #expect(error.status == .input)
    do {
      _ = try SessionReport.Input.load(events: events, trace: nil, settings: settings)
      Issue.record("settings that are not an array were read")
    } catch {
      #expect(error.description.hasPrefix(settings + ": must be a JSON array of settings"))
    }
    do {
      _ = try SessionReport.Input.load(events: folder.file("none.jsonl"), trace: nil, settings: nil)
      Issue.record("a missing events file was read")
    } catch {
      #expect(error.description.hasPrefix(folder.file("none.jsonl") + ": no such file"))
    }
  }
}

/// Lines from the flow's own tests (the `thresholds` of step and session
/// events) win over lines guessed from setting names; status labels never
/// overlap.
@Suite struct TestedThresholdTests {
  func run(addingThresholds: Bool) -> String {
    var synthetic = SyntheticRun()
    var events = synthetic.events
    if addingThresholds {
      events = events.map { event in
        guard event["type"] == .string("step"), event["state"] == .string("started"),
          event["name"]?.stringValue?.hasPrefix("flip") == true, case .object(var fields) = event
        else { return event }
        let value = event["name"] == .string("flip right") ? "above" : "below"
        fields["thresholds"] = .array([
          .object(JSONObject([("field", .string("card.tilt_y")), (value, .number(value == "above" ? 30 : -30))]))
        ])
        return .object(fields)
      }
    }
    synthetic.success = true
    var input = synthetic.input
    input.events = events
    return SessionReport.render(input)
  }

  @Test func aStepsOwnTestIsTheLineAndTheSettingsGuessIsNot() throws {
    let plot = try #require(Page.plot(run(addingThresholds: true), series: "card.tilt_y"))
    #expect(plot.contains("data-setting=\"flip right: above\" data-value=\"30\""), "\(plot.prefix(400))")
    #expect(plot.contains("flip right: above 30"))
    #expect(plot.contains("data-setting=\"flip left: below\" data-value=\"-30\""))
    #expect(!plot.contains("hkid.flip_angle"), "the guess from the setting's name is left out")
    // Without the steps' tests, the settings' lines are drawn as before.
    let guessed = try #require(Page.plot(run(addingThresholds: false), series: "card.tilt_y"))
    #expect(guessed.contains("data-setting=\"hkid.flip_angle\""))
  }

  @Test func statusesFasterThanTheirLabelsKeepTheirTicksWithoutOverlappingText() {
    // Ten statuses 20 px apart, each label 60 px wide, in two rows.
    let items = (0..<10).map { (x: Double($0) * 20, width: 60.0) }
    let rows = ChartRenderer.labelRows(items, rows: 2)
    #expect(rows.count == 10)
    var ends: [Int: Double] = [:]
    for (item, row) in zip(items, rows) {
      guard let row else { continue }
      #expect(item.x >= (ends[row] ?? -.infinity) + 4, "label at \(item.x) overlaps in row \(row)")
      ends[row] = item.x + item.width
    }
    #expect(rows.contains(nil), "some labels give way")
    #expect(rows.compactMap { $0 }.count >= 2)
  }
}
