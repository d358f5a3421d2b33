import Diagnostics
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file, a pipe or standard input (`-`) one line at a time through a
/// buffer that holds one line and a block, so that memory stays the same
/// whatever the length of the input: a four-hour trace takes what a
/// ten-minute one does, and another process can feed a run through a pipe.
public final class LineReader {
  /// The path as the user named it (`-` for standard input).
  public let path: String
  /// Lines longer than this are refused instead of growing the buffer without end.
  public static let maximumLineBytes = 64 << 20
  static let blockSize = 64 << 10

  private var descriptor: Int32
  private let ownsDescriptor: Bool
  private var buffer: [UInt8]
  /// The unread bytes are buffer[start..<end].
  private var start = 0
  private var end = 0
  private var atEndOfInput = false
  private let status: ExitStatus
  private let help: String?
  /// Lines returned so far: the next line's number is this plus one.
  public private(set) var lineNumber = 0

  /// Bytes the reader holds: one block, or the longest line so far and a block.
  public var bufferedBytes: Int { buffer.count }

  /// Whether `path` names standard input.
  public static func isStandardInput(_ path: String) -> Bool { path == "-" }

  /// Whether a signal asked the program to stop: a blocking open or read
  /// cut short by it (EINTR) then ends with an error instead of waiting again.
  private let interrupted: () -> Bool

  /// Opens `path` (`-` for standard input); errors name it as the `what` it
  /// is. `interrupted` says whether a signal asked to stop (a pipe may keep
  /// the opening or a read waiting for ever).
  public init(
    path: String, what: String, status: ExitStatus, help: String?, interrupted: @escaping () -> Bool = { false }
  ) throws(WorkbenchError) {
    self.path = path
    self.status = status
    self.help = help
    self.interrupted = interrupted
    buffer = [UInt8](repeating: 0, count: Self.blockSize)
    if Self.isStandardInput(path) {
      descriptor = STDIN_FILENO
      ownsDescriptor = false
      return
    }
    let location = SourceLocation(file: path)
    var information = stat()
    guard stat(path, &information) == 0 else {
      throw WorkbenchError(
        status, errno == ENOENT ? "no such file" : "cannot read the \(what): \(String(cString: strerror(errno)))",
        at: location, help: help ?? "check the path of the \(what)")
    }
    guard information.st_mode & S_IFMT != S_IFDIR else {
      throw WorkbenchError(status, "is a folder, not a \(what) file", at: location, help: help)
    }
    // A pipe's opening waits for a writer; a signal that is not a stop is waited through.
    var opened = open(path, O_RDONLY | O_CLOEXEC)
    while opened < 0 && errno == EINTR && !interrupted() { opened = open(path, O_RDONLY | O_CLOEXEC) }
    guard opened >= 0 else {
      throw WorkbenchError(
        status, "cannot read the \(what): \(String(cString: strerror(errno)))", at: location,
        help: help ?? "check the file's permissions")
    }
    descriptor = opened
    ownsDescriptor = true
  }

  deinit { close() }

  public func close() {
    if ownsDescriptor, descriptor >= 0 { _ = Glibc.close(descriptor) }
    descriptor = -1
  }

  /// The next line without its line break (`\n` or `\r\n`), or nil at the
  /// end of the input. The bytes are valid until the next call.
  public func next() throws(WorkbenchError) -> ArraySlice<UInt8>? {
    while true {
      if let newline = findNewline() {
        var lineEnd = newline
        let lineStart = start
        start = newline + 1
        if lineEnd > lineStart && buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        lineNumber += 1
        return buffer[lineStart..<lineEnd]
      }
      if atEndOfInput {
        guard start < end else { return nil }
        let lineStart = start
        var lineEnd = end
        start = end
        if buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        lineNumber += 1
        return buffer[lineStart..<lineEnd]
      }
      try fill()
    }
  }

  private func findNewline() -> Int? {
    guard start < end else { return nil }
    return buffer.withUnsafeBufferPointer { bytes -> Int? in
      guard let base = bytes.baseAddress, let found = memchr(base + start, 0x0A, end - start) else { return nil }
      return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
  }

  /// Reads one more block after the unread bytes, moving them to the front
  /// first and growing the buffer only for a line longer than it.
  private func fill() throws(WorkbenchError) {
    if start > 0 {
      let unread = end - start
      if unread > 0 {
        buffer.withUnsafeMutableBufferPointer { bytes in
          guard let base = bytes.baseAddress else { return }
          memmove(base, base + start, unread)
        }
      }
      start = 0
      end = unread
    }
    if buffer.count - end < Self.blockSize {
      guard buffer.count < Self.maximumLineBytes else {
        throw WorkbenchError(
          status, "line \(lineNumber + 1) is longer than \(Self.maximumLineBytes >> 20) MiB", at: location(),
          help: help ?? "each line must be one record")
      }
      buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, Self.maximumLineBytes - buffer.count)))
    }
    let descriptor = self.descriptor
    let offset = end
    let interrupted = self.interrupted
    let result = buffer.withUnsafeMutableBufferPointer { bytes -> Int in
      guard let base = bytes.baseAddress else { return 0 }
      while true {
        let got = read(descriptor, base + offset, bytes.count - offset)
        if got < 0 && errno == EINTR && !interrupted() { continue }
        return got
      }
    }
    if result < 0 {
      throw WorkbenchError(
        status, "read failed after line \(lineNumber): \(String(cString: strerror(errno)))", at: location(),
        help: "check that the input is still there")
    }
    if result == 0 { atEndOfInput = true }
    end += result
  }

  private func location() -> SourceLocation { SourceLocation(file: path, line: lineNumber + 1) }
}
