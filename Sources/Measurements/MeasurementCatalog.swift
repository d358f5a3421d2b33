import Diagnostics

/// What kind of value a measurement holds in a frame where it is present.
public enum MeasurementType: String, Sendable, Equatable, CaseIterable {
  case number
  case integer
  case boolean
  case string
  /// Never a value of a frame: naming it in `needs` turns on an estimator
  /// that works when the flow asks (`face.descriptor`).
  case onRequest = "on request"

  /// Whether a number test (`above`, `below`, `min`, `max`) can read it.
  public var isNumeric: Bool { self == .number || self == .integer }

  /// The type of one frame's value; nil for absent and tables.
  public init?(_ value: MeasurementValue) {
    switch value {
    case .bool: self = .boolean
    case .integer: self = .integer
    case .number: self = .number
    case .string: self = .string
    case .absent, .table: return nil
    }
  }
}

/// One measurement an estimator declares. In `path`, a `#` part stands for
/// any position (`face.faces.#.yaw` is `face.faces.1.yaw`, `face.faces.2.yaw`, …).
public struct MeasurementField: Sendable, Equatable {
  public var path: String
  public var type: MeasurementType

  public init(_ path: String, _ type: MeasurementType = .number) {
    self.path = path
    self.type = type
  }
}

/// Every measurement a run could read, for checking a flow's fields before
/// it runs: from the estimators' declarations, or from what a trace holds.
public struct MeasurementCatalog: Sendable {
  public enum Lookup: Sendable, Equatable {
    /// A measurement; when a trace held it with more than one type, the first.
    case value(MeasurementType)
    /// A group of measurements ("face", "card.corners").
    case group
    case unknown
  }

  public private(set) var fields: [MeasurementField] = []
  private var parts: [[Substring]] = []

  /// Every frame has these, whatever the estimators.
  public static let frameFields = [MeasurementField("t"), MeasurementField("frame", .integer)]

  public init(_ fields: [MeasurementField] = []) {
    for field in MeasurementCatalog.frameFields + fields { add(field) }
  }

  public mutating func add(_ field: MeasurementField) {
    // A path of no parts ("" or "." from a trace) names nothing a flow can read.
    guard !field.path.split(separator: ".").isEmpty, !fields.contains(where: { $0.path == field.path }) else { return }
    fields.append(field)
    parts.append(field.path.split(separator: "."))
  }

  public func lookup(_ path: String) -> Lookup {
    let wanted = path.split(separator: ".")
    guard !wanted.isEmpty else { return .unknown }
    var isGroup = false
    for (index, field) in parts.enumerated() where field.count >= wanted.count {
      guard zip(field, wanted).allSatisfy(MeasurementCatalog.matches) else { continue }
      if field.count == wanted.count { return .value(fields[index].type) }
      isGroup = true
    }
    return isGroup ? .group : .unknown
  }

  /// Every path a flow could write for a field or a group, with `#` as 1:
  /// what a misspelled name is compared with.
  public var spellings: [String] {
    var names: [String] = []
    var seen = Set<String>()
    for field in parts {
      let concrete = field.map { $0 == "#" ? "1" : String($0) }
      for end in 1...concrete.count {
        let name = concrete[..<end].joined(separator: ".")
        if seen.insert(name).inserted { names.append(name) }
      }
    }
    return names
  }

  private static func matches(_ declared: Substring, _ written: Substring) -> Bool {
    declared == written || declared == "#" && (Int(written).map { $0 >= 1 } ?? false)
  }
}

extension MeasurementCatalog {
  /// The measurements a trace holds, with the type of their first value.
  public static func reading(_ trace: inout TraceReader) throws(WorkbenchError) -> MeasurementCatalog {
    var types: [Int: MeasurementType] = [:]
    while let frame = try trace.next() {
      for (node, value) in frame.values.enumerated() where types[node] == nil {
        if let type = MeasurementType(value) { types[node] = type }
      }
    }
    var catalog = MeasurementCatalog()
    for (node, entry) in trace.schema.nodes.enumerated() where !entry.isTable {
      catalog.add(MeasurementField(entry.path, types[node] ?? .number))
    }
    return catalog
  }
}
