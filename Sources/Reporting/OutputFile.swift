import Diagnostics
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file written through a temporary name and renamed into place when
/// finished, so that the path never holds a half-written file. "-" writes
/// to standard output instead, and a path that is not a regular file (a
/// device such as /dev/null or /dev/stderr, a named pipe) is written in
/// place: renaming over it would replace the device with a file.
public final class OutputFile {
  public let path: String
  private let temporaryPath: String?
  private var handle: UnsafeMutablePointer<FILE>?
  private let flushEachWrite: Bool

  public var isStandardOutput: Bool { path == "-" }

  public init(path: String) throws(WorkbenchError) {
    self.path = path
    if path == "-" {
      temporaryPath = nil
      handle = fdopen(dup(STDOUT_FILENO), "w")
      flushEachWrite = true
      return
    }
    var status = stat()
    if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG, (status.st_mode & S_IFMT) != S_IFDIR {
      let descriptor = open(path, O_WRONLY | O_CLOEXEC)
      guard descriptor >= 0, let opened = fdopen(descriptor, "wb") else {
        let reason = String(cString: strerror(errno))
        if descriptor >= 0 { close(descriptor) }
        throw WorkbenchError(
          .usage, "cannot write here: \(reason)", at: SourceLocation(file: path),
          help: "check the permissions or choose another output path")
      }
      temporaryPath = nil
      handle = opened
      flushEachWrite = false
      return
    }
    let parent = (path as NSString).deletingLastPathComponent
    let directory = parent.isEmpty ? "." : parent
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw WorkbenchError(
        .usage, "the folder \(directory) does not exist", at: SourceLocation(file: path),
        help: "create it first or choose another output path")
    }
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      throw WorkbenchError(
        .usage, "is a folder, not a file", at: SourceLocation(file: path),
        help: "give a file name inside it, e.g. \(path)/events.jsonl")
    }
    // Created exclusively, so that two outputs to the same path (say
    // --events and --trace-out) never share, and garble, one temporary file.
    let base = directory + "/." + (path as NSString).lastPathComponent + ".\(getpid())"
    var temporary = base + ".tmp"
    var opened: UnsafeMutablePointer<FILE>?
    for attempt in 1...100 {
      let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if descriptor >= 0 {
        opened = fdopen(descriptor, "wb")
        if opened == nil { close(descriptor) }
        break
      }
      guard errno == EEXIST else { break }
      temporary = base + ".\(attempt).tmp"
    }
    guard let opened else {
      let reason = String(cString: strerror(errno))
      throw WorkbenchError(
        .usage, "cannot write here: \(reason)", at: SourceLocation(file: path),
        help: "check the folder's permissions or choose another output path")
    }
    temporaryPath = temporary
    handle = opened
    flushEachWrite = false
  }

  deinit {
    // Not finished: keep what was written rather than lose it.
    try? finish()
  }

  public func write(_ bytes: [UInt8]) {
    guard let handle else { return }
    bytes.withUnsafeBufferPointer { buffer in
      _ = fwrite(buffer.baseAddress, 1, buffer.count, handle)
    }
    if flushEachWrite { fflush(handle) }
  }

  /// Flushes, closes and moves the file into place.
  public func finish() throws(WorkbenchError) {
    guard let handle else { return }
    self.handle = nil
    guard let temporaryPath else {
      // Standard output or a device: what could not be written is an error
      // too (a full disk, /dev/full), never a silent loss.
      let flushed = fflush(handle) == 0 && ferror(handle) == 0
      let reason = String(cString: strerror(errno))
      let closed = fclose(handle) == 0
      guard flushed, closed else {
        throw WorkbenchError(
          .usage, "could not write: \(reason)", at: SourceLocation(file: path == "-" ? "standard output" : path),
          help: "free some space or choose another output")
      }
      return
    }
    let flushed = fflush(handle) == 0 && fsync(fileno(handle)) == 0
    let closed = fclose(handle) == 0
    guard flushed, closed, rename(temporaryPath, path) == 0 else {
      let reason = String(cString: strerror(errno))
      throw WorkbenchError(
        .usage, "could not finish writing: \(reason)", at: SourceLocation(file: path),
        help: "the partial output is at \(temporaryPath)")
    }
  }
}
