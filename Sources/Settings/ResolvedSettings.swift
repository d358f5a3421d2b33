import JSONCore

/// A declared setting with its effective value and where that value came from.
public struct ResolvedSetting: Sendable, Equatable {
  public var declaration: SettingDeclaration
  public var value: SettingValue
  public var source: SettingSource

  public init(declaration: SettingDeclaration, value: SettingValue, source: SettingSource) {
    self.declaration = declaration
    self.value = value
    self.source = source
  }

  public var key: String { declaration.key }
}

/// The effective value of every declared setting.
public struct ResolvedSettings: Sendable {
  /// Every setting, sorted by key.
  public let all: [ResolvedSetting]
  private let indexByKey: [String: Int]

  /// Settings with the same key keep the last one given.
  public init(_ settings: [ResolvedSetting]) {
    let unique = Dictionary(settings.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
    all = unique.values.sorted { $0.key < $1.key }
    indexByKey = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.key, $0) })
  }

  public func setting(_ key: String) -> ResolvedSetting? {
    indexByKey[key].map { all[$0] }
  }

  public subscript(key: String) -> SettingValue? { setting(key)?.value }

  /// The value of a number or integer setting.
  public func number(_ key: String) -> Double? { self[key]?.numericValue }

  public func integer(_ key: String) -> Int64? {
    if case .integer(let integer) = self[key] { return integer }
    return nil
  }

  public func boolean(_ key: String) -> Bool? {
    if case .boolean(let boolean) = self[key] { return boolean }
    return nil
  }

  /// The value of a string or choice setting.
  public func string(_ key: String) -> String? {
    if case .string(let string) = self[key] { return string }
    return nil
  }

  /// A `numbers` setting's list (one number is a list of one).
  public func numbers(_ key: String) -> [Double]? {
    if case .numbers(let numbers) = self[key] { return numbers }
    return nil
  }

  /// A `strings` setting's list (one string is a list of one).
  public func strings(_ key: String) -> [String]? {
    if case .strings(let strings) = self[key] { return strings }
    return nil
  }

  public func source(of key: String) -> SettingSource? { setting(key)?.source }

  /// The values as nested objects along the dotted keys, keys sorted:
  /// `{"flow": {"time_limit": 30}}`.
  public var nested: JSONValue {
    nest(all.map { (path: $0.key.split(separator: ".").map(String.init)[...], value: $0.value.jsonValue) })
  }
}

/// Groups entries by their first path word; key clashes (`a` beside `a.b`)
/// cannot occur because the builder refuses such declarations.
private func nest(_ entries: [(path: ArraySlice<String>, value: JSONValue)]) -> JSONValue {
  var groups: [String: [(path: ArraySlice<String>, value: JSONValue)]] = [:]
  var leaves: [String: JSONValue] = [:]
  for entry in entries {
    guard let head = entry.path.first else { continue }
    let rest = entry.path.dropFirst()
    if rest.isEmpty {
      leaves[head] = entry.value
    } else {
      groups[head, default: []].append((rest, entry.value))
    }
  }
  var object = JSONObject()
  for name in Set(leaves.keys).union(groups.keys).sorted() {
    object[name] = leaves[name] ?? nest(groups[name] ?? [])
  }
  return .object(object)
}
