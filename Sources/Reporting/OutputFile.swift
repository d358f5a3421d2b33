import Diagnostics
import FileSystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An output of workbench (events, traces, reports): an `AtomicFile`, so
/// that the path never holds a half-written file. "-" writes to standard
/// output instead, and a path that is not a regular file (a device such as
/// /dev/null or /dev/stderr, a named pipe) is written in place: renaming
/// over it would replace the device with a file.
public final class OutputFile {
  public let path: String
  /// The file being written, for a path that is written whole.
  private let file: AtomicFile?
  /// What `file` has not been given yet: it is written in blocks.
  private var pending: [UInt8] = []
  private var isFinished = false
  /// Standard output or a device, written in place.
  private var handle: UnsafeMutablePointer<FILE>?
  private let flushEachWrite: Bool
  /// The size of the blocks `file` is given: a page, as stdio buffers a file.
  static let blockBytes = 4096

  public var isStandardOutput: Bool { path == "-" }

  public init(path: String) throws(WorkbenchError) {
    self.path = path
    if path == "-" {
      file = nil
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
      file = nil
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
    // The temporary file is made exclusively, so that two outputs to the
    // same path (say --events and --trace-out) never share, and garble, one.
    do {
      file = try AtomicFile.begin(path)
    } catch {
      throw WorkbenchError(
        .usage, "cannot write here: \(error.reason)", at: SourceLocation(file: path),
        help: "check the folder's permissions or choose another output path")
    }
    handle = nil
    flushEachWrite = false
  }

  deinit {
    // Not finished: keep what was written rather than lose it.
    try? finish()
  }

  public func write(_ bytes: [UInt8]) {
    if file != nil {
      guard !isFinished else { return }
      pending += bytes
      if pending.count >= Self.blockBytes { writePending() }
      return
    }
    guard let handle else { return }
    bytes.withUnsafeBufferPointer { buffer in
      _ = fwrite(buffer.baseAddress, 1, buffer.count, handle)
    }
    if flushEachWrite { fflush(handle) }
  }

  /// Gives `file` what is pending. A failed write fails the file, which
  /// `finish()` then reports.
  private func writePending() {
    try? file?.write(pending)
    pending.removeAll(keepingCapacity: true)
  }

  /// Flushes, closes and moves the file into place.
  public func finish() throws(WorkbenchError) {
    if let file {
      guard !isFinished else { return }
      isFinished = true
      writePending()
      do {
        try file.commit()
      } catch {
        throw WorkbenchError(
          .usage, "could not finish writing: \(error.reason)", at: SourceLocation(file: path),
          help: "the partial output is at \(file.temporaryPath)")
      }
      return
    }
    guard let handle else { return }
    self.handle = nil
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
  }
}
