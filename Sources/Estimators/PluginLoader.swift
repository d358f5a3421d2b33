import Foundation
import Imaging
import Measurements
import WorkbenchPluginABI

#if canImport(Glibc)
  import Glibc
#endif

/// What happened to one plugin file at load time.
public struct PluginReport: Sendable, Equatable, CustomStringConvertible {
  public enum Outcome: Sendable, Equatable {
    case loaded(estimators: [String])
    case skipped(reason: String)
  }

  /// The file, as found under the plugins folder.
  public var file: String
  public var outcome: Outcome

  public var description: String {
    switch outcome {
    case .loaded(let estimators): return "\(file): loaded (\(estimators.joined(separator: ", ")))"
    case .skipped(let reason): return "\(file): skipped: \(reason)"
    }
  }
}

/// Loads estimator plugins (shared libraries speaking workbench_plugin.h)
/// from a folder. A plugin that fails to load, lacks the entry point, or has
/// another ABI version is skipped and reported by name; the others load.
public enum PluginLoader {
  public static let abiVersion = UInt32(WB_PLUGIN_ABI_VERSION)

  public static func load(directory: String, display: String? = nil) -> (
    estimators: [any Estimator], reports: [PluginReport]
  ) {
    var estimators: [any Estimator] = []
    var reports: [PluginReport] = []
    for file in sharedLibraries(under: directory) {
      let shown = (display ?? directory) + "/" + file
      switch load(path: directory + "/" + file, shown: shown) {
      case .success(let loaded):
        estimators += loaded
        reports.append(PluginReport(file: shown, outcome: .loaded(estimators: loaded.map(\.descriptor.name))))
      case .failure(let reason):
        reports.append(PluginReport(file: shown, outcome: .skipped(reason: reason.message)))
      }
    }
    return (estimators, reports)
  }

  struct LoadFailure: Error { var message: String }

  /// `*.so` files at any depth, in a stable order.
  static func sharedLibraries(under directory: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
    var found: [String] = []
    while let relative = enumerator.nextObject() as? String {
      if relative.hasSuffix(".so") || relative.contains(".so.") { found.append(relative) }
    }
    return found.sorted()
  }

  static func load(path: String, shown: String) -> Result<[any Estimator], LoadFailure> {
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
      return .failure(LoadFailure(message: "cannot load it: \(reason)"))
    }
    guard let symbol = dlsym(handle, WB_PLUGIN_ENTRY_SYMBOL) else {
      // An analytics sink plugin lives in plugins/ too; it has no estimators.
      if dlsym(handle, WB_ANALYTICS_SINK_ENTRY_SYMBOL) != nil {
        dlclose(handle)
        return .success([])
      }
      dlclose(handle)
      return .failure(LoadFailure(message: "it has no '\(WB_PLUGIN_ENTRY_SYMBOL)' function: not a workbench plugin"))
    }
    let entry = unsafeBitCast(symbol, to: wb_plugin_entry.self)
    guard let plugin = entry() else {
      dlclose(handle)
      return .failure(LoadFailure(message: "its '\(WB_PLUGIN_ENTRY_SYMBOL)' returned nothing"))
    }
    let description = plugin.pointee
    guard description.abi_version == abiVersion else {
      dlclose(handle)
      return .failure(
        LoadFailure(
          message: "it speaks plugin ABI version \(description.abi_version); this workbench speaks version "
            + "\(abiVersion): rebuild it against workbench_plugin.h"))
    }
    guard description.estimator_count >= 0,
      description.estimator_count == 0 || description.estimators != nil
    else {
      dlclose(handle)
      return .failure(LoadFailure(message: "its estimator list is malformed"))
    }
    let library = PluginLibrary(handle: handle)
    var estimators: [any Estimator] = []
    for index in 0..<Int(description.estimator_count) {
      let table = description.estimators.advanced(by: index)
      guard let estimator = PluginEstimator(table: table, library: library, file: shown) else {
        return .failure(LoadFailure(message: "estimator \(index + 1) has no name, no provides or no estimate"))
      }
      estimators.append(estimator)
    }
    return .success(estimators)
  }
}

/// Keeps a plugin's library loaded as long as one of its estimators lives.
final class PluginLibrary {
  let handle: UnsafeMutableRawPointer
  init(handle: UnsafeMutableRawPointer) { self.handle = handle }
  deinit { dlclose(handle) }
}

/// An estimator implemented by a plugin.
final class PluginEstimator: Estimator {
  let descriptor: EstimatorDescriptor
  private let table: UnsafePointer<wb_plugin_estimator>
  private let library: PluginLibrary
  private var state: UnsafeMutableRawPointer?
  private var created = false
  private var provideNodes: [Int] = []
  private var needNodes: [Int?] = []
  private var ancestors: [Int] = []
  private let inputs: UnsafeMutablePointer<Double>
  private let inputPresent: UnsafeMutablePointer<UInt8>
  private let outputs: UnsafeMutablePointer<Double>
  private let outputPresent: UnsafeMutablePointer<UInt8>
  private let image: ImageNeed

  init?(table: UnsafePointer<wb_plugin_estimator>, library: PluginLibrary, file: String) {
    let entry = table.pointee
    guard let name = entry.name, entry.estimate != nil else { return nil }
    let provides = PluginEstimator.names(entry.provides)
    guard !provides.isEmpty else { return nil }
    let needs = PluginEstimator.names(entry.needs)
    self.table = table
    self.library = library
    image = entry.image_format == Int32(WB_PIXELS_RGB8.rawValue) ? .color : .gray
    descriptor = EstimatorDescriptor(
      name: String(cString: name), summary: entry.summary.map { String(cString: $0) } ?? "",
      provides: provides, needs: needs, image: image, origin: file)
    inputs = .allocate(capacity: max(1, needs.count))
    inputPresent = .allocate(capacity: max(1, needs.count))
    outputs = .allocate(capacity: provides.count)
    outputPresent = .allocate(capacity: provides.count)
  }

  deinit {
    if created, let destroy = table.pointee.destroy { destroy(state) }
    inputs.deallocate()
    inputPresent.deallocate()
    outputs.deallocate()
    outputPresent.deallocate()
  }

  static func names(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
    guard let list else { return [] }
    var names: [String] = []
    var index = 0
    while let name = list[index] {
      names.append(String(cString: name))
      index += 1
    }
    return names
  }

  func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    provideNodes = []
    for path in descriptor.provides { provideNodes.append(try schema.valueNode(path, estimator: descriptor.name)) }
    needNodes = descriptor.needs.map { schema.lookup(path: $0) }
    ancestors = Array(Set(provideNodes.flatMap { schema.ancestors(of: $0) })).sorted()
    if !created {
      state = table.pointee.create?(nil)
      created = true
    }
  }

  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    let buffer = image == .color && frame.hasColor ? frame.color : frame.gray
    var pluginImage = wb_plugin_image(
      width: Int32(buffer.width), height: Int32(buffer.height),
      format: Int32(buffer.format == .rgb8 ? WB_PIXELS_RGB8.rawValue : WB_PIXELS_GRAY8.rawValue),
      row_bytes: Int32(buffer.rowBytes), pixels: UnsafePointer(buffer.pixels))
    for (index, node) in needNodes.enumerated() {
      var value: Double?
      if let node {
        switch measurements[node] {
        case .number(let number): value = number
        case .integer(let integer): value = Double(integer)
        case .bool(let bool): value = bool ? 1 : 0
        default: value = nil
        }
      }
      inputs[index] = value ?? 0
      inputPresent[index] = value == nil ? 0 : 1
    }
    var needs = wb_plugin_values(values: inputs, present: inputPresent, count: Int32(needNodes.count))
    var out = wb_plugin_values(values: outputs, present: outputPresent, count: Int32(provideNodes.count))
    outputPresent.initialize(repeating: 0, count: provideNodes.count)
    let status = table.pointee.estimate(state, &pluginImage, frame.t, &needs, &out)
    guard status == 0 else { return }
    var wrote = false
    for (index, node) in provideNodes.enumerated() where outputPresent[index] != 0 {
      let value = outputs[index]
      guard value.isFinite else { continue }
      measurements[node] = .number(value)
      wrote = true
    }
    if wrote { for ancestor in ancestors { measurements[ancestor] = .table } }
  }
}
