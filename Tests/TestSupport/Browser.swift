import Foundation

/// Chromium, to render reports the way a reader's browser does.
public enum Browser {
  public static let chromium: String? = executable(["chromium", "chromium-browser"])
  public static let python: String? = executable(["python3"])

  /// On CI (CI set, and not "false" or "0") the browser test must run.
  public static var required: Bool { ContinuousIntegration.isRunning }

  public static var available: Bool { chromium != nil && python != nil }

  public static func executable(_ names: [String]) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for name in names {
      for folder in path.split(separator: ":") {
        let candidate = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    return nil
  }

  public struct Run {
    public var status: Int32
    public var stdout: String
    public var stderr: String
  }

  /// Runs a program with its output in files; a program that hangs is killed
  /// after a generous safety limit so the suite cannot hang (not a timing check).
  /// util-linux's setsid, which starts a program in a new session.
  static let setsid = "/usr/bin/setsid"

  public static func run(_ program: String, _ arguments: [String], folder: TemporaryFolder) throws -> Run {
    let id = UUID().uuidString
    let stdoutPath = folder.file("stdout-\(id).txt")
    let stderrPath = folder.file("stderr-\(id).txt")
    _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
    let process = Process()
    // In a session (and process group) of its own: a signal the program
    // sends its whole group as it shuts down (Chromium's helpers) must not
    // reach the test runner, which is in the group a child starts in.
    if FileManager.default.isExecutableFile(atPath: setsid) {
      process.executableURL = URL(fileURLWithPath: setsid)
      process.arguments = ["--wait", program] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: program)
      process.arguments = arguments
    }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
    process.standardError = FileHandle(forWritingAtPath: stderrPath)
    try process.run()
    let deadline = Date().addingTimeInterval(180)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    var killed = false
    if process.isRunning {
      killed = true
      process.terminate()
    }
    process.waitUntilExit()
    let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
    let stderr = text(stderrPath) + (killed ? "\n\(program) \(arguments) did not finish; killed" : "")
    return Run(status: killed ? -9 : process.terminationStatus, stdout: text(stdoutPath), stderr: stderr)
  }

  /// The headless options every run uses: no sandbox (containers run as
  /// root), no GPU, and a profile of its own in the test's folder.
  public static func options(_ folder: TemporaryFolder) -> [String] {
    [
      "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
      "--user-data-dir=" + folder.file("profile"),
    ]
  }
}

/// Reads what the browser made of the page: run after the page has loaded,
/// it writes its counts into the title, which --dump-dom prints.
public let probeScript = """
  <script>
  window.addEventListener('load', function () {
    var plots = Array.from(document.querySelectorAll('svg.plot'));
    var paths = Array.from(document.querySelectorAll('svg.plot path.series'));
    var images = Array.from(document.images);
    var badge = document.getElementById('verdict');
    var probe = {
      plots: plots.length,
      plotsShown: plots.filter(function (svg) {
        var box = svg.getBoundingClientRect(); return box.width > 500 && box.height > 50;
      }).length,
      linesDrawn: paths.filter(function (path) { return path.getTotalLength() > 100; }).length,
      thresholds: document.querySelectorAll('svg.plot g.threshold line').length,
      thresholdLabels: Array.from(document.querySelectorAll('svg.plot g.threshold text')).filter(function (text) {
        return text.getBBox().width > 20;
      }).length,
      bands: document.querySelectorAll('svg.plot rect.band').length,
      statuses: document.querySelectorAll('svg.lane g.status-mark').length,
      images: images.length,
      decoded: images.filter(function (image) { return image.complete && image.naturalWidth > 0; }).length,
      naturalWidths: images.map(function (image) { return image.naturalWidth; }),
      hintRows: document.querySelectorAll('#hints tbody tr').length,
      settingRows: document.querySelectorAll('#settings tbody tr').length,
      badgeColour: getComputedStyle(badge).backgroundColor
    };
    document.title = 'probe ' + JSON.stringify(probe);
  });
  </script>
  """
