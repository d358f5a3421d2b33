import Foundation
import JSONCore
import RunComposition
import Session
import Settings
import TestSupport
import Testing

/// configs/settings.json is the one file of every engine and estimator
/// default (LUNA ID's faceengine.conf): an integrator copies it and changes
/// what they need, so it must hold every setting a run has, at its default.
@Suite struct EngineDefaultsTests {
  func bundled() throws -> JSONValue {
    let text = try #require(
      try? String(contentsOfFile: packageRoot() + "/configs/settings.json", encoding: .utf8))
    return try JSONParser.parse(text)
  }

  /// The file's keys, dotted, with their values.
  func flattened(_ value: JSONValue, prefix: String = "") -> [String: JSONValue] {
    guard let object = value.objectValue else { return [prefix: value] }
    var out: [String: JSONValue] = [:]
    for (key, child) in object.entries {
      out.merge(flattened(child, prefix: prefix.isEmpty ? key : prefix + "." + key)) { a, _ in a }
    }
    return out
  }

  @Test func everySettingOfARunIsInTheFileAtItsDefault() throws {
    let file = flattened(try bundled())
    let declared = RunSettings.declarations
    for declaration in declared {
      let value = try #require(file[declaration.key], "configs/settings.json lacks \(declaration.key)")
      let expected = declaration.defaultValue.jsonValue
      // Whole numbers are integers in the file and numbers in a declaration.
      func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let left = a.arrayValue, let right = b.arrayValue {
          return left.count == right.count && zip(left, right).allSatisfy(same)
        }
        return a == b || (a.doubleValue != nil && a.doubleValue == b.doubleValue)
      }
      #expect(
        same(value, expected),
        "\(declaration.key): the file says \(value.jsonText), the default is \(declaration.defaultValue.jsonValue.jsonText)"
      )
    }
    #expect(
      Set(file.keys) == Set(declared.map(\.key)),
      "keys the engine does not declare: \(Set(file.keys).subtracting(declared.map(\.key)))")
  }
}
