import Foundation

/// The licensing settings of `license.conf` (LUNA ID XML) or
/// `vllicense.plist`: read, checked, with the defaults filled in.
public struct LicenseConfig: Sendable, Equatable {
  public enum Format: String, Sendable {
    /// `<settings><section name="Licensing::Settings"><param .../>`.
    case xml
    /// A property list whose top-level dictionary holds the same keys.
    case propertyList

    public var displayName: String { self == .xml ? "license.conf XML" : "property list" }
  }

  /// The keys a configuration may give, in the order they are shown.
  public static let keys = ["Server", "EID", "ProductID", "Filename", "ContainerMode", "ConnectionTimeout"]
  /// The keys without a default.
  public static let requiredKeys = ["Server", "EID", "ProductID"]
  /// The section of license.conf that holds the keys.
  public static let sectionName = "Licensing::Settings"
  public static let defaultFilename = "license.dat"
  public static let maximumFilenameLength = 64
  /// Seconds; 0 means never time out.
  public static let defaultConnectionTimeout = 15
  public static let maximumConnectionTimeout = 300

  /// The file the values were read from.
  public var path: String
  public var format: Format
  /// The activation server, an http:// or https:// URL.
  public var server: String
  /// The customer's entitlement ID.
  public var eid: String
  public var productID: String
  /// The license file's name, relative to the folder of the configuration.
  public var filename: String
  /// A container-mode license is not bound to one machine.
  public var containerMode: Bool
  /// Seconds to wait for the activation server; 0 means never time out.
  public var connectionTimeout: Int
  /// The keys the file gives; the others have their defaults.
  public var givenKeys: Set<String>

  public init(
    path: String, format: Format = .xml, server: String, eid: String, productID: String,
    filename: String = LicenseConfig.defaultFilename, containerMode: Bool = false,
    connectionTimeout: Int = LicenseConfig.defaultConnectionTimeout, givenKeys: Set<String> = []
  ) {
    self.path = path
    self.format = format
    self.server = server
    self.eid = eid
    self.productID = productID
    self.filename = filename
    self.containerMode = containerMode
    self.connectionTimeout = connectionTimeout
    self.givenKeys = givenKeys
  }

  public var serverURL: URL? { URL(string: server) }

  /// How long to wait for the activation server; nil means never time out.
  public var timeout: Duration? { connectionTimeout == 0 ? nil : .seconds(connectionTimeout) }

  /// Where the license file is: `Filename` in the folder of the configuration
  /// (an absolute `Filename` is used as it is).
  public var licensePath: String {
    if filename.hasPrefix("/") { return filename }
    let folder = (path as NSString).deletingLastPathComponent
    return folder.isEmpty ? filename : folder + "/" + filename
  }

  /// The effective values, one per line, marking the defaults.
  public func render() -> String {
    func row(_ key: String, _ value: String) -> String {
      let padded = key.padding(toLength: 19, withPad: " ", startingAt: 0)
      return padded + value + (givenKeys.contains(key) ? "" : "  (default)")
    }
    return [
      "\(path): ok (\(format.displayName))",
      row("Server", server),
      row("EID", eid),
      row("ProductID", productID),
      row("Filename", filename + " -> " + licensePath),
      row("ContainerMode", containerMode ? "1 (the license is not bound to one machine)" : "0 (bound to this machine)"),
      row("ConnectionTimeout", connectionTimeout == 0 ? "0 (never time out)" : "\(connectionTimeout) s"),
    ].joined(separator: "\n")
  }
}
