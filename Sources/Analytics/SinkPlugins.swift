import Diagnostics
import Foundation
import WorkbenchPluginABI

#if canImport(Glibc)
  import Glibc
#endif

/// Analytics sinks from shared libraries in plugins/ (the C ABI of
/// workbench_analytics_sink.h): each registers the URL scheme it handles.
public enum AnalyticsSinkPlugins {
  /// Loads every sink plugin under `directory` and registers its scheme;
  /// returns a line for each library that is a sink plugin but cannot be
  /// used (the run goes on without it).
  @discardableResult
  public static func load(directory: String) -> [String] {
    var problems: [String] = []
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
    var libraries: [String] = []
    while let relative = enumerator.nextObject() as? String {
      if relative.hasSuffix(".so") || relative.contains(".so.") { libraries.append(relative) }
    }
    for relative in libraries.sorted() {
      let path = (directory.hasSuffix("/") ? directory : directory + "/") + relative
      guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else { continue }
      guard let symbol = dlsym(handle, WB_ANALYTICS_SINK_ENTRY_SYMBOL) else {
        dlclose(handle)
        continue
      }
      let entry = unsafeBitCast(symbol, to: wb_analytics_sink_entry.self)
      guard let table = entry(), table.pointee.abi_version == WB_ANALYTICS_SINK_ABI_VERSION,
        let schemeText = table.pointee.scheme, table.pointee.open != nil, table.pointee.accept != nil,
        table.pointee.close != nil
      else {
        problems.append(
          "\(path): not a usable analytics sink plugin (ABI version \(WB_ANALYTICS_SINK_ABI_VERSION), scheme, open, accept and close are required)"
        )
        dlclose(handle)
        continue
      }
      let scheme = String(cString: schemeText).lowercased()
      // The library stays loaded for the process: its sinks may be made at any time.
      nonisolated(unsafe) let sinkTable = table
      AnalyticsSinks.register(scheme: scheme, plugin: true) { (destination) throws(WorkbenchError) in
        try PluginAnalyticsSink(table: sinkTable, destination: destination, library: path)
      }
    }
    return problems
  }
}

/// A sink a plugin provides.
final class PluginAnalyticsSink: AnalyticsSink {
  private let table: UnsafePointer<wb_analytics_sink>
  private var state: UnsafeMutableRawPointer?
  private let destination: String
  private var text = ""
  private var accepted = 0

  init(table: UnsafePointer<wb_analytics_sink>, destination: String, library: String) throws(WorkbenchError) {
    self.table = table
    self.destination = destination
    var error = [CChar](repeating: 0, count: 512)
    let opened = error.withUnsafeMutableBufferPointer { buffer in
      table.pointee.open(destination, buffer.baseAddress, Int32(buffer.count))
    }
    guard let opened else {
      let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw WorkbenchError(
        .usage, "the analytics sink plugin cannot open it: \(message.isEmpty ? "no reason given" : message)",
        at: SourceLocation(file: destination, key: "--analytics"), help: "the plugin is \(library)")
    }
    state = opened
  }

  func accept(_ record: AnalyticsRecord) {
    guard let state else { return }
    var json = record.json.jsonText
    let count = json.utf8.count
    json.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        _ = table.pointee.accept(state, chars.baseAddress, Int32(count))
      }
    }
    accepted += 1
  }

  func finish() throws(WorkbenchError) {
    guard let state else { return }
    self.state = nil
    var line = [CChar](repeating: 0, count: 512)
    let status = line.withUnsafeMutableBufferPointer { buffer in
      table.pointee.close(state, buffer.baseAddress, Int32(buffer.count))
    }
    text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if status != 0 {
      throw WorkbenchError(
        .usage, "the analytics sink plugin could not finish: \(text)",
        at: SourceLocation(file: destination, key: "--analytics"))
    }
  }

  var summary: String { "analytics: \(accepted) records to \(destination)" + (text.isEmpty ? "" : " (\(text))") }

  deinit {
    if let state {
      var line = [CChar](repeating: 0, count: 64)
      _ = line.withUnsafeMutableBufferPointer { table.pointee.close(state, $0.baseAddress, Int32($0.count)) }
    }
  }
}
