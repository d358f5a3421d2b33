import Foundation

/// A fresh folder for the files a test writes; `remove()` deletes it.
public struct TemporaryFolder: Sendable {
  public let path: String

  public init(prefix: String = "workbench-tests") throws {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// Writes `contents` to `name` (which may hold sub-folders) and returns its path.
  @discardableResult
  public func write(_ name: String, _ contents: String) throws -> String {
    let file = path + "/" + name
    let folder = (file as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try contents.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  public func subfolder(_ name: String) throws -> String {
    let folder = path + "/" + name
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  public func file(_ name: String) -> String { path + "/" + name }

  public var listing: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

  public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The package root, found from this file's path (Tests/TestSupport/TemporaryFolder.swift).
public let packageRootPath: String = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

public func packageRoot() -> String { packageRootPath }
