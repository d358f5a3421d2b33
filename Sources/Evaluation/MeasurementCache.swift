import Crypto
import Diagnostics
import FileSystem
import Foundation
import Measurements

/// Measurements kept by what they were measured from: a trace per key,
/// where the key is the input's bytes, what the estimators were asked to
/// measure, their settings and workbench's version. A sweep replays them
/// for every settings point, and the next evaluation of the same corpus
/// measures nothing. Entries appear whole (written under another name,
/// then renamed), so a kill never leaves half a trace behind a key.
public final class MeasurementCache {
  public let folder: String
  /// Input digests by file identity (device, inode, size, modification
  /// time), so that an unchanged input is not read again to be named.
  private var digests: [String: String] = [:]

  public init(folder: String) throws(WorkbenchError) {
    self.folder = folder
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw WorkbenchError(
        .usage, "cannot create the measurement cache", at: SourceLocation(file: folder),
        help: "give a folder that can be written with --cache")
    }
  }

  /// The cache's name for a measurement of `inputPath` made the way `recipe` says.
  public func key(inputPath: String, recipe: [String]) throws(WorkbenchError) -> String {
    var hash = SHA256()
    hash.update(data: Data(try digest(of: inputPath).utf8))
    for line in recipe { hash.update(data: Data(("\n" + line).utf8)) }
    return MeasurementCache.hex(hash.finalize())
  }

  /// Where the entry of `key` is (whether or not it exists yet).
  public func path(_ key: String, suffix: String = ".jsonl") -> String {
    folder + "/" + key.prefix(2) + "/" + key + suffix
  }

  public func contains(_ key: String, suffix: String = ".jsonl") -> Bool {
    FileManager.default.fileExists(atPath: path(key, suffix: suffix))
  }

  /// A name to write the entry under until it is complete, in its folder.
  public func scratchPath(_ key: String, suffix: String = ".jsonl") -> String {
    let final = path(key, suffix: suffix)
    try? FileManager.default.createDirectory(
      atPath: (final as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    return final + ".partial-\(getpid())-\(UUID().uuidString.prefix(8))" + suffix
  }

  /// Makes the entry written at `scratch` the one of `key`.
  public func commit(_ scratch: String, as key: String, suffix: String = ".jsonl") throws(WorkbenchError) {
    do {
      try AtomicFile.move(scratch, over: path(key, suffix: suffix))
    } catch {
      try? FileManager.default.removeItem(atPath: scratch)
      throw WorkbenchError(.usage, "cannot keep a measurement: \(error)", at: SourceLocation(file: path(key)))
    }
  }

  /// The trace at `path` (an entry's, or one a corpus names), read for
  /// replaying: from the binary form kept beside an entry, made from the
  /// trace the first time. Nil for a trace too large to hold whole or one
  /// that cannot be read (the run reads its file and says why).
  public func replayableTrace(_ path: String) -> ReadTrace? {
    var information = stat()
    guard stat(path, &information) == 0, information.st_size <= MeasurementCache.replayableTraceLimit else {
      return nil
    }
    let isEntry = path.hasPrefix(folder + "/") && path.hasSuffix(".jsonl")
    let binary = String(path.dropLast(".jsonl".count)) + ".replay"
    // The binary form starts with the trace's size and time of change: an
    // entry measured again (or edited by hand) is read from its text again.
    let stamp = Self.stamp(information)
    if isEntry, let data = FileManager.default.contents(atPath: binary), data.count > stamp.count,
      data.prefix(stamp.count).elementsEqual(stamp),
      let read = ReadTrace(path: path, encoded: [UInt8](data.dropFirst(stamp.count)))
    {
      return read
    }
    guard let read = try? ReadTrace(path: path) else { return nil }
    if isEntry, let bytes = read.encoded() {
      // A cache that cannot be written still replays: the binary form only saves time.
      try? AtomicFile.write(stamp + bytes, to: binary)
    }
    return read
  }

  /// A file's size and time of last change, as 24 bytes.
  private static func stamp(_ information: stat) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    for value in [Int64(information.st_size), Int64(information.st_mtim.tv_sec), Int64(information.st_mtim.tv_nsec)] {
      withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
    return bytes
  }

  /// Lowercase hexadecimal, without String(format:), which cost more than
  /// the hashing for the short inputs of a corpus of schedules.
  static func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Traces above this size are read from their file as the run goes.
  static let replayableTraceLimit = 64 << 20

  /// SHA-256 of the input's bytes; of every file's name and bytes, in
  /// order, for a folder of frames.
  private func digest(of path: String) throws(WorkbenchError) -> String {
    var information = stat()
    guard stat(path, &information) == 0 else {
      throw WorkbenchError(.input, "cannot read the input", at: SourceLocation(file: path))
    }
    let identity =
      "\(information.st_dev):\(information.st_ino):\(information.st_size):\(information.st_mtim.tv_sec).\(information.st_mtim.tv_nsec)"
    if let known = digests[identity] { return known }
    var hash = SHA256()
    var isFolder: ObjCBool = false
    FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
    let files =
      isFolder.boolValue
      ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 } : [path]
    for file in files {
      if isFolder.boolValue { hash.update(data: Data(((file as NSString).lastPathComponent + "\n").utf8)) }
      guard let handle = FileHandle(forReadingAtPath: file) else {
        throw WorkbenchError(.input, "cannot read the input", at: SourceLocation(file: file))
      }
      defer { try? handle.close() }
      while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
    }
    let text = MeasurementCache.hex(hash.finalize())
    digests[identity] = text
    return text
  }
}
