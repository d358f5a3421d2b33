import Crypto
import Foundation

/// The face backend's files and their pinned SHA-256 sums, as
/// third_party/face-backend.sha256 lists them (scripts/install-face-backend
/// installs from the same list).
public struct PinnedFiles: Sendable {
  public static let listPath = "third_party/face-backend.sha256"

  /// Path in the workbench folder → its SHA-256, hex, for this machine.
  public var sums: [String: String]

  public init(sums: [String: String]) { self.sums = sums }

  /// Reads the list in `home`, the lines for `machine` (or for any machine).
  public static func read(home: String, machine: String = currentMachine) throws -> PinnedFiles {
    let text = try String(contentsOfFile: home + "/" + listPath, encoding: .utf8)
    var sums: [String: String] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      guard fields.count >= 2, fields.count == 2 || fields[2] == machine else { continue }
      sums[fields[1]] = fields[0].lowercased()
    }
    return PinnedFiles(sums: sums)
  }

  /// `uname -m`: "x86_64", "aarch64".
  public static var currentMachine: String {
    var names = utsname()
    uname(&names)
    return withUnsafeBytes(of: &names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }

  /// The file's SHA-256, hex, read a megabyte at a time; nil when it cannot be read.
  public static func sha256(ofFile path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    var hash = SHA256()
    do {
      // nil or empty: the end of the file.
      while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
    } catch {
      return nil
    }
    return hash.finalize().map { String(format: "%02x", $0) }.joined()
  }
}
