import HTTPServing
import Licensing

/// What `workbench license serve` runs with.
public struct ActivationServerConfiguration: Sendable {
  /// The address to listen on; loopback unless `--host` says otherwise.
  public var host: String
  /// 0 picks a free port (the server says which).
  public var port: Int
  /// The product it issues licenses for.
  public var product: String
  /// The EIDs it activates, each with its limit. An EID given twice keeps the last limit.
  public var allowed: [AllowedEID]
  /// How long each license holds, from its activation.
  public var days: Int
  public var features: [String]
  public var privateKey: LicensePrivateKey
  /// The file that keeps the activations across restarts; nil keeps them in memory only.
  public var statePath: String?
  /// The timeouts and the connection limit.
  public var connectionLimits: ActivationServerLimits

  public init(
    host: String = ActivationProtocol.defaultHost, port: Int = ActivationProtocol.defaultPort, product: String,
    allowed: [AllowedEID], days: Int = 365, features: [String] = LicenseFeature.known,
    privateKey: LicensePrivateKey, statePath: String? = nil,
    connectionLimits: ActivationServerLimits = ActivationServerLimits()
  ) {
    self.host = host
    self.port = port
    self.product = product
    self.allowed = allowed
    self.days = days
    self.features = features
    self.privateKey = privateKey
    self.statePath = statePath
    self.connectionLimits = connectionLimits
  }

  /// The limit of each allowed EID.
  public var limits: [String: Int] {
    Dictionary(allowed.map { ($0.eid, $0.limit) }, uniquingKeysWith: { _, last in last })
  }

  /// Whether `host` is a loopback address (127.0.0.0/8, ::1 or localhost), never a name
  /// that only begins like one.
  public static func isLoopback(_ host: String) -> Bool { HTTPServerAddress.isLoopback(host) }
}
