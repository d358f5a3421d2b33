import CLuaShim
import JSONCore

/// The functions the VM itself offers in `require "wb.native"`, beside the
/// host's: registered and dispatched like the host's (the C side numbers
/// them all alike), so every host, a flow's or a scenario's, has them.
enum VMFunctions {
  typealias Handler = @Sendable (_ vm: OpaquePointer?, _ arguments: [JSONValue]) throws(HostCallFailure) -> String?

  /// In the order they are registered.
  static let table: [(name: String, handler: Handler)] = [("where", callerPosition)]

  static let names = table.map(\.name)

  /// The handler of `name`, if the VM offers it: asked on every host call, so
  /// a look along the table, not a hash of the name.
  static func handler(_ name: String) -> Handler? {
    for entry in table where entry.name == name { return entry.handler }
    return nil
  }

  /// `where(level)`: "file:line: " of the function `level` frames up (1, the
  /// default: the caller), the first outside the step library, so that it
  /// reports mistakes at the flow's line without the debug library. The
  /// stack is read in C, which raises nothing.
  @Sendable
  static func callerPosition(_ vm: OpaquePointer?, _ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    let level: Int64
    switch arguments.first ?? .null {
    case .null: level = 1
    case .integer(let integer): level = integer
    case .number(let number):
      guard let integer = Int64(exactly: number) else {
        throw HostCallFailure("bad argument #1 to 'where' (number has no integer representation)")
      }
      level = integer
    case .string: throw HostCallFailure("bad argument #1 to 'where' (number expected, got string)")
    case .bool: throw HostCallFailure("bad argument #1 to 'where' (number expected, got boolean)")
    case .array, .object: throw HostCallFailure("bad argument #1 to 'where' (number expected, got table)")
    }
    var buffer = [CChar](repeating: 0, count: 512)
    let length = wb_vm_caller_position(vm, Int32(truncatingIfNeeded: level), &buffer, buffer.count)
    // The bytes as Lua has them: a chunk name cut to fit may end inside a character.
    return LuaLiteral.string(bytes: buffer[..<length].map { UInt8(bitPattern: $0) })
  }
}
