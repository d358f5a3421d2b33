import Foundation
import Glibc
import Randomness

/// One parser of a user's file or a peer's bytes, driven by arbitrary input.
///
/// A target feeds the bytes to the parser as `workbench` would (through the
/// file on disk where the parser reads files) and checks what must hold for
/// any input: no crash, an error that names the input, and where a parser
/// has an inverse, that reading what it wrote gives the same value back.
/// The libFuzzer build (`scripts/fuzz`) traps on a broken rule; the tests
/// replay every saved input and expect none (docs/fuzzing.md).
public struct FuzzTarget: Sendable {
  public let name: String
  public let summary: String
  /// Files and folders, relative to the package root, whose files start the
  /// corpus (a folder contributes the files whose names end with one of
  /// `seedExtensions`).
  public let seeds: [String]
  public let seedExtensions: [String]
  /// Small inputs made in code, where the repository has no small file of
  /// the kind (a signed license, a two-frame recording).
  public let madeSeeds: @Sendable () -> [[UInt8]]
  /// A libFuzzer dictionary, relative to the package root.
  public let dictionary: String?
  /// The file name the input is written to for parsers that read files
  /// (its extension is the one users give).
  let fileName: String
  let body: @Sendable (_ input: [UInt8], _ file: String) -> [String]

  init(
    _ name: String, _ summary: String, seeds: [String] = [], seedExtensions: [String] = [],
    madeSeeds: @escaping @Sendable () -> [[UInt8]] = { [] }, dictionary: String? = nil, fileName: String = "input",
    body: @escaping @Sendable (_ input: [UInt8], _ file: String) -> [String]
  ) {
    self.name = name
    self.summary = summary
    self.seeds = seeds
    self.seedExtensions = seedExtensions
    self.madeSeeds = madeSeeds
    self.dictionary = dictionary
    self.fileName = fileName
    self.body = body
  }

  /// Runs one input and returns the rules it broke (none, for a parser
  /// that holds).
  public func check(_ input: [UInt8]) -> [String] {
    // A folder of its own: a parser that reads a whole folder (catalogs)
    // must not see the inputs of other targets run in the same process.
    let folder = FuzzScratch.folder + "/" + name
    if !FileManager.default.fileExists(atPath: folder) {
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    let file = folder + "/" + fileName
    guard FuzzScratch.write(input, to: file) else { return ["could not write the input to \(file)"] }
    return body(input, file)
  }
}

/// Where targets that read files put their input: one private folder per
/// process, in memory when the system has one.
enum FuzzScratch {
  static let folder: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    var template = Array((base + "/workbench-fuzz-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "cannot create a scratch folder in \(base)")
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }()

  /// Writes in place (no rename): a fuzzer calls this a million times.
  static func write(_ bytes: [UInt8], to path: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
      if count <= 0 { return false }
      written += count
    }
    return true
  }

  /// Removes the scratch folder and what is in it.
  static func remove() {
    try? FileManager.default.removeItem(atPath: folder)
  }
}

/// Rules every target checks on what a parser refused.
enum ErrorRules {
  /// A refusal must say which input it is about and what is wrong.
  static func namesTheInput(_ text: String, _ path: String, _ what: String) -> [String] {
    var broken: [String] = []
    if !text.contains(path) { broken.append("\(what) does not name \(path): \(text)") }
    if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { broken.append("\(what) is empty") }
    return broken
  }
}

/// A target's seed corpus, gathered from the repository and made in code.
public enum FuzzSeeds {
  /// The seed inputs of `target`; `root` is the package root its seed paths are relative to.
  public static func inputs(of target: FuzzTarget, root: String = ".") -> [[UInt8]] {
    var inputs: [[UInt8]] = []
    for seed in target.seeds {
      let path = root + "/" + seed
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
      var files: [String] = []
      if isFolder.boolValue {
        let walker = FileManager.default.enumerator(atPath: path)
        while let relative = walker?.nextObject() as? String {
          if target.seedExtensions.isEmpty || target.seedExtensions.contains(where: { relative.hasSuffix($0) }) {
            files.append(path + "/" + relative)
          }
        }
      } else {
        files.append(path)
      }
      for file in files.sorted() {
        var isSubfolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isSubfolder), !isSubfolder.boolValue,
          let data = FileManager.default.contents(atPath: file)
        {
          inputs.append(Array(data))
        }
      }
    }
    return inputs + target.madeSeeds()
  }

  /// Writes the seed inputs into `folder` (created if needed), each named by
  /// its content so that seeding twice adds nothing; returns how many.
  @discardableResult
  public static func write(_ target: FuzzTarget, into folder: String, root: String = ".") -> Int {
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let inputs = inputs(of: target, root: root)
    for input in inputs {
      _ = FuzzScratch.write(input, to: folder + "/seed-" + contentName(input))
    }
    return inputs.count
  }

  /// FNV-1a of the bytes, in hex: a stable name for an input.
  static func contentName(_ bytes: [UInt8]) -> String { String(StableHash.of(bytes), radix: 16) }
}
