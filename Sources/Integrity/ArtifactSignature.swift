import Crypto
import Diagnostics
import FileSystem
import Foundation
import JSONCore
import Licensing

/// A signature over a run's artifacts, as the HKID card SDK signs its
/// recording and still images: the SHA-256 of every file, the run's
/// timestamps (start, each capture, stop) and its result, signed with an
/// Ed25519 key (the same key files as licenses, `workbench license keygen`).
/// `workbench sign` signs any file outside a run the same way (the SDK's
/// `signatureWithImg`): a signature of its own beside it, `FILE.sig.json`,
/// that covers the file's SHA-256 and nothing of a run.
///
/// A signature file is one line of JSON: `{"workbench_signature":1,
/// "payload":"<base64>","signature":"<base64>","public_key":"<id>"}`; the
/// payload is canonical JSON (sorted keys, no spaces). Files are named
/// relative to the signature's folder, so the folder can be moved whole.
public enum ArtifactSignature {
  public static let fileName = "signature.json"
  /// What `workbench sign` adds to a file's name for its signature.
  public static let fileSuffix = ".sig.json"
  public static let formatVersion: Int64 = 1

  /// What a signature covers.
  public struct Manifest: Sendable, Equatable {
    /// The run's flow and result; nil for a file signed outside a run.
    public var flow: String?
    public var resultCode: Int64?
    public var resultReason: String?
    /// Seconds on the input's clock: "start", one per capture, "stop"
    /// (none for a file signed outside a run).
    public var timestamps: [(name: String, t: Double)]
    /// Path (relative to the signature's folder) → SHA-256 in hex.
    public var files: [(path: String, sha256: String)]

    /// What a run signs.
    public init(
      flow: String, resultCode: Int64, resultReason: String, timestamps: [(name: String, t: Double)],
      files: [(path: String, sha256: String)]
    ) {
      self.flow = flow
      self.resultCode = resultCode
      self.resultReason = resultReason
      self.timestamps = timestamps
      self.files = files
    }

    /// What `workbench sign` signs: files, and nothing of a run.
    public init(files: [(path: String, sha256: String)]) {
      timestamps = []
      self.files = files
    }

    /// Whether a run signed it (else `workbench sign` did).
    public var isRun: Bool { flow != nil }

    public static func == (a: Manifest, b: Manifest) -> Bool {
      a.flow == b.flow && a.resultCode == b.resultCode && a.resultReason == b.resultReason
        && a.timestamps.map(\.name) == b.timestamps.map(\.name) && a.timestamps.map(\.t) == b.timestamps.map(\.t)
        && a.files.map(\.path) == b.files.map(\.path) && a.files.map(\.sha256) == b.files.map(\.sha256)
    }

    /// Canonical JSON: keys sorted at every level, timestamps and files in
    /// order; a file signed outside a run has `files` only.
    var payload: Data {
      var object = JSONObject([
        (
          "files",
          .array(files.map { .object(JSONObject([("path", .string($0.path)), ("sha256", .string($0.sha256))])) })
        )
      ])
      if let flow, let resultCode, let resultReason {
        object["flow"] = .string(flow)
        object["result"] = .object(JSONObject([("code", .integer(resultCode)), ("reason", .string(resultReason))]))
        object["timestamps"] = .array(
          timestamps.map { .object(JSONObject([("name", .string($0.name)), ("t", .number($0.t))])) })
      }
      return Data(JSONValue.object(object).jsonText.utf8)
    }

    init?(payload: Data) {
      guard let value = try? JSONParser.parse(bytes: Array(payload)), let object = value.objectValue,
        let list = object["files"]?.arrayValue
      else { return nil }
      var files: [(path: String, sha256: String)] = []
      for file in list {
        guard let path = file["path"]?.stringValue, let sha = file["sha256"]?.stringValue else { return nil }
        files.append((path, sha))
      }
      guard object["flow"] != nil || object["result"] != nil || object["timestamps"] != nil else {
        self.init(files: files)
        return
      }
      guard let flow = object["flow"]?.stringValue, let code = object["result"]?["code"]?.integerValue,
        let reason = object["result"]?["reason"]?.stringValue, let stamps = object["timestamps"]?.arrayValue
      else { return nil }
      var timestamps: [(name: String, t: Double)] = []
      for stamp in stamps {
        guard let name = stamp["name"]?.stringValue, let t = stamp["t"]?.doubleValue else { return nil }
        timestamps.append((name, t))
      }
      self.init(flow: flow, resultCode: code, resultReason: reason, timestamps: timestamps, files: files)
    }
  }

  /// Hashes `files`, signs them with the timestamps and the result, and
  /// writes `signature.json` into `folder` (atomically). Returns its path.
  @discardableResult
  public static func sign(
    files: [String], folder: String, flow: String, resultCode: Int64, resultReason: String,
    timestamps: [(name: String, t: Double)], key: LicensePrivateKey
  ) throws(WorkbenchError) -> String {
    var entries: [(path: String, sha256: String)] = []
    for file in files {
      entries.append((relativePath(of: file, from: folder), try sha256(of: file)))
    }
    let manifest = Manifest(
      flow: flow, resultCode: resultCode, resultReason: resultReason, timestamps: timestamps, files: entries)
    let path = (folder.hasSuffix("/") ? folder : folder + "/") + fileName
    try write(manifest, to: path, key: key)
    return path
  }

  /// Signs one file outside a run (`workbench sign`): its SHA-256 into
  /// `FILE.sig.json` beside it, written atomically. Returns that path.
  @discardableResult
  public static func sign(file: String, key: LicensePrivateKey) throws(WorkbenchError) -> String {
    let path = file + fileSuffix
    let folder = (path as NSString).deletingLastPathComponent
    let manifest = Manifest(files: [(relativePath(of: file, from: folder.isEmpty ? "." : folder), try sha256(of: file))]
    )
    try write(manifest, to: path, key: key)
    return path
  }

  /// Writes the signed `manifest` to `path` under a temporary name in the
  /// same folder, then renames it into place.
  private static func write(_ manifest: Manifest, to path: String, key: LicensePrivateKey) throws(WorkbenchError) {
    let payload = manifest.payload
    let document = JSONObject([
      ("workbench_signature", .integer(formatVersion)), ("payload", .string(payload.base64EncodedString())),
      ("signature", .string(key.signature(for: payload).base64EncodedString())),
      ("public_key", .string(key.publicKey.id)),
    ])
    do {
      try AtomicFile.write(
        Data((JSONValue.object(document).jsonText + "\n").utf8), to: path, temporaryName: .suffix(".\(getpid()).tmp"),
        permissions: .masked(0o666))
    } catch {
      throw WorkbenchError(
        .usage, "cannot write the signature: \(error.reason)", at: SourceLocation(file: path),
        help: "check the folder's permissions")
    }
  }

  /// What checking a signature found.
  public struct Verification: Sendable {
    public var manifest: Manifest?
    /// Every reason it does not verify; empty when it does.
    public var problems: [Diagnostic]
    public var verifies: Bool { manifest != nil && problems.isEmpty }
  }

  /// The signature file that `path` names: the signature.json in a
  /// folder, a signature file itself, or the `FILE.sig.json` beside a file
  /// that `workbench sign` signed. Throws when there is none.
  public static func signatureFile(for path: String) throws(WorkbenchError) -> String {
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
    if exists && isDirectory.boolValue {
      let file = (path.hasSuffix("/") ? path : path + "/") + fileName
      guard FileManager.default.fileExists(atPath: file) else {
        throw WorkbenchError(
          .usage, "no signature here", at: SourceLocation(file: file),
          help:
            "give the --artifacts folder of a run that signed its artifacts (setting integrity.signing_key), or its \(fileName)"
        )
      }
      return file
    }
    let name = (path as NSString).lastPathComponent
    if name == fileName || name.hasSuffix(fileSuffix) {
      guard exists else {
        throw WorkbenchError(.usage, "no signature here: no such file", at: SourceLocation(file: path))
      }
      return path
    }
    if FileManager.default.fileExists(atPath: path + fileSuffix) { return path + fileSuffix }
    if exists, isSignatureDocument(path) { return path }
    throw WorkbenchError(
      .usage,
      exists
        ? "no signature here: there is no \(name + fileSuffix) beside it"
        : "no such file, and no signature for it (\(name + fileSuffix))",
      at: SourceLocation(file: path),
      help: "sign a file with `workbench sign FILE`, or give the --artifacts folder of a run that signed its artifacts")
  }

  /// Whether the file at `path` is a signature under another name: a JSON
  /// object with the `workbench_signature` key (any version).
  private static func isSignatureDocument(_ path: String) -> Bool {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      (attributes[.size] as? NSNumber)?.intValue ?? .max < 1 << 20,
      let data = FileManager.default.contents(atPath: path),
      let object = (try? JSONParser.parse(bytes: Array(data)))?.objectValue
    else { return false }
    return object["workbench_signature"] != nil
  }

  /// Checks the signature that `path` names (``signatureFile(for:)``) with
  /// `publicKey`, then every file's SHA-256. Nothing of the payload is
  /// trusted before the signature verifies.
  public static func verify(path: String, publicKey: LicensePublicKey) throws(WorkbenchError) -> Verification {
    let file = try signatureFile(for: path)
    guard let data = FileManager.default.contents(atPath: file) else {
      throw WorkbenchError(.usage, "the signature cannot be read", at: SourceLocation(file: file))
    }
    let folder = (file as NSString).deletingLastPathComponent
    guard let document = (try? JSONParser.parse(bytes: Array(data)))?.objectValue,
      document["workbench_signature"]?.integerValue == formatVersion,
      let payload = document["payload"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
      let signature = document["signature"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
    else {
      return Verification(
        manifest: nil,
        problems: [
          Diagnostic(
            "not a workbench signature file (format \(formatVersion))", at: SourceLocation(file: file),
            help:
              "it is the signature.json a run writes into its --artifacts folder, or the FILE\(fileSuffix) of workbench sign"
          )
        ])
    }
    guard publicKey.isValidSignature(signature, for: payload) else {
      return Verification(
        manifest: nil,
        problems: [
          Diagnostic(
            "the signature does not verify with public key \(publicKey.id): the signature file was changed, or it was signed with another key",
            at: SourceLocation(file: file), help: "check that the public key belongs to the key that signed it")
        ])
    }
    guard let manifest = Manifest(payload: payload) else {
      return Verification(
        manifest: nil,
        problems: [Diagnostic("the signed payload cannot be read", at: SourceLocation(file: file))])
    }
    var problems: [Diagnostic] = []
    for entry in manifest.files {
      let full = entry.path.hasPrefix("/") || folder.isEmpty ? entry.path : folder + "/" + entry.path
      guard FileManager.default.fileExists(atPath: full) else {
        problems.append(
          Diagnostic(
            "missing: the signature covers this file", at: SourceLocation(file: full),
            help: "put the file back where it was, next to the signature as it was signed"))
        continue
      }
      guard let actual = try? sha256(of: full) else {
        problems.append(Diagnostic("cannot be read", at: SourceLocation(file: full)))
        continue
      }
      if actual != entry.sha256 {
        problems.append(
          Diagnostic(
            "changed since it was signed (SHA-256 \(actual.prefix(16))…, signed \(entry.sha256.prefix(16))…)",
            at: SourceLocation(file: full),
            help: manifest.isRun ? "this file is not the one the run wrote" : "this file is not the one that was signed"
          ))
      }
    }
    return Verification(manifest: manifest, problems: problems)
  }

  public static func sha256(of path: String) throws(WorkbenchError) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw WorkbenchError(.usage, "cannot read the file to sign it", at: SourceLocation(file: path))
    }
    defer { try? handle.close() }
    var hasher = SHA256()
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
  }

  /// `path` relative to `folder` ("../session.avi" when it lies beside it).
  static func relativePath(of path: String, from folder: String) -> String {
    let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
    let base = URL(fileURLWithPath: folder).standardizedFileURL.pathComponents
    var common = 0
    while common < min(target.count, base.count) && target[common] == base[common] { common += 1 }
    let up = Array(repeating: "..", count: base.count - common)
    return (up + target[common...]).joined(separator: "/")
  }
}
