import Foundation
import TestSupport
import Testing

@testable import Evaluation

/// Where `workbench eval` keeps its measurements when `--cache` is not given (docs/eval.md).
@Suite struct DefaultCacheTests {
  @Test func aCorpusThatCanBeWrittenKeepsItsCacheBesideIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let manifest = try folder.write("corpus/sessions.csv", "input,label\n")
    #expect(Evaluation.defaultCache(for: manifest) == folder.file("corpus") + "/.workbench-cache")
    #expect(Evaluation.defaultCache(for: folder.file("corpus")) == folder.file("corpus") + "/.workbench-cache")
  }

  @Test func aCorpusThatCannotBeWrittenCachesUnderTheUsersCacheFolderByItsPath() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let manifest = try folder.write("installed/eval/sessions.csv", "input,label\n")
    let readOnly: (String) -> Bool = { _ in false }
    let xdg = Evaluation.defaultCache(
      for: manifest, environment: ["XDG_CACHE_HOME": "/cache", "HOME": "/home/ann"], canWrite: readOnly)
    #expect(xdg == "/cache/workbench/eval" + folder.file("installed/eval"))
    let home = Evaluation.defaultCache(for: manifest, environment: ["HOME": "/home/ann"], canWrite: readOnly)
    #expect(home == "/home/ann/.cache/workbench/eval" + folder.file("installed/eval"))
  }
}
