import Foundation

/// A fresh folder for files a test writes; removed by `remove()`.
struct TemporaryFolder {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("measurements-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// Writes `contents` to `name` (which may contain sub-folders) and returns its path.
  @discardableResult
  func write(_ name: String, _ contents: String) throws -> String {
    let file = path + "/" + name
    let folder = (file as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try contents.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  func subfolder(_ name: String) throws -> String {
    let folder = path + "/" + name
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The package root, found from this file's path (Tests/MeasurementsTests/TestSupport.swift).
func packageRoot(_ file: String = #filePath) -> String {
  URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
