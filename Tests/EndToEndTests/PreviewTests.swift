import Foundation
import JSONCore
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `run --preview`: the HTTP API a script drives, its safety rules, and the
/// page in a real browser.
struct PreviewTests {
  struct Answer {
    var status: Int
    var json: JSONValue
    var allow: String?
  }

  /// One request, answered or not; a generous safety limit (not a timing check).
  static func request(
    _ method: String, _ url: String, headers: [String: String] = [:], body: String? = nil
  ) throws -> Answer {
    var request = URLRequest(url: try #require(URL(string: url)), timeoutInterval: 30)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body {
      request.httpBody = Data(body.utf8)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    final class Box: @unchecked Sendable { var answer: (Data?, URLResponse?)? }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: request) { data, response, _ in
      box.answer = (data, response)
      done.signal()
    }.resume()
    done.wait()
    let status = (box.answer?.1 as? HTTPURLResponse)?.statusCode ?? 0
    let json = (try? JSONParser.parse(bytes: Array(box.answer?.0 ?? Data()))) ?? .null
    let allow = (box.answer?.1 as? HTTPURLResponse)?.value(forHTTPHeaderField: "Allow")
    return Answer(status: status, json: json, allow: allow)
  }

  /// The address `run --preview` printed.
  static func address(of run: Launched) throws -> String {
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline && run.isRunning {
      if let match = run.errorSoFar.firstMatch(of: /preview: (http:\/\/127\.0\.0\.1:\d+)\//) {
        return String(match.output.1)
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    Issue.record("no preview address in: \(run.errorSoFar)")
    throw CancellationError()
  }

  /// The run's state once `predicate` holds; an issue naming `what` when it
  /// never does within a generous safety limit (not a timing check).
  @discardableResult
  static func state(
    at base: String, until what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ predicate: (JSONValue) -> Bool
  ) throws -> JSONValue {
    let deadline = Date().addingTimeInterval(60)
    var state = JSONValue.null
    while Date() < deadline {
      state = try request("GET", base + "/api/state").json
      if predicate(state) { return state }
      Thread.sleep(forTimeInterval: 0.02)
    }
    Issue.record("never saw \(what): \(state)", sourceLocation: sourceLocation)
    return state
  }

  @Test func aScriptDrivesTheRunThroughTheAPIAndEveryControlIsAnEvent() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let run = try Launched(
      [
        "run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--realtime", "--preview",
        "--events", eventsPath, "--quiet",
      ], folder: folder)
    let base = try Self.address(of: run)

    // The page may ask before the flow has loaded.
    try Self.state(at: base, until: "the flow loaded") { $0["flow"]?.stringValue != "" }
    let state = try Self.request("GET", base + "/api/state")
    #expect(state.status == 200)
    for key in ["frame", "t", "paused", "step", "status", "hint", "flow"] {
      #expect(state.json[key] != nil, "state has no \(key): \(state.json)")
    }
    #expect(state.json["flow"]?.stringValue == "liveness")

    // Settings change only while paused.
    let early = try Self.request("POST", base + "/api/settings", body: #"{"flow.time_limit": 25}"#)
    #expect(early.status == 409, "\(early.json)")

    // From the start, so that the trace has not ended before the pause.
    let restarted = try Self.request("POST", base + "/api/restart")
    #expect(restarted.status == 200, "\(restarted.json)")
    // The answer holds the state just after the control: the new run.
    #expect((restarted.json["state"]?["runs"]?.integerValue ?? 0) >= 1, "\(restarted.json)")
    #expect(restarted.json["state"]?["status"] == "running", "\(restarted.json)")
    let paused = try Self.request("POST", base + "/api/pause")
    #expect(paused.status == 200, "\(paused.json)")
    #expect(paused.json["state"]?["paused"]?.boolValue == true, "\(paused.json)")

    // A bad value gets the message --set gives, naming where it came from.
    let bad = try Self.request("POST", base + "/api/settings", body: #"{"liveness.front_yaw": 99}"#)
    #expect(bad.status == 400, "\(bad.json)")
    let badMessage = bad.json["message"]?.stringValue ?? ""
    #expect(badMessage.hasPrefix("POST /api/settings (key 'liveness.front_yaw'): "), "\(badMessage)")
    #expect(!badMessage.contains("--set"), "\(badMessage)")
    let fromPage = try Self.request(
      "POST", base + "/api/settings", headers: ["X-Workbench-Source": "page"], body: #"{"liveness.front_yaw": 99}"#)
    #expect(fromPage.json["message"]?.stringValue?.contains("(from the preview page)") == true, "\(fromPage.json)")
    let cli = try workbench(
      [
        "run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--set",
        "liveness.front_yaw=99",
      ], folder: folder)
    #expect(cli.status == 2)
    // The same rule, with --set for the place.
    let firstLine = String(badMessage.split(separator: "\n").first ?? "")
    let rule = firstLine.components(separatedBy: "): ").dropFirst().first?.components(separatedBy: " (").first ?? "-"
    #expect(!rule.isEmpty && cli.stderr.contains(rule), "\(badMessage) | \(cli.stderr)")

    let good = try Self.request("POST", base + "/api/settings", body: #"{"liveness.front_yaw": 20}"#)
    #expect(good.status == 200, "\(good.json)")

    // Safety: another origin, another site, another host name.
    let foreign = try Self.request("POST", base + "/api/close", headers: ["Origin": "http://attacker.example"])
    #expect(foreign.status == 403, "\(foreign.json)")
    let site = try Self.request("POST", base + "/api/close", headers: ["Sec-Fetch-Site": "cross-site"])
    #expect(site.status == 403, "\(site.json)")
    let rebound = try Self.request("GET", base + "/api/state", headers: ["Host": "attacker.example"])
    #expect(rebound.status == 403, "\(rebound.json)")

    // Another method, another path: an answer in JSON all the same.
    let method = try Self.request("GET", base + "/api/pause")
    #expect(method.status == 405 && method.allow == "POST", "\(method)")
    #expect(method.json["message"] == "/api/pause takes POST, not GET", "\(method)")
    let missing = try Self.request("GET", base + "/api/nothing")
    #expect(missing.status == 404 && missing.json["ok"] == false, "\(missing)")

    let resumed = try Self.request("POST", base + "/api/resume")
    #expect(resumed.status == 200, "\(resumed.json)")
    #expect(resumed.json["message"]?.stringValue?.contains("liveness.front_yaw=20") == true, "\(resumed.json)")
    // The flow started over with the new setting: its range is ±20.
    let range = try Self.state(at: base, until: "the restarted range step") {
      $0["step"]?["name"]?.stringValue == "face front-on"
    }["step"]
    #expect(range?["thresholds"]?.arrayValue?.first?["max"]?.doubleValue == 20, "\(range ?? .null)")
    let shot = try Self.request("POST", base + "/api/best-shot")
    #expect(shot.status == 200, "the flow runs: \(shot.json)")
    let closed = try Self.request("POST", base + "/api/close")
    #expect(closed.status == 200, "\(closed.json)")

    let outcome = run.wait()
    #expect(outcome.status == 1, "a closed run fails with reason closed: \(outcome)")
    let records = try events(eventsPath)
    let controls = records.filter { $0["type"]?.stringValue == "control" }
    let actions = controls.compactMap { $0["action"]?.stringValue }
    #expect(actions.starts(with: ["restart", "pause", "settings", "resume", "restart"]), "\(actions)")
    #expect(actions.last == "close", "\(actions)")
    #expect(controls.allSatisfy { $0["source"]?.stringValue == "api" })
    #expect(controls[2]["settings"] == .array([.string("liveness.front_yaw=20")]), "\(controls)")
    #expect(records.last?["type"]?.stringValue == "result")
    #expect(records.last?["reason"]?.stringValue == "closed", "\(records.last ?? .null)")
  }

  @Test func aPreviewBeyondLoopbackIsAskedForByName() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let refused = try workbench(
      [
        "run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--preview", "0.0.0.0:0",
      ], folder: folder)
    #expect(refused.status == 2, "\(refused)")
    #expect(refused.stderr.contains("--preview-public"), "\(refused)")
    let unparsable = try workbench(
      ["run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--preview=host:port"],
      folder: folder)
    #expect(unparsable.status == 2, "\(unparsable)")
    #expect(unparsable.stderr.contains("--preview host:port: not an address and port"), "\(unparsable)")

  }

  @Test(
    .enabled(
      if: Browser.available || Browser.required,
      "chromium or python3 is not installed (scripts/install-test-deps installs chromium); with CI=true this runs"))
  func thePageShowsFramesAndHintsAndPausesAndReloadsAnEditedFlow() throws {
    let chromium = try #require(
      Browser.chromium, "CI is set and chromium is not installed: run scripts/install-test-deps")
    let python = try #require(Browser.python)
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let made = try workbench(["new", "flip", "--kind", "card", "--in", folder.path], folder: folder)
    #expect(made.status == 0, "\(made)")
    let flow = folder.file("flip/flip.lua")
    let scene = folder.file("pass.avi")
    let synth = try workbench(
      ["synth", "card", "--schedule", folder.file("flip/scenes/pass.json"), "--out", scene, "--size", "640x360"],
      folder: folder)
    #expect(synth.status == 0, "\(synth)")
    let broken = folder.file("broken.lua")
    try ("local broken = = 1\n" + (fileText(flow) ?? "")).write(toFile: broken, atomically: true, encoding: .utf8)
    let eventsPath = folder.file("events.jsonl")
    let run = try Launched(
      ["run", flow, "--input", scene, "--realtime", "--preview", "--watch", "--events", eventsPath, "--quiet"],
      folder: folder)
    let base = try Self.address(of: run)
    let driven = try Browser.run(
      python,
      [
        packageRoot + "/Tests/EndToEndTests/Fixtures/preview-driver.py", chromium, folder.file("profile"), base + "/",
        flow, broken,
      ], folder: folder)
    _ = try? Self.request("POST", base + "/api/close")
    let outcome = run.wait()
    #expect(driven.status == 0, "\(driven.stderr)")
    let seen = try JSONParser.parse(driven.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(seen["errors"]?.arrayValue?.isEmpty == true, "\(seen)")
    #expect((seen["frames_shown"]?.integerValue ?? 0) >= 3, "\(seen)")
    #expect((seen["image_drawn"]?.integerValue ?? 0) > 100, "the frame is not on the canvas: \(seen)")
    #expect((seen["hints"]?.arrayValue?.count ?? 0) >= 2, "the hint never changed: \(seen)")
    #expect(seen["result"]?.stringValue == "passed", "\(seen)")
    #expect(seen["status_text"]?.stringValue?.hasPrefix("passed") == true, "\(seen)")
    #expect(seen["steps_passed"]?.integerValue == 3, "\(seen)")
    #expect((seen["plots"]?.integerValue ?? 0) >= 1, "no plot of what the step tests: \(seen)")
    #expect(seen["paused_badge"]?.stringValue == "paused", "\(seen)")
    let counter = seen["paused_counter"]?.arrayValue ?? []
    #expect(counter.count == 2 && counter[0] == counter[1], "the frame counter moved while paused: \(seen)")
    #expect(seen["error_text"]?.stringValue?.contains("flip.lua:1:") == true, "\(seen)")
    #expect(
      (seen["runs_after_fix"]?.integerValue ?? 0) > (seen["runs_before_fix"]?.integerValue ?? 0), "\(seen)")
    #expect(outcome.status == 1, "closed: \(outcome)")
    let actions = try events(eventsPath).filter { $0["type"]?.stringValue == "control" }.compactMap {
      $0["action"]?.stringValue
    }
    #expect(actions.contains("reload_failed") && actions.contains("reload"), "\(actions)")
    #expect(actions.contains("pause") && actions.contains("resume"), "\(actions)")
  }
}

/// The live run's other sources of controls: the watcher, the terminal's
/// keys, and the command a best-shot step waits for.
struct LiveControlTests {
  @Test func aChangedModuleOrCatalogReloadsTheFlowAndABrokenOneKeepsItRunning() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let made = try workbench(["new", "nod", "--kind", "face", "--in", folder.path], folder: folder)
    #expect(made.status == 0, "\(made)")
    let flow = folder.file("nod/nod.lua")
    let module = folder.file("nod/angles.lua")
    try "return { limit = 10 }\n".write(toFile: module, atomically: true, encoding: .utf8)
    let source = try #require(fileText(flow))
    try ("local angles = require \"angles\"\nassert(angles.limit)\n" + source).write(
      toFile: flow, atomically: true, encoding: .utf8)
    let eventsPath = folder.file("events.jsonl")
    let run = try Launched(
      [
        "run", flow, "--input", "examples/traces/liveness-pass.jsonl", "--preview", "--watch", "--events", eventsPath,
        "--quiet",
      ], folder: folder)
    let base = try PreviewTests.address(of: run)
    _ = try PreviewTests.state(at: base, until: "the first run") { ($0["runs"]?.integerValue ?? 0) >= 1 }
    try "return { limit = 12 }\n".write(toFile: module, atomically: true, encoding: .utf8)
    _ = try PreviewTests.state(at: base, until: "the reload for the module") { ($0["runs"]?.integerValue ?? 0) >= 2 }
    try "return {\n  limit = = 12 }\n".write(toFile: module, atomically: true, encoding: .utf8)
    let failed = try PreviewTests.state(at: base, until: "the module's error") {
      $0["reload_error"] != .null && $0["reload_error"] != nil
    }
    #expect(failed["reload_error"]?["error"]?.stringValue?.contains("angles.lua:2:") == true, "\(failed)")
    #expect(failed["runs"]?.integerValue == 2, "the broken module started no run: \(failed)")
    let catalog = folder.file("nod/messages/en.json")
    let text = try #require(fileText(catalog))
    try "return { limit = 12 }\n".write(toFile: module, atomically: true, encoding: .utf8)
    _ = try PreviewTests.state(at: base, until: "the reload of the fixed module") {
      ($0["runs"]?.integerValue ?? 0) >= 3
    }
    try (text + "\n").write(toFile: catalog, atomically: true, encoding: .utf8)
    _ = try PreviewTests.state(at: base, until: "the reload for the catalog") { ($0["runs"]?.integerValue ?? 0) >= 4 }
    _ = try PreviewTests.request("POST", base + "/api/close")
    let outcome = run.wait()
    #expect(outcome.status == 0 || outcome.status == 1, "\(outcome)")
    let reloads = try events(eventsPath).filter {
      $0["type"]?.stringValue == "control" && ($0["action"]?.stringValue ?? "").hasPrefix("reload")
    }
    let changed = reloads.map { ($0["action"]?.stringValue ?? "") + " " + ($0["changed"]?.jsonText ?? "") }
    #expect(reloads.count == 4, "\(changed)")
    #expect(
      reloads.map { $0["action"]?.stringValue ?? "" } == ["reload", "reload_failed", "reload", "reload"], "\(changed)")
    #expect(changed.first?.contains("angles.lua") == true && changed.last?.contains("en.json") == true, "\(changed)")
  }

  @Test func theTerminalsKeysPauseRestartAndClose() throws {
    let python = try #require(Browser.python)
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let binary = try #require(workbenchBinary)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [
      packageRoot + "/Tests/EndToEndTests/Fixtures/keys-driver.py", "r", "p", "q", "--", binary, "run",
      "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--realtime", "--watch",
      "--events", eventsPath,
    ]
    process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
    var environment = ProcessInfo.processInfo.environment
    environment["WORKBENCH_LICENSE_CONFIG"] = TestLicense.files.config
    process.environment = environment
    let output = folder.file("terminal.txt")
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    process.standardOutput = FileHandle(forWritingAtPath: output)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let driven = fileText(output) ?? ""
    #expect(driven.contains("keys: space pause/resume"), "\(driven)")
    #expect(driven.contains("exit 1"), "closed: \(driven)")
    let controls = try events(eventsPath).filter { $0["type"]?.stringValue == "control" }
    #expect(controls.compactMap { $0["action"]?.stringValue } == ["restart", "pause", "close"], "\(controls)")
    #expect(controls.allSatisfy { $0["source"]?.stringValue == "keyboard" }, "\(controls)")
  }

  @Test func aBestShotStepThatWaitsForTheCommandSearchesOnlyOnceItComes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = folder.file("photo.jsonl")
    let synth = try workbench(
      ["synth", "face", "--schedule", "examples/synth/face-photo.json", "--out", trace], folder: folder)
    #expect(synth.status == 0, "\(synth)")
    let eventsPath = folder.file("events.jsonl")
    let run = try Launched(
      [
        "run", "examples/best-shot.lua", "--input", trace, "--realtime", "--preview", "--set",
        "best_shot.wait_for_command=true", "--events", eventsPath, "--quiet",
      ], folder: folder)
    let base = try PreviewTests.address(of: run)
    var state = try PreviewTests.state(at: base, until: "frame 45") { ($0["frame"]?.integerValue ?? 0) >= 45 }
    #expect(state["result"] == .null, "the step did not wait: \(state)")
    #expect(state["statuses"]?.arrayValue?.isEmpty == true, "it searched before the command: \(state)")
    let sent = try PreviewTests.request("POST", base + "/api/best-shot")
    #expect(sent.status == 200, "\(sent.json)")
    state = try PreviewTests.state(at: base, until: "the result") { ($0["result"] ?? .null) != .null }
    #expect(state["result"]?["reason"]?.stringValue == "passed", "\(state)")
    _ = try PreviewTests.request("POST", base + "/api/close")
    let outcome = run.wait()
    #expect(outcome.status == 0, "closed after the flow passed: \(outcome)")
    let records = try events(eventsPath)
    let order = records.compactMap { record -> String? in
      switch record["type"]?.stringValue {
      case "control": return record["action"]?.stringValue
      case "status": return record["status"]?.stringValue
      case "result": return "result"
      default: return nil
      }
    }
    #expect(order.starts(with: ["command", "BEST_SHOT_SEARCH_STARTED"]), "\(order)")
    #expect(order.last == "result" && order.contains("BEST_SHOT"), "\(order)")
  }

  @Test func theCardsGlareIsDrawnWhereTheEstimatorSawIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let scene = folder.file("glare.avi")
    let synth = try workbench(
      ["synth", "card", "--schedule", "examples/synth/glare.json", "--out", scene, "--size", "640x360"],
      folder: folder)
    #expect(synth.status == 0, "\(synth)")
    let run = try Launched(
      ["run", "examples/hkid-2018.lua", "--input", scene, "--realtime", "--preview", "--quiet"], folder: folder)
    let base = try PreviewTests.address(of: run)
    var compared: [(glare: Double, cells: Int)] = []
    var sequence: Int64 = 0
    // A generous safety limit, not a timing check.
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline && compared.filter({ $0.glare > 0.1 }).count < 3 {
      let frame = try PreviewTests.request("GET", base + "/api/frame?after=\(sequence)").json
      guard let next = frame["sequence"]?.integerValue else { continue }
      sequence = next
      guard let glare = frame["measurements"]?["card"]?["glare"]?.doubleValue else { continue }
      compared.append((glare, frame["overlays"]?["card.glare"]?.arrayValue?.count ?? -1))
    }
    _ = try PreviewTests.request("POST", base + "/api/close")
    _ = run.wait()
    let glaring = compared.filter { $0.glare > 0.1 }
    #expect(glaring.count >= 3, "\(compared)")
    for (glare, cells) in glaring {
      // The same pixels at a coarser grid: the share of cells is near the share of samples.
      #expect(abs(Double(cells) / (36 * 23) - glare) < 0.1, "glare \(glare), \(cells) cells of 828")
    }
  }

  @Test func aReloadThatMeasuresSomethingElseStartsTheEstimatorsItNeeds() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = folder.file("watch.lua")
    func write(_ field: String, above: Double) throws {
      try """
      local wb = require "wb"
      return wb.flow {
        name = "watch", time_limit = 0, step_timeout = 0,
        steps = { wb.threshold { name = "see it", field = "\(field)", above = \(above), crossing = false } },
      }
      """.write(toFile: flow, atomically: true, encoding: .utf8)
    }
    // The image's blur never passes 2: the flow waits.
    try write("quality.blur", above: 2)
    let eventsPath = folder.file("events.jsonl")
    let run = try Launched(
      [
        "run", flow, "--input", "examples/recordings/face-blink.avi", "--realtime", "--preview", "--watch",
        "--events", eventsPath, "--quiet",
      ], folder: folder)
    let base = try PreviewTests.address(of: run)
    _ = try PreviewTests.state(at: base, until: "the first run") { ($0["frame"]?.integerValue ?? 0) > 0 }
    // Now it reads a face, which the first flow's estimators did not measure.
    try write("face.count", above: 0.5)
    let state = try PreviewTests.state(at: base, until: "the reloaded flow's result") {
      ($0["runs"]?.integerValue ?? 0) >= 2 && $0["result"] != .null && $0["result"] != nil
    }
    #expect(state["result"]?["reason"]?.stringValue == "passed", "the face was measured after the reload: \(state)")
    _ = try PreviewTests.request("POST", base + "/api/close")
    let outcome = run.wait()
    #expect(outcome.status == 0, "\(outcome)")
  }
}
