/// A key in the measurement tree: a field name, or an array position (1-based, as in Lua).
public enum MeasurementKey: Hashable, Sendable, CustomStringConvertible {
  case name(String)
  case index(Int64)

  public var description: String {
    switch self {
    case .name(let name): return name
    case .index(let index): return String(index)
    }
  }
}

/// The shape of a frame's measurements, as a tree of tables and values
/// (`face` → `yaw`, `card` → `corners` → 1 → `x`). Nodes are only added,
/// never removed, so a node id stays valid for a whole run; parents come
/// before their children.
public final class MeasurementSchema {
  public struct Node: Sendable, Equatable {
    public var parent: Int
    public var key: MeasurementKey
    public var isTable: Bool
    /// Dotted path, e.g. "card.corners.1.x".
    public var path: String
  }

  public private(set) var nodes: [Node] = []
  private var ids: [Key: Int] = [:]
  /// Called for every node added, so that a mirror (the Lua VM) can follow.
  public var onAdd: ((Int, Node) -> Void)?

  private struct Key: Hashable {
    var parent: Int
    var key: MeasurementKey
  }

  public init() {}

  public var count: Int { nodes.count }

  /// The id of the child `key` of `parent` (-1 for the top level).
  public func id(parent: Int, key: MeasurementKey) -> Int? { ids[Key(parent: parent, key: key)] }

  /// The node for `key` under `parent`, created if needed. Fails when the
  /// node exists with the other kind (a value where a table was, or back).
  public func node(parent: Int, key: MeasurementKey, isTable: Bool) -> Result<Int, MeasurementShapeError> {
    if let existing = ids[Key(parent: parent, key: key)] {
      guard nodes[existing].isTable == isTable else {
        return .failure(MeasurementShapeError(path: nodes[existing].path, wasTable: nodes[existing].isTable))
      }
      return .success(existing)
    }
    let path = parent < 0 ? key.description : nodes[parent].path + "." + key.description
    let node = Node(parent: parent, key: key, isTable: isTable, path: path)
    nodes.append(node)
    let id = nodes.count - 1
    ids[Key(parent: parent, key: key)] = id
    onAdd?(id, node)
    return .success(id)
  }

  /// The node of a dotted path such as "face.yaw", creating tables on the
  /// way; the last part is a value unless `isTable`.
  public func node(path: String, isTable: Bool = false) -> Result<Int, MeasurementShapeError> {
    var parent = -1
    let parts = path.split(separator: ".")
    for (position, part) in parts.enumerated() {
      let key: MeasurementKey = Int64(part).map { .index($0) } ?? .name(String(part))
      let last = position == parts.count - 1
      switch node(parent: parent, key: key, isTable: last ? isTable : true) {
      case .success(let id): parent = id
      case .failure(let error): return .failure(error)
      }
    }
    return .success(parent)
  }

  /// The id of an existing dotted path, without creating anything.
  public func lookup(path: String) -> Int? {
    var parent = -1
    for part in path.split(separator: ".") {
      let key: MeasurementKey = Int64(part).map { .index($0) } ?? .name(String(part))
      guard let id = ids[Key(parent: parent, key: key)] else { return nil }
      parent = id
    }
    return parent < 0 ? nil : parent
  }

  /// Every table node above `node`, nearest first: the tables a frame
  /// marks present when it has a value at `node`.
  public func ancestors(of node: Int) -> [Int] {
    var result: [Int] = []
    var parent = nodes[node].parent
    while parent >= 0 {
      result.append(parent)
      parent = nodes[parent].parent
    }
    return result
  }
}

/// A measurement that appears once as a value and once as a table.
public struct MeasurementShapeError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var wasTable: Bool

  public var description: String {
    wasTable
      ? "'\(path)' was a table of measurements and is now a single value"
      : "'\(path)' was a single value and is now a table of measurements"
  }
}

/// One measurement in one frame.
public enum MeasurementValue: Sendable, Equatable {
  case absent
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  /// A table node that is present in this frame.
  case table
}

/// The measurements of one frame: a value per schema node (nodes past the
/// end of `values` are absent).
public struct MeasurementFrame: Sendable {
  /// Seconds, from the input's clock.
  public var t: Double
  /// 0-based frame number in the input.
  public var index: Int64
  public var values: [MeasurementValue]

  public init(t: Double, index: Int64, values: [MeasurementValue] = []) {
    self.t = t
    self.index = index
    self.values = values
  }

  public subscript(node: Int) -> MeasurementValue {
    get { node < values.count ? values[node] : .absent }
    set {
      if node >= values.count { values.append(contentsOf: repeatElement(.absent, count: node - values.count + 1)) }
      values[node] = newValue
    }
  }
}
