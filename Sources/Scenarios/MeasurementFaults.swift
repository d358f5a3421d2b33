import Diagnostics
import JSONCore
import Measurements
import Session

/// Applies the scenario's measurement faults to a frame.
struct MeasurementFaults {
  let faults: [(field: String, add: Double?, scale: Double?, set: JSONValue?, from: Double, to: Double)]

  init(_ faults: [Fault]) {
    var list: [(field: String, add: Double?, scale: Double?, set: JSONValue?, from: Double, to: Double)] = []
    for fault in faults {
      if case .measure(let field, let add, let scale, let set, let from, let to) = fault {
        list.append((field, add, scale, set, from, to))
      }
    }
    self.faults = list
  }

  var isEmpty: Bool { faults.isEmpty }

  func apply(_ frame: inout MeasurementFrame, schema: MeasurementSchema) {
    for fault in faults where frame.t >= fault.from && frame.t <= fault.to {
      guard case .success(let node) = schema.node(path: fault.field) else { continue }
      let current = frame[node]
      var value: Double?
      switch current {
      case .number(let number): value = number
      case .integer(let number): value = Double(number)
      default: value = nil
      }
      if let set = fault.set {
        switch set {
        case .bool(let flag): frame[node] = .bool(flag)
        case .integer(let number): frame[node] = .integer(number)
        case .number(let number): frame[node] = .number(number)
        case .string(let text): frame[node] = .string(text)
        default:
          frame[node] = .absent
          continue
        }
      } else if let value, let add = fault.add {
        frame[node] = .number(value + add)
      } else if let value, let scale = fault.scale {
        frame[node] = .number(value * scale)
      }
      for table in schema.ancestors(of: node) { frame[table] = .table }
    }
  }
}

/// An input whose measurements the scenario's measurement faults change.
final class AdjustedInput: WrappingMeasurementInput {
  let base: any MeasurementInput
  private let faults: MeasurementFaults
  private let schema: MeasurementSchema

  init(_ base: any MeasurementInput, faults: MeasurementFaults, schema: MeasurementSchema) {
    self.base = base
    self.faults = faults
    self.schema = schema
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    guard var frame = try base.next(note: note) else { return nil }
    faults.apply(&frame, schema: schema)
    return frame
  }
}
