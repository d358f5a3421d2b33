import Foundation

/// Where a run's frames come from, as the user named it.
public enum InputSpec: Sendable, Equatable {
  /// A measurement trace (JSON Lines), or a recording (JPEG folder, MJPEG,
  /// AVI, Y4M): told apart by the file.
  case file(String)
  case camera(device: String, width: Int?, height: Int?, fps: Double?)

  public var name: String {
    switch self {
    case .file(let path): return path
    case .camera(let device, _, _, _): return device
    }
  }

  /// Whether `path` is a measurement trace rather than a recording. Standard
  /// input (`-`) and a pipe are traces: a recording is a file or a folder, and
  /// peeking into a pipe would take the bytes from the trace.
  public static func isTrace(_ path: String) -> Bool {
    if path == "-" || path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") { return true }
    var information = stat()
    if stat(path, &information) == 0, information.st_mode & S_IFMT == S_IFIFO { return true }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
      let handle = FileHandle(forReadingAtPath: path)
    else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 64)) ?? Data()
    return head.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "{")
  }
}
