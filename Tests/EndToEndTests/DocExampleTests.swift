import Foundation
import Licensing
import TestSupport
import Testing

/// Every console example in README.md and docs/ that runs on bundled files
/// is run, and its output compared with what the page shows.
///
/// A block is a run of `$ command` lines, each followed by its output
/// (stdout and stderr as a terminal shows them). In the expected output a
/// line `...` stands for any number of lines, and `{…}` within a line for
/// any text. A block runs when every file its commands read is bundled
/// (examples/, configs/, plugins/) or made by an earlier command of the
/// block; it runs in a scratch folder of its own with the bundled folders
/// linked in and an empty `out/`. A block after a line
/// `<!-- not tested: why -->` is not run (it needs a camera, a changed
/// license, a plugin built first).
struct DocExample: Sendable, CustomTestStringConvertible {
  struct Command: Sendable {
    var text: String
    var line: Int
    var output: [String]
  }

  var file: String
  var line: Int
  var commands: [Command]

  var testDescription: String { "\(file):\(line)" }

  static let programs: Set<String> = ["workbench", "echo", "cat", "mkdir", "ls"]
  static let skippedWords: Set<String> = [
    "--camera", "devices", "activate", "keygen", "serve", "timeout", "jq", "curl",
  ]
  static let outputOptions: Set<String> = [
    "--out", "--record", "--artifacts", "--events", "--trace-out", "--junit", "--report", "--analytics", "--in",
  ]

  /// Every console block of README.md and docs/*.md.
  static func all(root: String = packageRootPath) -> [DocExample] {
    var files = ["README.md"]
    let docs = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []
    files += docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    var examples: [DocExample] = []
    for file in files {
      guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      var index = 0
      while index < lines.count {
        guard lines[index] == "```console" else {
          index += 1
          continue
        }
        let marked = index > 0 && lines[index - 1].hasPrefix("<!-- not tested")
        var example = DocExample(file: file, line: index + 1, commands: [])
        index += 1
        while index < lines.count, lines[index] != "```" {
          if lines[index].hasPrefix("$ ") {
            example.commands.append(Command(text: String(lines[index].dropFirst(2)), line: index + 1, output: []))
          } else if !example.commands.isEmpty {
            example.commands[example.commands.count - 1].output.append(lines[index])
          }
          index += 1
        }
        index += 1
        if !marked && example.runsOnBundledFiles(root: root) { examples.append(example) }
      }
    }
    return examples
  }

  /// Whether every command is one the test can run, on files that are there.
  func runsOnBundledFiles(root: String) -> Bool {
    guard !commands.isEmpty else { return false }
    var made = Set<String>(["out"])
    for command in commands {
      let words = command.text.split(separator: " ").map(String.init)
      guard let program = words.first, DocExample.programs.contains(program) else { return false }
      if words.contains(where: { DocExample.skippedWords.contains($0) }) { return false }
      if program == "workbench", words.count > 2, words[1] == "new" { made.insert(words[2]) }
      var previous = ""
      for word in words.dropFirst() {
        defer { previous = word }
        if word.hasPrefix("-") || ["|", "&&", ";", "#"].contains(word) { continue }
        let top = String(word.split(separator: "/").first ?? "")
        if DocExample.outputOptions.contains(previous) {
          made.insert(top)
          continue
        }
        let isPath =
          word.contains("/")
          || [".lua", ".jsonl", ".avi", ".json", ".jpg", ".mp4", ".mov", ".conf", ".sqlite"].contains {
            word.hasSuffix($0)
          }
        guard program == "workbench", isPath else { continue }
        if !FileManager.default.fileExists(atPath: root + "/" + word) && !made.contains(top) { return false }
      }
    }
    return true
  }
}

/// Whether `got` is what `expected` shows, with `...` lines and `{…}` text.
func docOutputMatches(_ expected: ArraySlice<String>, _ got: ArraySlice<String>) -> Bool {
  guard let first = expected.first else { return got.isEmpty }
  if first == "..." {
    return (got.startIndex...got.endIndex).contains { docOutputMatches(expected.dropFirst(), got[$0...]) }
  }
  guard let line = got.first, docLineMatches(first, line) else { return false }
  return docOutputMatches(expected.dropFirst(), got.dropFirst())
}

func docLineMatches(_ expected: String, _ line: String) -> Bool {
  let parts = expected.components(separatedBy: "{…}")
  guard parts.count > 1 else { return expected == line }
  guard line.hasPrefix(parts[0]), line.hasSuffix(parts[parts.count - 1]) else { return false }
  var rest = line.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count)
  for part in parts.dropFirst().dropLast() where !part.isEmpty {
    guard let range = rest.range(of: part) else { return false }
    rest = rest[range.upperBound...]
  }
  return true
}

/// A license for the bundled configs/license.conf, signed by a key made for
/// this test process.
enum DocLicense {
  struct Files: Sendable {
    var license: String
    var publicKey: String
  }

  static let files: Files = {
    do {
      let folder = try TemporaryFolder(prefix: "workbench-doc-license")
      let keys = try LicenseKeyPair.generate().write(toFolder: folder.path + "/keys")
      let license = try LicenseIssuer(privateKey: LicensePrivateKey.read(path: keys.privateKeyPath)).issue(
        product: "workbench", eid: "DEMO-0001", binding: .machine(.current()), days: 30,
        features: LicenseFeature.known, now: Date())
      try license.write(to: URL(fileURLWithPath: folder.path + "/license.dat"))
      return Files(license: folder.path + "/license.dat", publicKey: keys.publicKeyPath)
    } catch {
      fatalError("cannot make the docs' license: \(error)")
    }
  }()
}

@Suite struct DocExampleTests {
  static let examples = DocExample.all()

  @Test func theDocsHaveExamplesToRun() {
    let commands = Self.examples.reduce(0) { $0 + $1.commands.count }
    #expect(Self.examples.count >= 30, "\(Self.examples.count) blocks")
    #expect(commands >= 45, "\(commands) commands")
  }

  @Test(arguments: DocExampleTests.examples)
  func theExampleShowsWhatRuns(_ example: DocExample) throws {
    let binary = try #require(workbenchBinary, "build the workbench binary first")
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for name in ["examples", "plugins", "models", "third_party"] {
      try FileManager.default.createSymbolicLink(
        atPath: folder.file(name), withDestinationPath: packageRoot + "/" + name)
    }
    // configs/ as bundled, with a license issued for its license.conf (EID
    // DEMO-0001, bound to this machine) in place of the machine's own: a
    // fresh clone has none, and runs find configs/license.dat as a user's do.
    let configs = try folder.subfolder("configs")
    let license = [
      "license.dat": DocLicense.files.license, "license-public.key.json": DocLicense.files.publicKey,
    ]
    for name in try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/configs") where license[name] == nil
    {
      try FileManager.default.createSymbolicLink(
        atPath: configs + "/" + name, withDestinationPath: packageRoot + "/configs/" + name)
    }
    for (name, source) in license { try FileManager.default.copyItem(atPath: source, toPath: configs + "/" + name) }
    try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
    var script = ""
    for (index, command) in example.commands.enumerated() {
      // The status survives the marker, for a following `echo $?`.
      script += "{ \(command.text)\n} 2>&1\n__status=$?; echo \"@@@END \(index)\"; (exit $__status)\n"
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] =
      URL(fileURLWithPath: binary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
    environment["WORKBENCH_HOME"] = folder.path
    environment.removeValue(forKey: "WORKBENCH_LICENSE_CONFIG")
    environment.removeValue(forKey: "WORKBENCH_LICENSE_PUBLIC_KEY")
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var chunks = output.components(separatedBy: "\n").split(omittingEmptySubsequences: false) {
      $0.hasPrefix("@@@END ")
    }.map(Array.init)
    while chunks.count < example.commands.count { chunks.append([]) }
    for (command, chunk) in zip(example.commands, chunks) {
      var got = chunk
      var expected = command.output
      while got.last == "" { got.removeLast() }
      while expected.last == "" { expected.removeLast() }
      #expect(
        docOutputMatches(expected[...], got[...]),
        "\(example.file):\(command.line): $ \(command.text)\nexpected:\n\(expected.joined(separator: "\n"))\ngot:\n\(got.joined(separator: "\n"))"
      )
    }
  }
}
