import Crypto
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A stable id of this machine that a license can be bound to: the first
/// 32 hex digits of the SHA-256 of /etc/machine-id (else
/// /var/lib/dbus/machine-id, else the host name), without surrounding
/// whitespace. It says nothing about the machine-id itself.
public struct MachineFingerprint: Sendable, Hashable, CustomStringConvertible {
  /// 32 lowercase hex digits.
  public let value: String

  /// The number of hex digits of a fingerprint.
  public static let length = 32

  /// Where the machine's identity is read from, first one that has it wins.
  public static let identityFiles = ["/etc/machine-id", "/var/lib/dbus/machine-id"]

  /// A fingerprint as written (in a license or on the command line);
  /// nil unless it is 32 hex digits. Upper case is accepted.
  public init?(_ text: String) {
    let lowered = text.lowercased()
    guard lowered.count == Self.length, lowered.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return nil }
    value = lowered
  }

  /// The fingerprint of an identity (the contents of a machine-id file).
  public init(identity: String) {
    let trimmed = identity.trimmingCharacters(in: .whitespacesAndNewlines)
    let digest = SHA256.hash(data: Data(trimmed.utf8))
    value = String(digest.map { String(format: "%02x", $0) }.joined().prefix(Self.length))
  }

  public var description: String { value }

  /// This machine's fingerprint. Tests give their own files and host name.
  public static func current(
    identityFiles files: [String] = MachineFingerprint.identityFiles,
    hostname: () -> String = MachineFingerprint.systemHostname
  ) -> MachineFingerprint {
    currentWithSource(identityFiles: files, hostname: hostname).fingerprint
  }

  /// This machine's fingerprint and what it comes from: a file's path, or
  /// "the host name".
  public static func currentWithSource(
    identityFiles files: [String] = MachineFingerprint.identityFiles,
    hostname: () -> String = MachineFingerprint.systemHostname
  ) -> (fingerprint: MachineFingerprint, source: String) {
    for file in files {
      guard let data = FileManager.default.contents(atPath: file) else { continue }
      let text = String(decoding: data, as: UTF8.self)
      guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
      return (MachineFingerprint(identity: text), file)
    }
    return (MachineFingerprint(identity: hostname()), "the host name")
  }

  /// The name gethostname(2) gives.
  public static func systemHostname() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
