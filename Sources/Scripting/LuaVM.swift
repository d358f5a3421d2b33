import CLuaShim
import JSONCore
import Measurements

/// A failure the host reports back to the script; it becomes a Lua error at
/// the flow's line.
public struct HostCallFailure: Error, Sendable {
  public var message: String
  public init(_ message: String) { self.message = message }
}

/// The functions a script can call in the host (through `require "wb.native"`):
/// receives calls from Lua, and answers with a Lua expression for the
/// return values (see `LuaLiteral`), or nil for none.
public protocol ScriptHost: AnyObject {
  /// The functions scripts find in `require "wb.native"` besides the VM's
  /// own (`VMFunctions`; at most 32 in all); one named "log" also receives
  /// `print(...)`.
  var functionNames: [String] { get }
  func call(_ function: String, arguments: [JSONValue]) throws(HostCallFailure) -> String?
}

/// What a driver function returned: its first result by kind, a string
/// second and a whole-number third, when they are those.
public struct DriverResult: Sendable, Equatable {
  public enum First: Sendable, Equatable {
    case none
    case bool(Bool)
    /// Another type, by its Lua name ("number", "table", ...).
    case other(String)
  }

  public var first: First
  public var string: String?
  public var integer: Int64?

  init(_ result: wb_call_result) {
    switch result.kind {
    case Int32(WB_RESULT_TRUE.rawValue): first = .bool(true)
    case Int32(WB_RESULT_FALSE.rawValue): first = .bool(false)
    case Int32(WB_RESULT_OTHER.rawValue): first = .other(result.other_type.map { String(cString: $0) } ?? "value")
    default: first = .none
    }
    string = result.string.map { String(cString: $0) }
    integer = result.has_integer != 0 ? result.integer : nil
  }
}

/// One Lua state for one flow. Not thread-safe: own it from one thread.
public final class LuaVM {
  private let vm: OpaquePointer
  private let hostBox: HostBox

  /// Every state's memory is one region reserved for it, whose freed blocks
  /// are reused (so a flow stepping frame after frame stops calling malloc).
  /// With `restorable`, which needs a memory cap, the state can be copied
  /// and put back (``snapshot()``, ``restore()``), and its region is
  /// `regionBytes`, or by default four times the cap and at least 1 GiB of
  /// address space; any other state's is twice the cap and 16 MiB.
  public init(limits: ScriptLimits, host: any ScriptHost, restorable: Bool = false, regionBytes: Int = 0)
    throws(ScriptError)
  {
    let box = HostBox()
    box.host = host
    hostBox = box
    var cLimits = wb_limits(
      memory_limit: limits.memoryLimit, instruction_limit: limits.instructionLimit,
      pattern_budget: limits.patternBudget)
    guard
      let created = wb_vm_new_restorable(
        &cLimits, hostTrampoline, Unmanaged.passUnretained(box).toOpaque(), restorable ? 1 : 0, regionBytes)
    else {
      throw ScriptError(kind: .memoryLimit, message: "cannot create a Lua state")
    }
    vm = created
    box.vm = created
    // The VM's own first: a host function of the same name does not hide one.
    for name in VMFunctions.names + host.functionNames where wb_vm_add_function(created, name) > 0 {
      box.functionNames.append(name)
    }
  }

  deinit {
    wb_vm_close(vm)
    numbers.deallocate()
  }

  public func addRequireRoot(directory: String, display: String) {
    _ = wb_vm_add_require_root(vm, directory, display)
  }

  private var libraryPrefix = ""
  /// The C view of one frame's measurements, refilled in place every frame.
  private let slots = SlotBuffer()
  /// The numbers of a driver call.
  private let numbers = UnsafeMutablePointer<Double>.allocate(capacity: 2)

  public func setLibraryPrefix(_ prefix: String) {
    libraryPrefix = prefix
    wb_vm_set_library_prefix(vm, prefix)
  }

  public func seedRandom(_ seed: Int64) { wb_vm_seed_random(vm, seed) }

  /// Runs a flow file; its returned value is kept as the flow.
  public func runFile(path: String, chunkName: String) throws(ScriptError) {
    try check(wb_vm_run_file(vm, path, chunkName))
  }

  public func runString(_ code: String, chunkName: String) throws(ScriptError) {
    let bytes = Array(code.utf8)
    let status = bytes.withUnsafeBufferPointer { buffer in
      buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        wb_vm_run_string(vm, $0, buffer.count, chunkName)
      }
    }
    try check(status)
  }

  /// Calls `require(module)[function](returned value, m)`, which returns a
  /// description (given back here) and a driver, whose functions
  /// ``callDriver(_:index:_:_:)`` and ``callBound(index:measurements:nodeCount:setting:to:)`` calls.
  public func openDriver(module: String, function: String) throws(ScriptError) -> JSONValue {
    var json: UnsafePointer<CChar>?
    var length = 0
    try check(wb_vm_open_driver(vm, module, function, &json, &length))
    guard let json else { throw ScriptError(kind: .apiMisuse, message: "the flow description is empty") }
    let bytes = Array(UnsafeRawBufferPointer(start: json, count: length))
    do {
      return try JSONParser.parse(bytes: bytes)
    } catch {
      throw ScriptError(kind: .apiMisuse, message: "the flow description is not valid JSON: \(error)")
    }
  }

  /// The value the last file or string returned, as JSON (a scenario's
  /// table); a function or other value JSON cannot hold is an error.
  public func returnedValue() throws(ScriptError) -> JSONValue {
    var json: UnsafePointer<CChar>?
    var length = 0
    try check(wb_vm_returned_json(vm, &json, &length))
    guard let json else { return .null }
    let bytes = Array(UnsafeRawBufferPointer(start: json, count: length))
    do {
      return try JSONParser.parse(bytes: bytes)
    } catch {
      throw ScriptError(kind: .apiMisuse, message: "the returned value is not valid JSON: \(error)")
    }
  }

  /// Calls `driver[function](value)`; nothing when the driver has no such function.
  public func callDriver(_ function: String, value: JSONValue?) throws(ScriptError) {
    let literal = value.map(LuaLiteral.encode)
    let status: wb_status
    if let literal {
      status = wb_vm_call_driver_value(vm, function, literal)
    } else {
      status = wb_vm_call_driver_value(vm, function, nil)
    }
    try check(status)
  }

  public func updateLimits(_ limits: ScriptLimits) {
    var cLimits = wb_limits(
      memory_limit: limits.memoryLimit, instruction_limit: limits.instructionLimit,
      pattern_budget: limits.patternBudget)
    wb_vm_set_limits(vm, &cLimits)
  }

  // MARK: Measurements and steps

  /// Mirrors a node of the measurement tree; ids must be added in order.
  /// `parent` is -1 at the top level; a node has a field name or, for
  /// arrays, a 1-based index.
  @discardableResult
  public func addSchemaNode(parent: Int, name: String?, index: Int64, isTable: Bool) -> Int {
    guard let name else {
      return Int(wb_vm_schema_add(vm, Int32(parent), nil, 0, index, isTable ? 1 : 0))
    }
    var key = name
    return key.withUTF8 { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        Int(wb_vm_schema_add(vm, Int32(parent), $0.baseAddress, $0.count, 0, isTable ? 1 : 0))
      }
    }
  }

  /// Calls `driver[function](index, numbers...)` in one protected call.
  public func callDriver(_ function: String, index: Int, _ first: Double? = nil, _ second: Double? = nil)
    throws(ScriptError) -> DriverResult
  {
    var count: Int32 = 0
    if let first {
      numbers[0] = first
      count = 1
      if let second {
        numbers[1] = second
        count = 2
      }
    }
    var result = wb_call_result()
    try check(wb_vm_call_driver(vm, function, Int64(index), numbers, count, &result))
    return DriverResult(result)
  }

  /// Calls, for `index`, the function and self that `driver.bind(index)`
  /// gave (asked once), as `function(self, m, driver.state)`, with `m`
  /// refilled from the frame and `driver.state[key] = number` first: the call
  /// the host makes on every frame, with no lookup on the way.
  public func callBound(
    index: Int, measurements: MeasurementFrame, nodeCount: Int, setting key: StaticString, to number: Double
  ) throws(ScriptError) -> DriverResult {
    // Filling may move the slots to a larger buffer: read the pointer after it.
    let slotCount = Int32(slots.fill(from: measurements, nodeCount: nodeCount))
    var frame = wb_frame(slots: slots.slots, slot_count: slotCount, t: measurements.t, index: measurements.index)
    var result = wb_call_result()
    // A StaticString is stored null-terminated.
    let cKey = UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self)
    try check(wb_vm_call_bound(vm, Int64(index), &frame, cKey, number, &result))
    return DriverResult(result)
  }

  /// Keeps the state as it is now, for ``restore()``. False when it
  /// cannot: the VM is not restorable, or its memory outgrew its region.
  @discardableResult
  public func snapshot() -> Bool { wb_vm_snapshot(vm) == 0 }

  /// Makes the state what it was at the last ``snapshot()``: every global,
  /// module, upvalue and the memory count. False when it cannot (no
  /// snapshot, or the memory outgrew its region since): then the state is
  /// as it was, and only a new VM starts clean.
  public func restore() -> Bool { wb_vm_restore(vm) == 0 }

  /// The bytes the last snapshot holds (0 without one).
  public var snapshotBytes: Int { wb_vm_snapshot_bytes(vm) }

  /// Sends the script's calls to `host` from now on.
  public func rebind(host: any ScriptHost) { hostBox.host = host }

  public var memoryInUse: Int { wb_vm_memory_in_use(vm) }
  public var memoryPeak: Int { wb_vm_memory_peak(vm) }

  /// The files `require` has read so far, in order, as found on disk
  /// (a module that did not load among them).
  public var requiredFiles: [String] {
    var files: [String] = []
    var buffer = [CChar](repeating: 0, count: 4096)
    for index in 0..<wb_vm_required_file_count(vm) {
      let length = wb_vm_required_file(vm, index, &buffer, buffer.count)
      if length > 0 { files.append(String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
    }
    return files
  }

  @inline(__always)
  private func check(_ status: wb_status) throws(ScriptError) {
    if status == WB_OK { return }
    throw ScriptError(wb_vm_last_error(vm).pointee, libraryPrefix: libraryPrefix)
  }

  fileprivate static func dispatch(
    box: HostBox, function: Int32, arguments: UnsafePointer<CChar>?, length: Int
  ) -> Int32 {
    let vm = box.vm
    func reply(_ text: String) {
      var text = text
      text.withUTF8 { buffer in
        buffer.withMemoryRebound(to: CChar.self) { wb_vm_reply(vm, $0.baseAddress, $0.count) }
      }
    }
    guard let host = box.host, function >= 1, Int(function) <= box.functionNames.count else {
      reply("the host is gone")
      return 1
    }
    let name = box.functionNames[Int(function) - 1]
    let bytes = arguments.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
    let parsed: [JSONValue]
    do {
      parsed = try JSONParser.parse(bytes: bytes).arrayValue ?? []
    } catch {
      reply("arguments could not be read: \(error)")
      return 1
    }
    do {
      let answer: String?
      if let handler = VMFunctions.handler(name) {
        answer = try handler(vm, parsed)
      } else {
        answer = try host.call(name, arguments: parsed)
      }
      if let answer { reply(answer) }
      return 0
    } catch {
      reply(error.message)
      return 1
    }
  }
}

/// Owned by the VM; C callbacks reach the host through it.
private final class HostBox {
  weak var host: (any ScriptHost)?
  var vm: OpaquePointer?
  /// By id: the C side numbers the functions from 1 in this order.
  var functionNames: [String] = []
}

private let hostTrampoline: wb_host_fn = { hostPointer, function, arguments, length in
  guard let hostPointer else { return 1 }
  let box = Unmanaged<HostBox>.fromOpaque(hostPointer).takeUnretainedValue()
  return LuaVM.dispatch(box: box, function: function, arguments: arguments, length: length)
}
