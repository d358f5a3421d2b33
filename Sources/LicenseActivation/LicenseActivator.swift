import AsyncHTTPClient
import Diagnostics
import Foundation
import Licensing
import NIOCore
import NIOPosix

/// Why an activation did not give a license. Every kind exits with 3
/// (license); `error` says what happened, naming the server, and what to do.
public struct ActivationError: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// The server could not be reached: connection refused, a host name
    /// that does not resolve, no route.
    case unreachable
    /// The server answered 403; `reason` says why.
    case refused
    /// No answer within ConnectionTimeout.
    case timeout
    /// An answer that is not a license, or a license that does not hold
    /// here (does not verify with the public key, for something else).
    case badResponse
    /// The license cannot be stored where the configuration says.
    case storage
  }

  public var kind: Kind
  /// The server's reason for a refusal: `unknown_eid`, `wrong_product`, `limit_reached`.
  public var reason: String?
  public var error: WorkbenchError

  public init(_ kind: Kind, reason: String? = nil, _ error: WorkbenchError) {
    self.kind = kind
    self.reason = reason
    self.error = error
  }

  public var refusalReason: RefusalReason? { reason.flatMap(RefusalReason.init(rawValue:)) }

  public var description: String { error.description }
}

/// What `license activate` did.
public enum ActivationOutcome: Sendable {
  /// The license file already held a license for this machine: the server was not asked.
  case alreadyActivated(License)
  /// The server issued a license, now stored at the configuration's license
  /// path. `replaced` is what was wrong with the file there before, if any.
  case activated(License, replaced: LicenseInspection?)

  public var license: License {
    switch self {
    case .alreadyActivated(let license), .activated(let license, _): return license
    }
  }
}

/// Activates a license as license.conf says: asks the server for a license
/// for EID, ProductID and this machine (or container mode), checks what it
/// gets with the public key, and stores it at `Filename`. A license there
/// that already holds is used as it is, without asking.
public struct LicenseActivator: Sendable {
  public var config: LicenseConfig
  public var verifier: LicenseVerifier
  public var fingerprint: MachineFingerprint

  public init(config: LicenseConfig, verifier: LicenseVerifier, fingerprint: MachineFingerprint) {
    self.config = config
    self.verifier = verifier
    self.fingerprint = fingerprint
  }

  /// The request this machine sends.
  public var request: ActivationRequest {
    ActivationRequest(
      eid: config.eid, product: config.productID, binding: config.containerMode ? .container : .machine(fingerprint))
  }

  /// The license file as it is now, checked for this configuration and machine.
  public func installed(now: Date = Date()) -> LicenseInspection {
    verifier.inspect(
      path: config.licensePath, product: config.productID, eid: config.eid, fingerprint: fingerprint, now: now)
  }

  /// Uses the license that holds at the license path (unless `force`), else
  /// asks the server for one and stores it there.
  public func activate(force: Bool = false, now: @Sendable () -> Date = { Date() }) async throws(ActivationError)
    -> ActivationOutcome
  {
    let current = installed(now: now())
    if !force, current.verifies, let license = current.license { return .alreadyActivated(license) }
    try checkLicenseFolder()
    let data = try await requestLicense()
    let license: License
    do {
      license = try LicenseStore.install(
        data: data, at: config.licensePath, verifier: verifier, product: config.productID, eid: config.eid,
        fingerprint: fingerprint, now: now())
    } catch {
      if error.status == .license { throw badLicense(data: data, now: now()) }
      throw ActivationError(.storage, error)
    }
    let missing = current.failures.contains { $0.kind == .missing }
    return .activated(license, replaced: current.verifies || missing ? nil : current)
  }

  /// Posts the request to the server and returns the body of its 200
  /// answer (not checked yet): every other outcome is an ``ActivationError``.
  public func requestLicense() async throws(ActivationError) -> Data {
    let server = config.server
    guard let base = URL(string: server), base.host != nil else {
      throw ActivationError(
        .unreachable,
        WorkbenchError(
          .license, "'Server' is not a URL with a host: '\(server)'", at: serverLocation,
          help: "write it as, e.g., http://127.0.0.1:8740"))
    }
    let url = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
    var request = HTTPClientRequest(url: url + ActivationProtocol.activatePath)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: ActivationProtocol.jsonContentType)
    request.headers.add(name: "Accept", value: ActivationProtocol.jsonContentType)
    request.body = .bytes(ByteBuffer(bytes: self.request.jsonData))

    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    // Report a refused connection at once instead of retrying until the deadline.
    configuration.connectionPool.retryConnectionEstablishment = false
    let seconds = Int64(config.connectionTimeout)
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: seconds == 0 ? .hours(24) : .seconds(seconds))
    let deadline: NIODeadline = seconds == 0 ? .distantFuture : .now() + .seconds(seconds)

    let outcome: Result<(status: Int, phrase: String, body: Data), any Error>
    do {
      let answer = try await HTTPClient.withHTTPClient(configuration: configuration) { client in
        let response = try await client.execute(request, deadline: deadline)
        let body = try await response.body.collect(upTo: ActivationProtocol.maximumResponseSize)
        return (Int(response.status.code), response.status.reasonPhrase, Data(body.readableBytesView))
      }
      outcome = .success(answer)
    } catch {
      outcome = .failure(error)
    }
    switch outcome {
    case .failure(let error):
      throw connectionError(error)
    case .success(let answer) where answer.status == 200:
      return answer.body
    case .success(let answer) where answer.status == 403:
      let problem = ActivationProblem.parse(answer.body)
      throw refusal(problem)
    case .success(let answer):
      let problem = ActivationProblem.parse(answer.body)
      let said = problem.map { ": \($0.message)" } ?? ""
      let help: String
      switch answer.status {
      case 400:
        help = "the server does not understand this workbench's request: update workbench or the server"
      case 404, 405:
        help =
          "check Server in \(config.path): it must be the address of a workbench activation server "
          + "(`workbench license serve`), without a path"
      default:
        help = "try again later; if it persists, tell whoever runs the server"
      }
      throw ActivationError(
        .badResponse,
        WorkbenchError(
          .license, "the activation server \(server) answered \(answer.status) \(answer.phrase)\(said)",
          at: serverLocation, help: help))
    }
  }

  // MARK: - Errors

  private var serverLocation: SourceLocation { SourceLocation(file: config.path, key: "Server") }

  private func checkLicenseFolder() throws(ActivationError) {
    let parent = (config.licensePath as NSString).deletingLastPathComponent
    let folder = parent.isEmpty ? "." : parent
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw ActivationError(
        .storage,
        WorkbenchError(
          .license, "the license would be stored at \(config.licensePath), but the folder \(folder) does not exist",
          at: SourceLocation(file: config.path, key: "Filename"),
          help: "create the folder, or change Filename (relative to the folder of \(config.path))"))
    }
  }

  private func refusal(_ problem: ActivationProblem?) -> ActivationError {
    let server = config.server
    let said = problem.map { $0.message + ($0.reason.isEmpty ? "" : " (\($0.reason))") } ?? "no reason given"
    let help: String
    let key: String
    switch problem?.refusalReason {
    case .unknownEID?:
      key = "EID"
      help = "check EID in \(config.path); if it is right, ask whoever runs the server to allow it"
    case .wrongProduct?:
      key = "ProductID"
      help = "check ProductID in \(config.path): it must be the product the server issues licenses for"
    case .limitReached?:
      key = "EID"
      help =
        "every activation of EID '\(config.eid)' is in use on other machines: ask whoever runs the server "
        + "for more, or to release a machine that no longer needs it"
    case nil:
      key = "Server"
      help = "ask whoever runs the server why"
    }
    return ActivationError(
      .refused, reason: problem?.reason,
      WorkbenchError(
        .license,
        "the activation server \(server) refused to activate EID '\(config.eid)' for product "
          + "'\(config.productID)': \(said)", at: SourceLocation(file: config.path, key: key), help: help))
  }

  /// What a failed request (no HTTP answer) means to the user.
  private func connectionError(_ error: any Error) -> ActivationError {
    let server = config.server
    let timeoutHelp =
      "check that the server runs and that this machine reaches it, or raise ConnectionTimeout in "
      + "\(config.path) (0 waits forever)"
    if let error = error as? HTTPClientError,
      [.deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout].contains(error)
    {
      return ActivationError(
        .timeout,
        WorkbenchError(
          .license,
          "the activation server \(server) did not answer within \(config.connectionTimeout) s (ConnectionTimeout)",
          at: SourceLocation(file: config.path, key: "ConnectionTimeout"), help: timeoutHelp))
    }
    if let error = error as? HTTPClientError, error == .remoteConnectionClosed {
      return ActivationError(
        .badResponse,
        WorkbenchError(
          .license, "the activation server \(server) closed the connection without an answer", at: serverLocation,
          help: "check Server in \(config.path): it must be a workbench activation server (`workbench license serve`)"))
    }
    let why = Self.reason(error)
    if why.timedOut {
      return ActivationError(
        .timeout,
        WorkbenchError(
          .license, "the activation server \(server) did not answer: \(why.text)",
          at: SourceLocation(file: config.path, key: "ConnectionTimeout"), help: timeoutHelp))
    }
    return ActivationError(
      .unreachable,
      WorkbenchError(
        .license, "cannot reach the activation server \(server): \(why.text)", at: serverLocation,
        help: "check that the server runs at that address (`workbench license serve` starts one), "
          + "that Server in \(config.path) is right, and that this machine can reach it"))
  }

  /// A few words for a connection failure: "connection refused", "the host
  /// name 'x' cannot be resolved", "no route to host".
  static func reason(_ error: any Error) -> (text: String, timedOut: Bool) {
    if let error = error as? NIOConnectionError {
      if let first = error.connectionErrors.first { return reason(first.error) }
      if error.dnsAError != nil || error.dnsAAAAError != nil {
        return ("the host name '\(error.host)' cannot be resolved", false)
      }
      return ("no address found for '\(error.host)'", false)
    }
    if let error = error as? IOError {
      return (String(cString: strerror(error.errnoCode)).lowercased(), error.errnoCode == ETIMEDOUT)
    }
    if let error = error as? ChannelError, case .connectTimeout = error { return ("the connection timed out", true) }
    if error is SocketAddressError { return ("the host name cannot be resolved", false) }
    return ("\(error)", false)
  }

  /// A 200 whose body is not a license that holds here.
  private func badLicense(data: Data, now: Date) -> ActivationError {
    let server = config.server
    let inspection = verifier.inspect(
      data: data, path: server, product: config.productID, eid: config.eid, fingerprint: fingerprint, now: now)
    let reasons = inspection.failures.map(\.diagnostic.message)
    let help: String
    if inspection.failures.contains(where: { $0.kind == .malformed }) {
      help = "check Server in \(config.path): it must be a workbench activation server (`workbench license serve`)"
    } else if inspection.failures.contains(where: { $0.kind == .tampered }) {
      help = "check that --public-key is the public key of the private key the server signs with"
    } else if inspection.failures.contains(where: { $0.kind == .expired || $0.kind == .notYetValid }) {
      help = "check this machine's date and time, and tell whoever runs the server"
    } else {
      help = "the server issued a license for something else than was asked: tell whoever runs it"
    }
    return ActivationError(
      .badResponse,
      WorkbenchError(
        .license,
        "the activation server \(server) answered with something that is not a license for this machine: "
          + (reasons.isEmpty ? "it cannot be read" : reasons.joined(separator: "; ")),
        at: serverLocation, help: help))
  }
}
