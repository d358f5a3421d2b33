import CLuaShim
import Measurements

/// The C view of one frame's measurements, refilled in place every frame so
/// that the per-frame path does not allocate once it has grown to size.
final class SlotBuffer {
  private(set) var slots: UnsafeMutablePointer<wb_slot>
  private var capacity: Int
  private var arena: UnsafeMutablePointer<CChar>
  private var arenaCapacity: Int

  init(capacity: Int = 64) {
    self.capacity = capacity
    slots = .allocate(capacity: capacity)
    arenaCapacity = 4096
    arena = .allocate(capacity: arenaCapacity)
  }

  deinit {
    slots.deallocate()
    arena.deallocate()
  }

  /// Fills one slot per schema node; returns how many were filled.
  func fill(from frame: MeasurementFrame, nodeCount: Int) -> Int {
    if nodeCount > capacity {
      slots.deallocate()
      capacity = max(nodeCount, capacity * 2)
      slots = .allocate(capacity: capacity)
    }
    ensureArena(for: frame)
    var arenaUsed = 0
    let values = frame.values
    for node in 0..<nodeCount {
      var slot = wb_slot(kind: Int32(WB_ABSENT.rawValue), string_length: 0, integer: 0, number: 0, string: nil)
      if node < values.count {
        switch values[node] {
        case .absent: break
        case .bool(let bool): slot.kind = Int32(bool ? WB_TRUE.rawValue : WB_FALSE.rawValue)
        case .integer(let integer):
          slot.kind = Int32(WB_INTEGER.rawValue)
          slot.integer = integer
        case .number(let number):
          slot.kind = Int32(WB_NUMBER.rawValue)
          slot.number = number
        case .string(let string):
          slot.kind = Int32(WB_STRING.rawValue)
          let start = arena + arenaUsed
          var length = 0
          for byte in string.utf8 {
            start[length] = CChar(bitPattern: byte)
            length += 1
          }
          slot.string = UnsafePointer(start)
          slot.string_length = Int32(length)
          arenaUsed += length
        case .table: slot.kind = Int32(WB_TABLE.rawValue)
        }
      }
      slots[node] = slot
    }
    return nodeCount
  }

  private func ensureArena(for frame: MeasurementFrame) {
    var needed = 0
    for value in frame.values {
      if case .string(let string) = value { needed += string.utf8.count }
    }
    if needed > arenaCapacity {
      arena.deallocate()
      arenaCapacity = max(needed, arenaCapacity * 2)
      arena = .allocate(capacity: arenaCapacity)
    }
  }
}
