import Foundation
import JSONCore
import TestSupport
import Testing

/// docs/architecture.md tells the truth about Package.swift: its graph has
/// exactly the manifest's edges between the project's modules, and its
/// tables have a row for every target.
@Suite struct ArchitectureDocTests {
  /// Every module uses these; the graph leaves them out, as the page says.
  static let leftOutOfTheGraph: Set<String> = ["Diagnostics", "JSONCore"]

  struct Target {
    var name: String
    var type: String
    var path: String?
    var dependencies: [String]
  }

  /// The manifest as SwiftPM reads it (its own scratch folder, so that it
  /// never waits for the build folder this test run holds).
  static func manifestTargets() throws -> [Target] {
    let scratch = try TemporaryFolder(prefix: "manifest")
    defer { scratch.remove() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swift", "package", "--scratch-path", scratch.path, "dump-package"]
    process.currentDirectoryURL = URL(fileURLWithPath: packageRootPath)
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "swift package dump-package failed")
    let manifest = try JSONParser.parse(String(decoding: data, as: UTF8.self))
    guard case .array(let targets)? = manifest["targets"] else { return [] }
    return targets.compactMap { target in
      guard let name = target["name"]?.stringValue, let type = target["type"]?.stringValue else { return nil }
      var dependencies: [String] = []
      if case .array(let list)? = target["dependencies"] {
        for dependency in list {
          // {"byName": ["Flows", null]} or {"target": ["Flows", null]}; products of packages are not ours.
          for kind in ["byName", "target"] {
            if case .array(let pair)? = dependency[kind], let first = pair.first?.stringValue {
              dependencies.append(first)
            }
          }
        }
      }
      return Target(name: name, type: type, path: target["path"]?.stringValue, dependencies: dependencies)
    }
  }

  /// The project's modules as the graph shows them: every target but the tests and their doubles.
  static func isInTheGraph(_ target: Target) -> Bool {
    target.type != "test" && !(target.path ?? "").hasPrefix("Tests/")
  }

  static func page() throws -> String {
    try String(contentsOfFile: packageRootPath + "/docs/architecture.md", encoding: .utf8)
  }

  /// `A --> B` pairs of the page's Mermaid graph (`A[label] --> B[(label)]` too).
  static func documentedEdges(_ page: String) -> Set<String> {
    guard let start = page.range(of: "```mermaid"),
      let end = page.range(of: "```", range: start.upperBound..<page.endIndex)
    else { return [] }
    var edges = Set<String>()
    for line in page[start.upperBound..<end.lowerBound].split(separator: "\n") {
      let sides = line.components(separatedBy: "-->")
      guard sides.count == 2 else { continue }
      func node(_ side: String) -> String {
        String(side.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "-" })
      }
      edges.insert(node(sides[0]) + " --> " + node(sides[1]))
    }
    return edges
  }

  @Test func theGraphIsThePackagesGraph() throws {
    let targets = try Self.manifestTargets()
    #expect(targets.count > 40, "the manifest was not read")
    let ours = Set(targets.filter(Self.isInTheGraph).map(\.name))
    var manifestEdges = Set<String>()
    for target in targets where ours.contains(target.name) {
      for dependency in target.dependencies where ours.contains(dependency) {
        if Self.leftOutOfTheGraph.contains(dependency) { continue }
        manifestEdges.insert(target.name + " --> " + dependency)
      }
    }
    let documented = Self.documentedEdges(try Self.page())
    let missing = manifestEdges.subtracting(documented).sorted()
    let extra = documented.subtracting(manifestEdges).sorted()
    #expect(missing.isEmpty, "Package.swift has edges docs/architecture.md's graph lacks: \(missing)")
    #expect(extra.isEmpty, "docs/architecture.md's graph has edges Package.swift does not: \(extra)")
  }

  @Test func everyTargetHasItsRow() throws {
    let targets = try Self.manifestTargets()
    let page = try Self.page()
    var named = Set<String>()
    for line in page.split(separator: "\n") where line.hasPrefix("| `") {
      let first = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
      for piece in first.split(separator: "`").enumerated() where piece.offset % 2 == 1 {
        named.insert(String(piece.element))
      }
    }
    let missing = targets.filter { $0.type != "test" && !named.contains($0.name) }.map(\.name).sorted()
    #expect(missing.isEmpty, "targets with no row in docs/architecture.md's tables: \(missing)")
  }
}
