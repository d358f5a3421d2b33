import Crypto
import Diagnostics
import Foundation
import JSONCore

/// The Ed25519 key that checks licenses: it ships with workbench.
public struct LicensePublicKey: Sendable, Hashable, CustomStringConvertible {
  /// The 32 bytes of the key.
  public let rawRepresentation: Data

  /// Nil unless `rawRepresentation` is an Ed25519 public key (32 bytes).
  public init?(rawRepresentation: Data) {
    guard (try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation)) != nil else { return nil }
    self.rawRepresentation = rawRepresentation
  }

  /// A short name of the key: the first 16 hex digits of its SHA-256.
  public var id: String {
    String(SHA256.hash(data: rawRepresentation).map { String(format: "%02x", $0) }.joined().prefix(16))
  }

  public var description: String { "ed25519 public key \(id)" }

  /// Whether `signature` is this key's signature of exactly `message`.
  public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
    return key.isValidSignature(signature, for: message)
  }

  /// The key file: `{"workbench_license_key":"ed25519-public","key":"<base64>"}`.
  public var fileData: Data { LicenseKeyFile.encode(kind: LicenseKeyFile.publicKind, raw: rawRepresentation) }

  public static func read(path: String) throws(WorkbenchError) -> LicensePublicKey {
    let raw = try LicenseKeyFile.read(path: path, kind: LicenseKeyFile.publicKind)
    guard let key = LicensePublicKey(rawRepresentation: raw) else { throw LicenseKeyFile.badKey(path) }
    return key
  }

  public static func parse(data: Data, path: String) throws(WorkbenchError) -> LicensePublicKey {
    let raw = try LicenseKeyFile.decode(data, path: path, kind: LicenseKeyFile.publicKind)
    guard let key = LicensePublicKey(rawRepresentation: raw) else { throw LicenseKeyFile.badKey(path) }
    return key
  }
}

/// The Ed25519 key that signs licenses. It stays with whoever issues them.
public struct LicensePrivateKey: Sendable, CustomStringConvertible {
  /// The 32-byte seed of the key.
  public let rawRepresentation: Data

  /// Nil unless `rawRepresentation` is an Ed25519 private key (32 bytes).
  public init?(rawRepresentation: Data) {
    guard (try? Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)) != nil else { return nil }
    self.rawRepresentation = rawRepresentation
  }

  public var publicKey: LicensePublicKey {
    // A valid private key always has a valid public key.
    let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    return LicensePublicKey(rawRepresentation: key.publicKey.rawRepresentation)!
  }

  /// Never the key itself.
  public var description: String { "ed25519 private key for public key \(publicKey.id)" }

  /// The Ed25519 signature of `message` (64 bytes).
  public func signature(for message: Data) -> Data {
    let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    // Signing with a valid key does not fail.
    return try! key.signature(for: message)
  }

  /// The key file: `{"workbench_license_key":"ed25519-private","key":"<base64>"}`.
  public var fileData: Data { LicenseKeyFile.encode(kind: LicenseKeyFile.privateKind, raw: rawRepresentation) }

  public static func read(path: String) throws(WorkbenchError) -> LicensePrivateKey {
    let raw = try LicenseKeyFile.read(path: path, kind: LicenseKeyFile.privateKind)
    guard let key = LicensePrivateKey(rawRepresentation: raw) else { throw LicenseKeyFile.badKey(path) }
    return key
  }
}

/// A new signing key and its public key.
public struct LicenseKeyPair: Sendable {
  public static let privateKeyFileName = "private.key.json"
  public static let publicKeyFileName = "public.key.json"

  public let privateKey: LicensePrivateKey
  public var publicKey: LicensePublicKey { privateKey.publicKey }

  public init(privateKey: LicensePrivateKey) { self.privateKey = privateKey }

  public static func generate() -> LicenseKeyPair {
    let key = Curve25519.Signing.PrivateKey()
    return LicenseKeyPair(privateKey: LicensePrivateKey(rawRepresentation: key.rawRepresentation)!)
  }

  /// Writes private.key.json (mode 0600) and public.key.json into `folder`,
  /// which is made (mode 0700) when missing. Refuses, before writing
  /// anything, when either file exists.
  @discardableResult
  public func write(toFolder folder: String) throws(WorkbenchError) -> (privateKeyPath: String, publicKeyPath: String) {
    let privatePath = folder + "/" + Self.privateKeyFileName
    let publicPath = folder + "/" + Self.publicKeyFileName
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw WorkbenchError(
          .usage, "is a file, not a folder", at: SourceLocation(file: folder),
          help: "give a folder for the two key files")
      }
    } else {
      do {
        try FileManager.default.createDirectory(
          atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      } catch {
        throw WorkbenchError(
          .usage, "cannot make the folder: \(error.localizedDescription)", at: SourceLocation(file: folder),
          help: "check the permissions of its parent folder")
      }
    }
    for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
      throw WorkbenchError(
        .usage, "already exists; not overwritten", at: SourceLocation(file: path),
        help: "a new key pair would make every license signed with the old key fail; "
          + "move the old keys away first, or choose another folder")
    }
    try LicenseFiles.write(privateKey.fileData, to: privatePath, mode: 0o600, replacing: false)
    try LicenseFiles.write(publicKey.fileData, to: publicPath, mode: 0o644, replacing: false)
    return (privatePath, publicPath)
  }
}

/// `{"workbench_license_key":"ed25519-private"|"ed25519-public","key":"<base64 raw>"}`.
enum LicenseKeyFile {
  static let formatKey = "workbench_license_key"
  static let privateKind = "ed25519-private"
  static let publicKind = "ed25519-public"

  static func encode(kind: String, raw: Data) -> Data {
    let document = JSONValue.object(
      JSONObject([(formatKey, .string(kind)), ("key", .string(raw.base64EncodedString()))]))
    return Data((document.jsonText + "\n").utf8)
  }

  static func read(path: String, kind: String) throws(WorkbenchError) -> Data {
    switch LicenseFiles.read(path) {
    case .success(let data):
      return try decode(data, path: path, kind: kind)
    case .failure(let failure):
      let help =
        failure == .missing
        ? (kind == privateKind
          ? "give the private.key.json that `workbench license keygen --out DIR` wrote"
          : "give the public.key.json of the key the licenses are signed with")
        : "check the path and the file's permissions"
      throw WorkbenchError(
        .license, "cannot read the \(kind == privateKind ? "private" : "public") key: \(failure.text)",
        at: SourceLocation(file: path), help: help)
    }
  }

  static func decode(_ data: Data, path: String, kind: String) throws(WorkbenchError) -> Data {
    let help =
      "a key file is {\"\(formatKey)\":\"\(kind)\",\"key\":\"BASE64\"}, as `workbench license keygen` writes it"
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      throw WorkbenchError(
        .license, "not a license key file: not JSON (\(error))", at: SourceLocation(file: path, line: error.line),
        help: help)
    }
    guard let found = document[formatKey]?.stringValue else {
      throw WorkbenchError(
        .license, "not a license key file: no \"\(formatKey)\" field", at: SourceLocation(file: path), help: help)
    }
    guard found == kind else {
      if found == privateKind || found == publicKind {
        let message =
          found == privateKind
          ? "this is the private key; give the public key (public.key.json) here"
          : "this is the public key; give the private key (private.key.json) here"
        throw WorkbenchError(
          .license, message, at: SourceLocation(file: path, key: formatKey),
          help: "keygen writes both into one folder; the private key signs, the public key checks")
      }
      throw WorkbenchError(
        .license, "unknown key kind '\(found)' (known: \(privateKind), \(publicKind))",
        at: SourceLocation(file: path, key: formatKey), help: help)
    }
    guard let text = document["key"]?.stringValue, let raw = Data(base64Encoded: text) else {
      throw WorkbenchError(
        .license, "the key is missing or not base64", at: SourceLocation(file: path, key: "key"), help: help)
    }
    return raw
  }

  static func badKey(_ path: String) -> WorkbenchError {
    WorkbenchError(
      .license, "the key is not 32 bytes, so it is not an Ed25519 key", at: SourceLocation(file: path, key: "key"),
      help: "use the key file as `workbench license keygen` wrote it")
  }
}
