import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A recording opened for reading at any offset. Reads use `pread`, so the
/// sources keep no file position of their own and a failed read can name
/// the exact offset.
final class RecordingFile {
  /// The path as the user named it, for messages.
  let path: String
  /// Bytes in the file when it was opened.
  let size: Int64
  private var descriptor: Int32

  init(path: String) throws(CaptureError) {
    self.path = path
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw RecordingFile.openError(path: path, errno: errno) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let error = errno
      closeDescriptor(descriptor)
      throw RecordingFile.openError(path: path, errno: error)
    }
    self.descriptor = descriptor
    size = Int64(status.st_size)
  }

  deinit { close() }

  func close() {
    guard descriptor >= 0 else { return }
    closeDescriptor(descriptor)
    descriptor = -1
  }

  /// Up to `count` bytes from `offset`; fewer only at the end of the file.
  func read(at offset: Int64, count: Int) throws(CaptureError) -> [UInt8] {
    guard count > 0, offset < size else { return [] }
    let wanted = Int(min(Int64(count), size - offset))
    var bytes = [UInt8](repeating: 0, count: wanted)
    // `withUnsafeMutableBytes` rethrows untyped errors: carry the typed one out.
    let result = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(CaptureError) -> Int in try read(at: offset, into: buffer) }
    }
    let got = try result.get()
    if got < wanted { bytes.removeLast(wanted - got) }
    return bytes
  }

  /// Up to `count` bytes from `offset` into `bytes`, as `read(at:count:)`
  /// gives them, in the storage `bytes` has when nothing else holds it: a
  /// reader that keeps one array for its frames allocates nothing a frame.
  func read(at offset: Int64, count: Int, into bytes: inout [UInt8]) throws(CaptureError) {
    let wanted = count > 0 && offset < size ? Int(min(Int64(count), size - offset)) : 0
    if bytes.count > wanted {
      bytes.removeLast(bytes.count - wanted)
    } else if bytes.count < wanted {
      bytes.append(contentsOf: repeatElement(0, count: wanted - bytes.count))
    }
    guard wanted > 0 else { return }
    let result = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(CaptureError) -> Int in try read(at: offset, into: buffer) }
    }
    let got = try result.get()
    if got < wanted { bytes.removeLast(wanted - got) }
  }

  /// Fills `buffer` from `offset` and returns how many bytes were read
  /// (fewer than the buffer holds only at the end of the file).
  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    guard descriptor >= 0 else {
      throw CaptureError(.unreadableFile, source: path, "read after the file was closed")
    }
    var done = 0
    while done < buffer.count {
      let result = pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
      if result < 0 {
        if errno == EINTR { continue }
        throw CaptureError(
          .unreadableFile, source: path,
          "read failed at byte \(offset + Int64(done)): \(String(cString: strerror(errno)))",
          help: "check that the file is still there and the disk is healthy")
      }
      if result == 0 { break }
      done += result
    }
    return done
  }

  static func openError(path: String, errno error: Int32) -> CaptureError {
    let reason = String(cString: strerror(error))
    switch error {
    case ENOENT:
      return CaptureError(
        .unreadableFile, source: path, "no such file or folder",
        help:
          "check the path; a recording is a folder of .jpg frames, an .mjpeg, .avi or .y4m file, "
          + "or a video file (MP4, MOV, MKV, WebM)")
    case EACCES, EPERM:
      return CaptureError(
        .unreadableFile, source: path, "cannot read it: \(reason)", help: "check the file's permissions")
    default:
      return CaptureError(.unreadableFile, source: path, "cannot open it: \(reason)")
    }
  }
}

/// `close(2)`, reachable from types that have a `close()` of their own.
func closeDescriptor(_ descriptor: Int32) {
  _ = close(descriptor)
}
