import Foundation
import JSONCore

/// What a license is bound to.
public enum LicenseBinding: Sendable, Hashable {
  /// One machine, by its fingerprint.
  case machine(MachineFingerprint)
  /// Container mode: any machine (containers get a new machine-id each time).
  case container
}

/// The features a license may grant. A license may name others (from a
/// newer workbench); `issue` only writes these.
public enum LicenseFeature {
  public static let card = "card"
  public static let face = "face"
  public static let record = "record"
  public static let plugins = "plugins"
  public static let known = [card, face, plugins, record]
}

/// What a license grants, as signed in its payload.
public struct License: Sendable, Hashable {
  public var id: String
  public var product: String
  /// The customer's entitlement ID.
  public var eid: String
  public var binding: LicenseBinding
  /// Whole seconds, UTC.
  public var issued: Date
  /// Whole seconds, UTC. From this moment on the license no longer holds.
  public var expires: Date
  /// Sorted, without repeats.
  public var features: [String]

  public init(
    id: String = UUID().uuidString.lowercased(), product: String, eid: String, binding: LicenseBinding, issued: Date,
    expires: Date, features: [String]
  ) {
    self.id = id
    self.product = product
    self.eid = eid
    self.binding = binding
    self.issued = License.wholeSeconds(issued)
    self.expires = License.wholeSeconds(expires)
    self.features = Array(Set(features)).sorted()
  }

  public var fingerprint: MachineFingerprint? {
    if case .machine(let fingerprint) = binding { return fingerprint }
    return nil
  }

  public var containerMode: Bool { binding == .container }

  public func grants(_ feature: String) -> Bool { features.contains(feature) }

  public func isExpired(at now: Date) -> Bool { now >= expires }

  /// Days from `now` to the expiry, to the nearest whole day (a license
  /// issued for 365 days has 365 left just after); negative once expired.
  public func daysLeft(at now: Date) -> Int {
    Int((expires.timeIntervalSince(now) / 86_400).rounded())
  }

  /// ISO 8601 in UTC, whole seconds: 2026-01-31T12:00:00Z.
  public static func timestamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
  }

  /// A timestamp as `timestamp(_:)` writes it, and only that form.
  public static func date(fromTimestamp text: String) -> Date? {
    guard let date = try? Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).parse(text),
      timestamp(date) == text
    else { return nil }
    return date
  }

  static func wholeSeconds(_ date: Date) -> Date {
    Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
  }

  /// The payload's fields, in the order of the canonical form (sorted keys).
  static let payloadKeys = [
    "container_mode", "eid", "expires", "features", "fingerprint", "issued", "license_id", "product",
  ]

  /// The canonical JSON of the payload: keys sorted, no spaces, UTF-8.
  /// These are the bytes that are signed.
  public var canonicalPayload: Data {
    let fields: [String: JSONValue] = [
      "license_id": .string(id),
      "product": .string(product),
      "eid": .string(eid),
      "fingerprint": fingerprint.map { .string($0.value) } ?? .null,
      "container_mode": .bool(containerMode),
      "issued": .string(License.timestamp(issued)),
      "expires": .string(License.timestamp(expires)),
      "features": .array(features.map { .string($0) }),
    ]
    let object = JSONObject(License.payloadKeys.map { ($0, fields[$0]!) })
    return Data(JSONValue.object(object).jsonText.utf8)
  }

  /// The license a signed payload holds, or what is wrong with it.
  static func decode(payload: Data) -> Result<License, PayloadProblem> {
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(payload))
    } catch {
      return .failure(PayloadProblem("the payload is not JSON (\(error))"))
    }
    guard let object = document.objectValue else {
      return .failure(PayloadProblem("the payload is \(document.kindName), not an object"))
    }
    if let unknown = object.keys.first(where: { !payloadKeys.contains($0) }) {
      return .failure(PayloadProblem("the payload has a field this workbench does not know: '\(unknown)'", newer: true))
    }
    func string(_ key: String) -> String? { object[key]?.stringValue }
    guard let id = string("license_id"), let product = string("product"), let eid = string("eid") else {
      return .failure(PayloadProblem("license_id, product and eid must be strings"))
    }
    guard let containerMode = object["container_mode"]?.boolValue else {
      return .failure(PayloadProblem("container_mode must be true or false"))
    }
    let binding: LicenseBinding
    switch (containerMode, object["fingerprint"]) {
    case (true, .null?): binding = .container
    case (false, .string(let text)?):
      guard let fingerprint = MachineFingerprint(text) else {
        return .failure(PayloadProblem("fingerprint must be \(MachineFingerprint.length) hex digits"))
      }
      binding = .machine(fingerprint)
    default:
      return .failure(PayloadProblem("fingerprint must be null in container mode and a fingerprint otherwise"))
    }
    guard let issuedText = string("issued"), let issued = date(fromTimestamp: issuedText),
      let expiresText = string("expires"), let expires = date(fromTimestamp: expiresText)
    else {
      return .failure(PayloadProblem("issued and expires must be UTC timestamps such as 2026-01-31T12:00:00Z"))
    }
    guard let list = object["features"]?.arrayValue else {
      return .failure(PayloadProblem("features must be a list"))
    }
    let features = list.compactMap(\.stringValue)
    guard features.count == list.count else {
      return .failure(PayloadProblem("features must be a list of names"))
    }
    return .success(
      License(
        id: id, product: product, eid: eid, binding: binding, issued: issued, expires: expires, features: features))
  }

  struct PayloadProblem: Error {
    var message: String
    /// The payload may come from a newer workbench.
    var newer = false

    init(_ message: String, newer: Bool = false) {
      self.message = message
      self.newer = newer
    }
  }
}

/// `{"workbench_license":1,"payload":"<base64>","signature":"<base64>"}`:
/// the file a license is stored in (license.dat).
public enum LicenseDocument {
  public static let formatKey = "workbench_license"
  public static let version: Int64 = 1

  /// The license file for a payload and its signature.
  public static func encode(payload: Data, signature: Data) -> Data {
    let document = JSONValue.object(
      JSONObject([
        (formatKey, .integer(version)), ("payload", .string(payload.base64EncodedString())),
        ("signature", .string(signature.base64EncodedString())),
      ]))
    return Data((document.jsonText + "\n").utf8)
  }
}
