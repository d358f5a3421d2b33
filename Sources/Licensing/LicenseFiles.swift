import Diagnostics
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
    let base = folder + "/." + (path as NSString).lastPathComponent + ".\(getpid())"
    var temporary = base + ".tmp"
    var descriptor: Int32 = -1
    for attempt in 1...100 {
      descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
      if descriptor >= 0 || errno != EEXIST { break }
      temporary = base + ".\(attempt).tmp"
    }
    guard descriptor >= 0 else { throw cannotWrite(path, reason: String(cString: strerror(errno))) }
    // open() leaves out the bits of the umask; the mode is meant exactly.
    var written = fchmod(descriptor, mode) == 0 && writeAll(descriptor, data) && fsync(descriptor) == 0
    let failure = errno
    written = close(descriptor) == 0 && written
    guard written else {
      unlink(temporary)
      throw cannotWrite(path, reason: String(cString: strerror(failure)))
    }
    defer { unlink(temporary) }
    if replacing {
      guard rename(temporary, path) == 0 else { throw cannotWrite(path, reason: String(cString: strerror(errno))) }
      return
    }
    // link(2) never replaces: a file that appeared meanwhile is kept.
    if link(temporary, path) == 0 { return }
    let linkError = errno
    if linkError == EEXIST { throw alreadyExists(path) }
    // A file system without hard links.
    guard linkError == EPERM || linkError == ENOTSUP || linkError == EOPNOTSUPP,
      !FileManager.default.fileExists(atPath: path), rename(temporary, path) == 0
    else { throw cannotWrite(path, reason: String(cString: strerror(linkError))) }
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

/// Writes every byte of `data` to `descriptor`.
private func writeAll(_ descriptor: Int32, _ data: Data) -> Bool {
  data.withUnsafeBytes { buffer in
    guard let base = buffer.baseAddress else { return true }
    var offset = 0
    while offset < buffer.count {
      let count = write(descriptor, base + offset, buffer.count - offset)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }
}
