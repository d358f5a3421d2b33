import EvaluationReport
import Foundation
import TestSupport
import Testing

@Suite struct BrowserTests {
  /// Counts what the browser drew once the page has loaded, works the page's
  /// own controls (the filters, the point selector) as a reader would, and
  /// writes the counts into the title, which --dump-dom prints.
  static let probe = """
    <script>
    window.addEventListener('load', function () {
      function shown(element) {
        var box = element.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
      }
      function rows() {
        return Array.from(document.querySelectorAll('#session-table tbody tr')).filter(shown).length;
      }
      function choose(id, value) {
        var select = document.getElementById(id);
        select.value = value;
        select.dispatchEvent(new Event('change'));
      }
      var plots = Array.from(document.querySelectorAll('svg.plot'));
      var det = Array.from(document.querySelectorAll('svg.det')).filter(shown);
      var curve = det.length === 1 ? det[0].querySelector('polyline.det-curve') : null;
      var probe = {
        plots: plots.length,
        plotsShown: plots.filter(shown).map(function (svg) { return svg.getAttribute('class'); }),
        detPoints: curve ? curve.points.numberOfItems : -1,
        detLength: curve ? Math.round(curve.getTotalLength()) : -1,
        sweepCircles: Array.from(document.querySelectorAll('svg.sweep circle.sweep-point')).filter(shown).length,
        frontLines: Array.from(document.querySelectorAll('svg.sweep polyline.front')).filter(function (line) {
          return line.getTotalLength() > 100;
        }).length,
        chosenMarkers: Array.from(document.querySelectorAll('svg.sweep circle.chosen-marker')).filter(shown).length,
        controlsShown: [document.getElementById('session-filters'), document.getElementById('point-controls')]
          .filter(shown).length,
        rows: rows()
      };
      choose('filter-label', 'attack');
      probe.attackRows = rows();
      choose('filter-decision', 'accepted');
      probe.acceptedAttackRows = rows();
      probe.countText = document.getElementById('session-count').textContent;
      choose('point-select', '0');
      probe.acceptedAttackRowsAtPoint0 = rows();
      probe.acceptedAtPoint0 = Array.from(document.querySelectorAll('#session-table tbody tr')).filter(shown)
        .map(function (row) { return row.cells[0].textContent; });
      probe.pointsShown = Array.from(document.querySelectorAll('.point-detail')).filter(shown).map(function (detail) {
        return detail.getAttribute('data-point');
      });
      probe.selected = Array.from(document.querySelectorAll('.selected')).map(function (mark) {
        return mark.tagName.toLowerCase() + ' ' + mark.getAttribute('data-point');
      });
      probe.caption = document.getElementById('sessions-point').textContent;
      choose('point-select', '3');
      probe.acceptedAttackRowsAtPoint3 = rows();
      choose('filter-decision', '');
      choose('filter-label', '');
      probe.rowsAtPoint3 = rows();
      probe.tagColour = getComputedStyle(document.querySelector('.tag.chosen')).backgroundColor;
      document.title = 'probe ' + JSON.stringify(probe);
    });
    </script>
    """

  func writePage(in folder: TemporaryFolder) throws -> String {
    let html = EvaluationReport.html(
      summary: EvaluationRun.sweepSummary(), sessions: EvaluationRun.sweepSessions(),
      options: .init(
        title: "Blink liveness over the lab corpus",
        sessionLinks: ["attack/print/p1.jsonl": "sessions/attack-print-p1/report.html"]))
    return try folder.write("report.html", html)
  }

  @Test(
    .enabled(
      if: Browser.available || Browser.required,
      "chromium or python3 is not installed (scripts/install-test-deps installs chromium); with CI=true this test runs and fails instead"
    ))
  func chromiumRendersTheEvaluation() throws {
    let chromium = try #require(
      Browser.chromium, "CI is set and chromium is not installed: run scripts/install-test-deps")
    let python = try #require(Browser.python, "CI is set and python3 is not installed")
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let page = try writePage(in: folder)
    let html = String(decoding: try #require(FileManager.default.contents(atPath: page)), as: UTF8.self)

    // The DOM as rendered and worked: a copy of the page with the probe.
    let probePage = try folder.write(
      "probe.html", html.replacingOccurrences(of: "</body>", with: Self.probe + "\n</body>"))
    let dump = try Browser.run(
      chromium, Browser.options(folder) + ["--virtual-time-budget=5000", "--dump-dom", "file://" + probePage],
      folder: folder)
    #expect(dump.status == 0, "\(dump.stderr)")
    let title = try #require(
      HTMLText.elements(dump.stdout, start: "<title>probe ", end: "</title>").first,
      "the probe did not run: \(dump.stderr)")
    let json = title.dropFirst("<title>probe ".count).dropLast("</title>".count)
      .replacingOccurrences(of: "&amp;", with: "&")
    let probe = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(probe["plots"] as? Int == 16, "the sweep, and a species, DET and failures chart for each of 5 points")
    #expect(
      probe["plotsShown"] as? [String] == ["plot sweep", "plot species", "plot det", "plot failures"],
      "the sweep and the chosen point's charts have a size; the other points' are hidden")
    #expect(probe["detPoints"] as? Int == 11)
    #expect((probe["detLength"] as? Int ?? 0) > 300, "the curve crosses the plot")
    #expect(probe["sweepCircles"] as? Int == 5)
    #expect(probe["frontLines"] as? Int == 1)
    #expect(probe["chosenMarkers"] as? Int == 1)
    #expect(probe["controlsShown"] as? Int == 2, "the script shows the filters and the point selector")
    #expect(probe["rows"] as? Int == 18)
    #expect(probe["attackRows"] as? Int == 8)
    #expect(probe["acceptedAttackRows"] as? Int == 1, "at the chosen point 4, p3")
    #expect(probe["countText"] as? String == "1 of 18 sessions shown")
    #expect(probe["acceptedAttackRowsAtPoint0"] as? Int == 1)
    #expect(probe["acceptedAtPoint0"] as? [String] == ["attack/print/p1.jsonl"], "the table shows the new point")
    #expect(probe["pointsShown"] as? [String] == ["0"])
    #expect(probe["selected"] as? [String] == ["circle 0", "tr 0"])
    #expect(probe["caption"] as? String == "at point 0")
    #expect(probe["acceptedAttackRowsAtPoint3"] as? Int == 0)
    #expect(probe["rowsAtPoint3"] as? Int == 18)
    #expect(probe["tagColour"] as? String == "rgb(130, 80, 223)", "the stylesheet applies")

    // The page itself, as a reader sees it.
    let screenshot = folder.file("report.png")
    let shot = try Browser.run(
      chromium,
      Browser.options(folder) + ["--screenshot=" + screenshot, "--window-size=1280,2400", "file://" + page],
      folder: folder)
    #expect(shot.status == 0, "\(shot.stderr)")
    let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot: \(shot.stderr)")
    try #require(png.count > 24 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
    // Decoded with zlib by the session report's tool: a blank or unstyled page fails here.
    let stats = try Browser.run(
      python,
      [
        packageRootPath + "/Tests/SessionReportTests/Fixtures/png-stats.py", screenshot, "0969da", "1a7f37", "8250df",
      ],
      folder: folder)
    #expect(stats.status == 0, "\(stats.stderr)")
    // EVALUATION_REPORT_KEEP=DIR keeps the page, the probe and the screenshot there, to look at.
    if let keep = ProcessInfo.processInfo.environment["EVALUATION_REPORT_KEEP"] {
      try? FileManager.default.removeItem(atPath: keep)
      try FileManager.default.copyItem(atPath: folder.path, toPath: keep)
      print("png stats: \(stats.stdout) probe: \(json)")
    }
    let decoded = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
    #expect(decoded["width"] as? Int == 1280)
    #expect(decoded["height"] as? Int == 2400)
    let nonWhite = try #require(decoded["non_white"] as? Int)
    #expect(nonWhite > 1280 * 2400 / 20, "only \(nonWhite) pixels are not white")
    let near = try #require(decoded["near"] as? [String: Int])
    #expect(near["0969da", default: 0] > 300, "the DET curve: \(near)")
    #expect(near["1a7f37", default: 0] > 300, "the front: \(near)")
    #expect(near["8250df", default: 0] > 300, "the chosen point: \(near)")
  }
}
