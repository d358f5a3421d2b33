import Diagnostics
import FileSystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writing and reading the small files of licensing: keys and licenses.
public enum LicenseFiles {
  /// Writes `data` to `path` through a temporary file in the same folder,
  /// so that `path` never holds a half-written file, with exactly `mode`.
  /// Unless `replacing`, an existing file is an error and is left as it is.
  /// Problems are usage errors (exit 2), as for every output of workbench.
  public static func write(_ data: Data, to path: String, mode: mode_t = 0o644, replacing: Bool)
    throws(WorkbenchError)
  {
    let parent = (path as NSString).deletingLastPathComponent
    let folder = parent.isEmpty ? "." : parent
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw WorkbenchError(
        .usage, "the folder \(folder) does not exist", at: SourceLocation(file: path),
        help: "create it first or choose another path")
    }
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      if isDirectory.boolValue {
        throw WorkbenchError(
          .usage, "is a folder, not a file", at: SourceLocation(file: path), help: "give a file name inside it")
      }
      if !replacing { throw alreadyExists(path) }
    }
    do {
      try AtomicFile.write(data, to: path, permissions: .exactly(mode), replacing: replacing)
    } catch {
      if error.isExistingFile, !replacing { throw alreadyExists(path) }
      throw cannotWrite(path, reason: error.reason)
    }
  }

  /// The bytes of a file, or nil with why not ("no such file", ...).
  static func read(_ path: String) -> Result<Data, ReadFailure> {
    if let data = FileManager.default.contents(atPath: path) { return .success(data) }
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return .failure(.missing) }
    return .failure(isDirectory.boolValue ? .folder : .unreadable)
  }

  enum ReadFailure: Error {
    case missing, folder, unreadable

    var text: String {
      switch self {
      case .missing: return "no such file"
      case .folder: return "is a folder, not a file"
      case .unreadable: return "cannot be read (permission denied or an I/O error)"
      }
    }
  }

  private static func alreadyExists(_ path: String) -> WorkbenchError {
    WorkbenchError(
      .usage, "already exists; not overwritten", at: SourceLocation(file: path),
      help: "move it away first, or choose another folder")
  }

  private static func cannotWrite(_ path: String, reason: String) -> WorkbenchError {
    WorkbenchError(
      .usage, "cannot write here: \(reason)", at: SourceLocation(file: path),
      help: "check the folder's permissions or choose another path")
  }
}
