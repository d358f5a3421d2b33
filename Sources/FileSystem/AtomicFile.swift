import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file that appears at its path whole or not at all. It is written under
/// a temporary name in the same folder (so that the rename never crosses
/// file systems), synced, then renamed over the path; until then the path
/// keeps its old file, if it had one.
///
/// `write(_:to:)` does it all for bytes held at once. A writer that writes as
/// it goes (a recording) calls `begin(_:)` and ends the handle with
/// `commit()` or `abandon()`. A handle dropped without either is abandoned;
/// once a write or the commit failed, its temporary file stays until
/// `abandon()`, so that a caller can tell where the partial output is.
public final class AtomicFile {
  /// How the temporary file is named.
  public enum TemporaryName: Sendable, Equatable {
    /// `.NAME.PID.tmp` beside the file: hidden, and made exclusively so that
    /// two writers of one path never share (and garble) one temporary file;
    /// `.NAME.PID.1.tmp`, `.NAME.PID.2.tmp`... when it is taken.
    case hidden
    /// The path followed by `suffix`, replaced when it is already there.
    case suffix(String)
  }

  /// The permissions the file is made with.
  public enum Permissions: Sendable, Equatable {
    /// `mode` less the bits of the process's umask, as open(2) gives them.
    case masked(mode_t)
    /// Exactly `mode`, whatever the umask (private keys).
    case exactly(mode_t)
  }

  /// Where the file goes once committed.
  public let path: String
  /// Where it is written until then.
  public let temporaryPath: String
  /// The temporary file, open for writing; -1 once closed or released.
  public private(set) var descriptor: Int32
  private var state = State.writing

  private enum State {
    case writing
    case committed
    case failed(AtomicFileError)
    case abandoned
  }

  private init(path: String, temporaryPath: String, descriptor: Int32) {
    self.path = path
    self.temporaryPath = temporaryPath
    self.descriptor = descriptor
  }

  deinit {
    if case .writing = state { abandon() }
  }

  /// Writes `bytes` as the whole new content of `path`. On failure the
  /// temporary file is removed and `path` is as it was. Unless `replacing`,
  /// a file already at `path` is kept and the write fails (`isExistingFile`).
  public static func write(
    _ bytes: some ContiguousBytes, to path: String, temporaryName: TemporaryName = .hidden,
    permissions: Permissions = .masked(0o644), replacing: Bool = true
  ) throws(AtomicFileError) {
    let file = try begin(path, temporaryName: temporaryName, permissions: permissions)
    do {
      try file.write(bytes)
      try file.commit(replacing: replacing)
    } catch {
      file.abandon()
      throw error
    }
  }

  /// Makes the temporary file for `path` and returns it open for writing.
  public static func begin(
    _ path: String, temporaryName: TemporaryName = .hidden, permissions: Permissions = .masked(0o644)
  ) throws(AtomicFileError) -> AtomicFile {
    let mode: mode_t
    switch permissions {
    case .masked(let bits), .exactly(let bits): mode = bits
    }
    let (temporaryPath, descriptor) = try createTemporary(for: path, named: temporaryName, mode: mode)
    let file = AtomicFile(path: path, temporaryPath: temporaryPath, descriptor: descriptor)
    // open() leaves out the bits of the umask; an exact mode is meant exactly.
    if case .exactly = permissions, fchmod(descriptor, mode) != 0 {
      let failure = errno
      file.abandon()
      throw AtomicFileError(.create, code: failure)
    }
    return file
  }

  /// Appends all of `bytes` at the file's position. When this throws, the
  /// file can no longer be whole: `commit()` throws the same error.
  public func write(_ bytes: some ContiguousBytes) throws(AtomicFileError) {
    try checkWritable()
    let failure = bytes.withUnsafeBytes { buffer in writeFully(descriptor, buffer) }
    guard failure == 0 else { throw failed(AtomicFileError(.write, code: failure)) }
  }

  /// Flushes what was written to the disk, ahead of `commit()` (which
  /// syncs again): for a writer that reports a full disk before anything else.
  public func sync() throws(AtomicFileError) {
    try checkWritable()
    guard descriptor >= 0 else { return }
    guard fsync(descriptor) == 0 else { throw failed(AtomicFileError(.write, code: errno)) }
  }

  /// Closes the descriptor for a writer that opens the temporary file by its
  /// name (a library): the name stays this file's, and `commit()` only renames.
  public func releaseDescriptor() {
    guard descriptor >= 0 else { return }
    _ = close(descriptor)
    descriptor = -1
  }

  /// Syncs and closes the temporary file, then moves it to `path`: renamed
  /// over it, or, unless `replacing`, linked there only while `path` has no
  /// file. When this throws, the temporary file is left for the caller to
  /// `abandon()` or to name to the user. Later calls do nothing, or throw
  /// the same error again.
  public func commit(replacing: Bool = true) throws(AtomicFileError) {
    if case .committed = state { return }
    try checkWritable()
    do {
      try closeSynced()
      try move(replacing: replacing)
      state = .committed
    } catch {
      throw failed(error)
    }
  }

  /// Closes and removes the temporary file; `path` is left as it was. Does
  /// nothing after a commit that succeeded, or a second time.
  public func abandon() {
    switch state {
    case .committed, .abandoned: return
    case .writing, .failed: break
    }
    releaseDescriptor()
    unlink(temporaryPath)
    state = .abandoned
  }

  /// Renames `source`, a whole file written in the same folder, over `path`.
  public static func move(_ source: String, over path: String) throws(AtomicFileError) {
    guard rename(source, path) == 0 else { throw AtomicFileError(.move, code: errno) }
  }

  /// Throws what ended the handle, if anything did.
  private func checkWritable() throws(AtomicFileError) {
    switch state {
    case .writing: return
    case .failed(let error): throw error
    case .committed, .abandoned: throw AtomicFileError(.write, code: EBADF)
    }
  }

  private func failed(_ error: AtomicFileError) -> AtomicFileError {
    state = .failed(error)
    return error
  }

  private func closeSynced() throws(AtomicFileError) {
    guard descriptor >= 0 else { return }
    var failure: Int32 = 0
    if fsync(descriptor) != 0 { failure = errno }
    if close(descriptor) != 0, failure == 0 { failure = errno }
    descriptor = -1
    guard failure == 0 else { throw AtomicFileError(.write, code: failure) }
  }

  private func move(replacing: Bool) throws(AtomicFileError) {
    if replacing {
      try Self.move(temporaryPath, over: path)
      return
    }
    // link(2) never replaces: a file that appeared meanwhile is kept.
    if link(temporaryPath, path) == 0 {
      unlink(temporaryPath)
      return
    }
    let linkError = errno
    // A file system without hard links.
    guard linkError == EPERM || linkError == ENOTSUP || linkError == EOPNOTSUPP,
      !FileManager.default.fileExists(atPath: path), rename(temporaryPath, path) == 0
    else { throw AtomicFileError(.move, code: linkError) }
  }

  private static func createTemporary(
    for path: String, named name: TemporaryName, mode: mode_t
  ) throws(AtomicFileError) -> (path: String, descriptor: Int32) {
    switch name {
    case .suffix(let suffix):
      let candidate = path + suffix
      let descriptor = open(candidate, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
      guard descriptor >= 0 else { throw AtomicFileError(.create, code: errno) }
      return (candidate, descriptor)
    case .hidden:
      let parent = (path as NSString).deletingLastPathComponent
      let folder = parent.isEmpty ? "." : parent
      let base = folder + "/." + (path as NSString).lastPathComponent + ".\(getpid())"
      var candidate = base + ".tmp"
      for attempt in 1...100 {
        let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if descriptor >= 0 { return (candidate, descriptor) }
        guard errno == EEXIST else { break }
        candidate = base + ".\(attempt).tmp"
      }
      throw AtomicFileError(.create, code: errno)
    }
  }
}

/// Writes all of `buffer` at the descriptor's position; 0, or the errno of
/// the write that failed.
private func writeFully(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
  guard var next = buffer.baseAddress else { return 0 }
  var remaining = buffer.count
  while remaining > 0 {
    let result = write(descriptor, next, remaining)
    if result < 0 {
      if errno == EINTR { continue }
      return errno
    }
    next += result
    remaining -= result
  }
  return 0
}
