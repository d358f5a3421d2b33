import Foundation
import JSONCore
import TestSupport
import Testing

@Suite struct InterruptTests {
  /// Starts `run` with events to a file in `folder`, waits until the run has
  /// begun (its temporary events file exists: the signal handler is in
  /// place by then), sends SIGINT and returns the outcome.
  private func interruptedRun(
    _ arguments: [String], folder: TemporaryFolder, interrupts: InterruptMask = .unblocked
  ) throws -> (Outcome, String) {
    let eventsPath = folder.file("events.jsonl")
    let launched = try Launched(
      ["run"] + arguments + ["--events", eventsPath, "--quiet"], folder: folder, interrupts: interrupts)
    let deadline = Date().addingTimeInterval(120)
    while launched.isRunning && Date() < deadline
      && !folder.listing.contains(where: { $0.hasPrefix(".events.jsonl.") && $0.hasSuffix(".tmp") })
    {
      Thread.sleep(forTimeInterval: 0.005)
    }
    // Give it a moment to get into the frame loop or the Lua step.
    Thread.sleep(forTimeInterval: 0.3)
    #expect(launched.isRunning, "the run ended before it could be interrupted")
    launched.process.interrupt()
    return (launched.wait(), eventsPath)
  }

  private func checkInterrupted(_ outcome: Outcome, _ eventsPath: String) throws {
    #expect(!outcome.signaled, "\(outcome)")
    #expect(outcome.status == 130, "\(outcome)")
    #expect(FileManager.default.fileExists(atPath: eventsPath))
    let records = try events(eventsPath)
    #expect(records.first?["type"] == "session")
    let end = try result(records)
    #expect(end["reason"] == "interrupted")
    #expect(end["success"] == false)
    #expect(end["code"] == -130)
    #expect(end["message"]?.stringValue?.contains("SIGINT") == true)
  }

  /// 200 000 frames of a face that never makes the step pass.
  private func longTrace(in folder: TemporaryFolder) throws -> String {
    var text = "{\"workbench_trace\":1}\n"
    text.reserveCapacity(200_000 * 50)
    for frame in 0..<200_000 {
      text += "{\"t\":\(Double(frame) / 30),\"frame\":\(frame),\"face\":{\"count\":1,\"yaw\":0.5}}\n"
    }
    return try folder.write("long.jsonl", text)
  }

  /// A pipe with no writer keeps the opening waiting, and a writer that
  /// sends nothing keeps the read waiting: Ctrl-C ends either as an
  /// interruption (130), not as an input error, with its result written.
  @Test(arguments: [false, true])
  func ctrlCWhileAPipeIsSilent(withWriter: Bool) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let pipe = folder.file("measurements")
    try #require(mkfifo(pipe, 0o600) == 0)
    // Opened for reading and writing, a pipe does not wait: this holds a writer that never writes.
    let writer = withWriter ? open(pipe, O_RDWR) : -1
    defer { if writer >= 0 { close(writer) } }
    let (outcome, eventsPath) = try interruptedRun(["examples/liveness.lua", "--input", pipe], folder: folder)
    try checkInterrupted(outcome, eventsPath)
    #expect(!outcome.stderr.contains("Interrupted system call"), "\(outcome)")
  }

  /// `probe` does not open a pipe (FFmpeg would wait for a writer for ever): it says what it is at once.
  @Test func probeSaysAPipeIsAPipe() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let pipe = folder.file("measurements")
    try #require(mkfifo(pipe, 0o600) == 0)
    let outcome = try Launched(["probe", pipe], folder: folder).wait(safetyLimit: 60)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("is a pipe, not a recording file"), "\(outcome)")
    #expect(outcome.stderr.contains("run --input reads a pipe as a stream of measurements"), "\(outcome)")
  }

  @Test func ctrlCDuringALongTrace() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try longTrace(in: folder)
    let (outcome, eventsPath) = try interruptedRun(["\(fixtures)/never-passes.lua", "--input", trace], folder: folder)
    try checkInterrupted(outcome, eventsPath)
    let end = try result(events(eventsPath))
    let frames = try #require(end["frames"]?.integerValue)
    #expect(frames >= 1 && frames < 200_000)
    #expect(folder.listing.filter { $0.hasSuffix(".tmp") } == [])
  }

  @Test func ctrlCEndsTheAnalyticsTraceWithUserCancelThenFinish() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try longTrace(in: folder)
    let analytics = folder.file("analytics.jsonl")
    let (outcome, eventsPath) = try interruptedRun(
      ["\(fixtures)/never-passes.lua", "--input", trace, "--analytics", analytics], folder: folder)
    try checkInterrupted(outcome, eventsPath)
    let records = try #require(fileText(analytics)).split(separator: "\n").map { try JSONParser.parse(String($0)) }
    // The step that was running when the person cancelled, then the end of the run.
    let ending = records.suffix(2).map { [$0["event"], $0["status"], $0["statusCode"]] }
    #expect(ending == [["COMPLETE", "FAILURE", "USER_CANCEL"], ["FINISH", "FAILURE", "USER_CANCEL"]], "\(records)")
    #expect(!records.contains { $0["event"] == "SKIP" }, "\(records)")
    #expect(records.last?["statusMessage"]?.stringValue?.contains("SIGINT") == true)
  }

  @Test func ctrlCWhileAStepLoopsInLua() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (outcome, eventsPath) = try interruptedRun(
      [
        "\(fixtures)/busy-step.lua", "--input", "examples/traces/liveness-pass.jsonl",
        "--set", "lua.instruction_limit=10000000000",
      ], folder: folder)
    try checkInterrupted(outcome, eventsPath)
    let records = try events(eventsPath)
    #expect(records.contains { $0["type"] == "step" && $0["name"] == "busy" && $0["state"] == "started" })
  }

  @Test func ctrlCWorksEvenWhenTheParentBlockedTheSignal() throws {
    // A process started from a thread that blocks SIGINT/SIGTERM starts with
    // them blocked; a handler alone never runs then: the run must unblock them.
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try longTrace(in: folder)
    let (outcome, eventsPath) = try interruptedRun(
      ["\(fixtures)/never-passes.lua", "--input", trace], folder: folder, interrupts: .blocked)
    try checkInterrupted(outcome, eventsPath)
  }

  @Test func ctrlCWhileRecordingKeepsExactlyTheFramesTheFlowSaw() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let recording = folder.file("session.avi")
    let (outcome, eventsPath) = try interruptedRun(
      [
        "examples/image-quality.lua", "--input", "examples/recordings/face-blink.avi", "--realtime",
        "--set", "image_quality.min_sharpness=0.99", "--record", recording,
      ], folder: folder)
    try checkInterrupted(outcome, eventsPath)
    let end = try result(try events(eventsPath))
    let sidecar = try #require(fileText(recording + ".timestamps.jsonl"))
    let frameLines = sidecar.split(separator: "\n").filter { $0.contains("\"frame\"") }
    #expect(Int64(frameLines.count) == end["frames"]?.integerValue)
    #expect(sidecar.contains("\"device\":\"examples/recordings/face-blink.avi\""))
  }
}
