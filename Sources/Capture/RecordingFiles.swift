import FileSystem
import Foundation

/// The files a recording is written to (the recording, its sidecar), each
/// an `AtomicFile`, with their problems worded for whoever records.
enum RecordingFiles {
  /// Writes `bytes` as the whole file at `path`: `path` holds either its
  /// old file or the whole new one.
  static func write(_ bytes: [UInt8], to path: String) throws(CaptureError) {
    try checkFolder(of: path)
    do {
      try AtomicFile.write(bytes, to: path)
    } catch {
      guard error.step != .create else { throw cannotCreate(path, error) }
      throw CaptureError(
        .io, source: path, "could not write it: \(error.reason)",
        help: "check the free space and the folder's permissions")
    }
  }

  /// Starts the file at `path`, written as it goes.
  static func begin(_ path: String) throws(CaptureError) -> AtomicFile {
    try checkFolder(of: path)
    do {
      return try AtomicFile.begin(path)
    } catch {
      throw cannotCreate(path, error)
    }
  }

  private static func checkFolder(of path: String) throws(CaptureError) {
    let parent = (path as NSString).deletingLastPathComponent
    let folder = parent.isEmpty ? "." : parent
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
      throw CaptureError(
        .io, source: path, "the folder \(folder) does not exist", help: "create it first or choose another path")
    }
  }

  private static func cannotCreate(_ path: String, _ error: AtomicFileError) -> CaptureError {
    CaptureError(
      .io, source: path, "cannot write here: \(error.reason)",
      help: "check the folder's permissions or choose another path")
  }
}
