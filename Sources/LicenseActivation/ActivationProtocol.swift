import Foundation
import JSONCore
import Licensing

/// The activation protocol between `workbench license activate` and an
/// activation server (docs/licensing.md, "The activation protocol"):
///
/// - `POST /v1/activate` with `{"eid","product","fingerprint","container_mode"}`
///   answers 200 with the license file's bytes, 403 with a refusal, or 400
///   when the request is malformed;
/// - `GET /v1/health` answers 200.
public enum ActivationProtocol {
  public static let activatePath = "/v1/activate"
  public static let healthPath = "/v1/health"
  /// The server's counters in the Prometheus text format.
  public static let metricsPath = "/v1/metrics"
  public static let defaultHost = "127.0.0.1"
  public static let defaultPort = 8740
  /// The largest request body the server reads.
  public static let maximumRequestSize = 16 * 1024
  /// The largest response body the client reads (a license is about 400 bytes).
  public static let maximumResponseSize = 256 * 1024
  public static let jsonContentType = "application/json"
}

/// What `license activate` asks for: a license for a product and an EID,
/// bound to a machine (or not: container mode).
public struct ActivationRequest: Sendable, Equatable {
  public var eid: String
  public var product: String
  public var binding: LicenseBinding

  public init(eid: String, product: String, binding: LicenseBinding) {
    self.eid = eid
    self.product = product
    self.binding = binding
  }

  /// `{"eid":"…","product":"…","fingerprint":"…"|null,"container_mode":false|true}`.
  public var jsonData: Data {
    let fingerprint: JSONValue
    if case .machine(let bound) = binding { fingerprint = .string(bound.value) } else { fingerprint = .null }
    let object = JSONObject([
      ("eid", .string(eid)), ("product", .string(product)), ("fingerprint", fingerprint),
      ("container_mode", .bool(binding == .container)),
    ])
    return Data(JSONValue.object(object).jsonText.utf8)
  }

  /// The request a body holds, or why it is malformed (the text of a 400).
  /// Fields this server does not know are ignored.
  public static func parse(_ data: Data) -> Result<ActivationRequest, MalformedActivationRequest> {
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      return .failure(MalformedActivationRequest("the request is not JSON (\(error))"))
    }
    guard let object = document.objectValue else {
      return .failure(MalformedActivationRequest("the request is \(document.kindName), not an object"))
    }
    var problems: [String] = []
    func text(_ key: String) -> String? {
      guard let value = object[key] else {
        problems.append("'\(key)' is missing")
        return nil
      }
      guard let string = value.stringValue else {
        problems.append("'\(key)' must be a string, not \(value.kindName)")
        return nil
      }
      guard !string.trimmingCharacters(in: .whitespaces).isEmpty else {
        problems.append("'\(key)' must not be empty")
        return nil
      }
      return string
    }
    let eid = text("eid")
    let product = text("product")
    var binding: LicenseBinding?
    switch (object["container_mode"], object["fingerprint"]) {
    case (.bool(true)?, .null?), (.bool(true)?, nil):
      binding = .container
    case (.bool(true)?, _?):
      problems.append("'fingerprint' must be null in container mode")
    case (.bool(false)?, .string(let value)?), (nil, .string(let value)?):
      if let fingerprint = MachineFingerprint(value) {
        binding = .machine(fingerprint)
      } else {
        problems.append("'fingerprint' must be \(MachineFingerprint.length) hex digits")
      }
    case (.bool(false)?, _), (nil, _):
      problems.append("'fingerprint' must be the machine's \(MachineFingerprint.length) hex digits")
    case (let other?, _):
      problems.append("'container_mode' must be true or false, not \(other.kindName)")
    }
    guard problems.isEmpty, let eid, let product, let binding else {
      return .failure(MalformedActivationRequest(problems.joined(separator: "; ")))
    }
    return .success(ActivationRequest(eid: eid, product: product, binding: binding))
  }
}

/// Why a request body is not an activation request.
public struct MalformedActivationRequest: Error, Sendable, Equatable {
  public var message: String

  public init(_ message: String) { self.message = message }
}

/// Why a server refuses to activate (403), as `reason` says it.
public enum RefusalReason: String, Sendable, CaseIterable {
  /// The EID is not on the server's list.
  case unknownEID = "unknown_eid"
  /// The server issues licenses for another product.
  case wrongProduct = "wrong_product"
  /// Every activation of the EID is in use by other machines.
  case limitReached = "limit_reached"
}

/// The JSON body of every answer but a license:
/// `{"error":"<a sentence>","reason":"<a code>"}`.
public struct ActivationProblem: Sendable, Equatable {
  /// One of ``RefusalReason`` for a 403; `malformed_request`, `not_found`,
  /// `method_not_allowed`, `too_large` or `server_error` otherwise. A newer
  /// server may send others.
  public var reason: String
  public var message: String

  public static let malformedRequest = "malformed_request"
  public static let notFound = "not_found"
  public static let methodNotAllowed = "method_not_allowed"
  public static let tooLarge = "too_large"
  public static let serverError = "server_error"
  /// The connection closed before the whole body arrived (the body timeout, or the client left).
  public static let incompleteRequest = "incomplete_request"
  /// The 503 of a connection over the server's limit.
  public static let tooManyConnections = "too_many_connections"
  /// The 408 of a request head that did not arrive in time.
  public static let requestTimeout = "request_timeout"

  public init(reason: String, message: String) {
    self.reason = reason
    self.message = message
  }

  public init(_ reason: RefusalReason, _ message: String) {
    self.init(reason: reason.rawValue, message: message)
  }

  public var refusalReason: RefusalReason? { RefusalReason(rawValue: reason) }

  public var jsonData: Data {
    Data(JSONValue.object(JSONObject([("error", .string(message)), ("reason", .string(reason))])).jsonText.utf8)
  }

  /// Nil unless `data` is such an object (with at least `error` or `reason`).
  public static func parse(_ data: Data) -> ActivationProblem? {
    guard let object = (try? JSONParser.parse(bytes: Array(data)))?.objectValue else { return nil }
    let message = object["error"]?.stringValue
    let reason = object["reason"]?.stringValue
    guard message != nil || reason != nil else { return nil }
    return ActivationProblem(reason: reason ?? "", message: message ?? "")
  }
}
