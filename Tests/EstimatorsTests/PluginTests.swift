import Estimators
import Foundation
import Imaging
import Measurements
import TestSupport
import Testing

/// The folder the build put the plugin libraries in (next to the test binary).
let buildProducts: String = {
  let candidates = [
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path,
    Bundle.main.bundleURL.deletingLastPathComponent().path, packageRootPath + "/.build/debug",
  ]
  return candidates.first {
    FileManager.default.fileExists(atPath: $0 + "/libWorkbenchContrastPlugin.so")
  } ?? candidates.last!
}()

@Suite("Plugins")
struct PluginTests {
  /// A plugins folder with the example plugin, the wrong-ABI one and a file
  /// that only looks like a library.
  func pluginsFolder() throws -> TemporaryFolder {
    let folder = try TemporaryFolder(prefix: "plugins-tests")
    let nested = try folder.subfolder("contrast")
    try FileManager.default.copyItem(
      atPath: buildProducts + "/libWorkbenchContrastPlugin.so", toPath: nested + "/libWorkbenchContrastPlugin.so")
    try FileManager.default.copyItem(
      atPath: buildProducts + "/libWorkbenchWrongABITestPlugin.so", toPath: folder.path + "/libwrong-abi.so")
    try folder.write("not-a-library.so", "just text")
    return folder
  }

  @Test("the example plugin loads; a wrong ABI version and a broken file are skipped by name")
  func loading() throws {
    let folder = try pluginsFolder()
    defer { folder.remove() }
    let (estimators, reports) = PluginLoader.load(directory: folder.path, display: "plugins")
    #expect(estimators.map(\.descriptor.name) == ["contrast"])
    #expect(estimators.first?.descriptor.provides == ["contrast.rms", "contrast.mean"])
    #expect(estimators.first?.descriptor.origin == "plugins/contrast/libWorkbenchContrastPlugin.so")
    let byFile = Dictionary(uniqueKeysWithValues: reports.map { ($0.file, $0.outcome) })
    #expect(byFile["plugins/contrast/libWorkbenchContrastPlugin.so"] == .loaded(estimators: ["contrast"]))
    guard case .skipped(let wrongABI) = byFile["plugins/libwrong-abi.so"] else {
      Issue.record("the wrong-ABI plugin was not skipped: \(reports)")
      return
    }
    #expect(wrongABI.contains("ABI version 999"))
    #expect(wrongABI.contains("version \(PluginLoader.abiVersion)"))
    guard case .skipped(let broken) = byFile["plugins/not-a-library.so"] else {
      Issue.record("the text file was not skipped: \(reports)")
      return
    }
    #expect(broken.contains("cannot load it"))
  }

  @Test("the example plugin measures contrast and brightness of a real frame")
  func measures() throws {
    let folder = try pluginsFolder()
    defer { folder.remove() }
    let estimator = try #require(PluginLoader.load(directory: folder.path).estimators.first)
    let schema = MeasurementSchema()
    try estimator.prepare(schema: schema)
    let frame = DecodedFrame()
    // Half black, half white: RMS contrast 0.5, mean 0.5.
    frame.gray.reshape(width: 64, height: 32, format: .gray8)
    for y in 0..<32 { for x in 0..<64 { frame.gray[x, y] = x < 32 ? 0 : 255 } }
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    let rms = try #require(schema.lookup(path: "contrast.rms"))
    let mean = try #require(schema.lookup(path: "contrast.mean"))
    #expect(measurements[rms] == .number(0.5))
    #expect(measurements[mean] == .number(0.5))
    #expect(measurements[try #require(schema.lookup(path: "contrast"))] == .table)
  }

  @Test("an empty or missing plugins folder loads nothing and reports nothing")
  func emptyFolder() {
    let (estimators, reports) = PluginLoader.load(directory: "/nonexistent-plugins")
    #expect(estimators.isEmpty)
    #expect(reports.isEmpty)
  }
}
