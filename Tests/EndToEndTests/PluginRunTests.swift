import Foundation
import JSONCore
import TestSupport
import Testing

/// Where `swift build` put the plugin libraries: next to the workbench binary
/// and the test executable.
private let pluginBuildProducts: String = {
  var candidates: [String] = []
  if let binary = workbenchBinary { candidates.append(URL(fileURLWithPath: binary).deletingLastPathComponent().path) }
  candidates.append(
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path)
  candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().path)
  candidates.append(packageRoot + "/.build/debug")
  return candidates.first { FileManager.default.fileExists(atPath: $0 + "/libWorkbenchContrastPlugin.so") }
    ?? candidates.last!
}()

/// A flow that reads the example plugin's measurement.
private let contrastFlow = """
  local wb = require "wb"
  return wb.flow { name = "contrast", steps = {
    wb.range { field = "contrast.rms", min = 0.05, hold_ms = 200 },
  } }
  """

/// Estimator plugins loaded by the real binary from a scratch WORKBENCH_HOME.
@Suite struct PluginRunTests {
  /// A workbench folder with the shipped configs and wb library, the
  /// example plugin in a sub-folder and a plugin that speaks ABI 999.
  private func workbenchHome(in folder: TemporaryFolder, withPlugins: Bool = true) throws -> String {
    let home = try folder.subfolder("home")
    let files = FileManager.default
    try files.copyItem(atPath: packageRoot + "/configs", toPath: home + "/configs")
    try files.createDirectory(atPath: home + "/plugins", withIntermediateDirectories: true)
    try files.copyItem(atPath: packageRoot + "/plugins/wb", toPath: home + "/plugins/wb")
    if withPlugins {
      try files.createDirectory(atPath: home + "/plugins/contrast", withIntermediateDirectories: true)
      try files.copyItem(
        atPath: pluginBuildProducts + "/libWorkbenchContrastPlugin.so",
        toPath: home + "/plugins/contrast/libWorkbenchContrastPlugin.so")
      try files.copyItem(
        atPath: pluginBuildProducts + "/libWorkbenchWrongABITestPlugin.so", toPath: home + "/plugins/libwrong-abi.so")
    }
    return home
  }

  @Test func estimatorsListsThePluginAndTheSkippedOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let home = try workbenchHome(in: folder)
    let outcome = try workbenchWithEnvironment(["estimators"], folder: folder, environment: ["WORKBENCH_HOME": home])
    #expect(outcome.status == 0, "\(outcome)")
    let lines = outcome.stdout.split(separator: "\n").map(String.init)
    let contrast = try #require(lines.firstIndex { $0.hasPrefix("contrast  (") }, "\(outcome)")
    #expect(lines[contrast].contains("libWorkbenchContrastPlugin.so"))
    #expect(lines.dropFirst(contrast + 1).first?.contains("provides: contrast.rms, contrast.mean") == true)
    // The built-in ones are still there.
    #expect(lines.contains { $0.hasPrefix("quality.blur  (built-in)") })
    let skipped = lines.filter { $0.hasPrefix("skipped plugin ") }
    #expect(skipped.count == 1, "\(outcome)")
    #expect(skipped.first?.contains("libwrong-abi.so") == true)
    #expect(skipped.first?.contains("ABI version 999") == true)
  }

  @Test func aFlowReadsThePluginsMeasurementFromARecording() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let home = try workbenchHome(in: folder)
    let flow = try folder.write("contrast.lua", contrastFlow)
    let input = try RecordingBuilder.mjpeg(in: folder)
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbenchWithEnvironment(
      ["run", flow, "--input", input, "--events", eventsPath], folder: folder, environment: ["WORKBENCH_HOME": home])
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.hasPrefix("PASSED  contrast"), "\(outcome)")
    // The plugin that could not load is named in a warning; the run goes on.
    let warning = outcome.stderr.split(separator: "\n").first { $0.contains("libwrong-abi.so") }
    #expect(warning?.contains("warning") == true, "\(outcome)")
    #expect(warning?.contains("ABI version 999") == true, "\(outcome)")

    let records = try events(eventsPath)
    #expect(try sessionInput(records)["estimators"] == ["contrast"])
    let end = try result(records)
    #expect(end["success"] == true)
    #expect(end["reason"] == "passed")
    // 200 ms at 30 fps: frames 0...6.
    #expect(end["frame"] == 6)
  }

  /// The control: the same flow and recording without the plugin do not pass.
  @Test func withoutThePluginTheFlowDoesNotPass() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let home = try workbenchHome(in: folder, withPlugins: false)
    let flow = try folder.write("contrast.lua", contrastFlow)
    let input = try RecordingBuilder.mjpeg(in: folder)
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbenchWithEnvironment(
      ["run", flow, "--input", input, "--events", eventsPath], folder: folder, environment: ["WORKBENCH_HOME": home])
    #expect(outcome.status != 0, "\(outcome)")
    #expect(!outcome.stderr.contains("skipped"), "\(outcome)")
    #expect(try result(try events(eventsPath))["success"] == false)
  }
}

/// An analytics sink plugin loaded by the real binary from a scratch WORKBENCH_HOME.
@Suite struct AnalyticsSinkPluginTests {
  @Test func theExampleCSVSinkWritesTheTraceItsSchemeNames() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let home = try folder.subfolder("home")
    let files = FileManager.default
    try files.copyItem(atPath: packageRoot + "/configs", toPath: home + "/configs")
    try files.createDirectory(atPath: home + "/plugins/csv", withIntermediateDirectories: true)
    try files.copyItem(atPath: packageRoot + "/plugins/wb", toPath: home + "/plugins/wb")
    try files.copyItem(
      atPath: pluginBuildProducts + "/libWorkbenchCSVAnalyticsPlugin.so",
      toPath: home + "/plugins/csv/libWorkbenchCSVAnalyticsPlugin.so")
    let csv = folder.file("trace.csv")
    let outcome = try workbenchWithEnvironment(
      [
        "run", "examples/hkid-2018.lua", "--input", "examples/traces/hkid-2018-pass.jsonl", "--analytics", "csv:" + csv,
        "--analytics", folder.file("trace.jsonl"),
      ], folder: folder, environment: ["WORKBENCH_HOME": home])
    #expect(outcome.status == 0, "\(outcome)")
    let lines = try #require(fileText(csv)).split(separator: "\n")
    #expect(lines.first == "timestamp,sessionId,category,event,status,page,statusCode")
    #expect(lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[3] }.first == "INIT")
    #expect(
      lines.contains { $0.hasSuffix(",ENROLLMENT,IN_PROGRESS,SUCCESS,SCAN,SCAN_DOCUMENT_FRONT_PROCESSED") }, "\(lines)")
    #expect(lines.contains { $0.hasSuffix(",ENROLLMENT,FINISH,SUCCESS,SCAN,") }, "\(lines)")
    // The same records as the built-in JSON Lines sink.
    let jsonLines = try #require(fileText(folder.file("trace.jsonl"))).split(separator: "\n")
    #expect(jsonLines.count == lines.count - 1)
    #expect(outcome.stderr.contains("rows in \(csv), 0 dropped"), "\(outcome)")
    // Estimators do not take the sink library for a broken estimator plugin.
    #expect(!outcome.stderr.contains("not a workbench plugin"), "\(outcome)")
  }
}
