import Diagnostics
import Foundation
import JSONCore
import TestSupport
import Testing

@testable import Evaluation

@Suite struct CorpusTests {
  @Test func aManifestWithEveryKindOfMistakeListsThemAllWithTheirLines() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    _ = try folder.write("a.jsonl", "{\"t\":0}\n")
    let manifest = try folder.write(
      "corpus.jsonl",
      """
      {"input":"a.jsonl","label":"bona_fide"}
      {"input":"missing.avi","label":"bona_fide"}
      {"input":"a.jsonl","label":"genuine","id":"x"}
      {"input":"a.jsonl","label":"attack","id":"y"}
      {"input":"a.jsonl","label":"bona_fide"}
      {"input":"a.jsonl","label":"attack","species":"print","id":"z","spieces":"mask"}
      not json

      """)
    #expect(throws: WorkbenchError.self) { try Corpus.load(manifest) }
    do {
      _ = try Corpus.load(manifest)
    } catch {
      #expect(error.status == .usage)
      let lines = error.diagnostics.map { "\($0.location?.line ?? 0): \($0.message)" }
      #expect(lines.count == 6, "\(lines)")
      #expect(lines.contains { $0.hasPrefix("5: the id \"a.jsonl\" is used again (first on line 1)") })
      #expect(lines.contains { $0.hasPrefix("2: the input missing.avi does not exist") })
      #expect(lines.contains { $0.hasPrefix("3: unknown label") })
      #expect(lines.contains { $0.hasPrefix("4: an attack needs its \"species\"") })
      #expect(lines.contains { $0.hasPrefix("6: unknown key \"spieces\" (did you mean \"species\"?)") })
      #expect(lines.contains { $0.hasPrefix("7: not valid JSON") })
    }
  }

  @Test func aCSVManifestReadsQuotedCellsAndSettings() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    _ = try folder.write("s 1.jsonl", "{\"t\":0}\n")
    let manifest = try folder.write(
      "corpus.csv",
      """
      input,label,species,id,subject,set
      "s 1.jsonl",bona_fide,,one,"Doe, J.","{""user"": ""s001"", ""liveness.blink_max_ms"": 500}"
      s 1.jsonl,attack,print,two,,

      """)
    let corpus = try Corpus.load(manifest)
    #expect(corpus.sessions.map(\.id) == ["one", "two"])
    #expect(corpus.sessions[0].subject == "Doe, J.")
    #expect(corpus.sessions[0].settings.map(\.key) == ["user", "liveness.blink_max_ms"])
    #expect(corpus.sessions[0].settings.map(\.value) == [.string("s001"), .integer(500)])
    #expect(corpus.sessions[1].species == "print")
    #expect(corpus.sessions[1].path == folder.file("s 1.jsonl"))
  }

  @Test func aFolderCorpusTakesBonaFideAndAttacksBySpecies() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    _ = try folder.write("bona_fide/a.jsonl", "{\"t\":0}\n")
    _ = try folder.write("bona_fide/deeper/b.avi", "")
    _ = try folder.write("bona_fide/deeper/b.avi.timestamps.jsonl", "")
    _ = try folder.write("attack/replay/c.jsonl", "{\"t\":0}\n")
    _ = try folder.write("attack/print/frames/0001.jpg", "")
    _ = try folder.write("attack/print/frames/0002.jpg", "")
    let corpus = try Corpus.load(folder.path)
    #expect(
      corpus.sessions.map { "\($0.id) \($0.label.rawValue) \($0.species ?? "-")" } == [
        "attack/print/frames attack print", "attack/replay/c.jsonl attack replay",
        "bona_fide/a.jsonl bona_fide -", "bona_fide/deeper/b.avi bona_fide -",
      ])
  }

  @Test func aFolderWithSomethingElseIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    _ = try folder.write("genuine/a.jsonl", "{\"t\":0}\n")
    #expect(throws: WorkbenchError.self) { try Corpus.load(folder.path) }
  }

  @Test func shardsCoverTheCorpusOnceWhateverItsOrder() throws {
    let sessions = (0..<200).map {
      CorpusSession(
        id: "s\($0)", input: "i", path: "/i", label: .bonaFide, species: nil, subject: nil, settings: [])
    }
    let corpus = Corpus(sessions: sessions, source: "c")
    let reversed = Corpus(sessions: sessions.reversed(), source: "c")
    var seen: [String] = []
    for index in 1...3 {
      let share = corpus.shard(index, of: 3).map(\.id)
      #expect(!share.isEmpty)
      #expect(Set(share) == Set(reversed.shard(index, of: 3).map(\.id)))
      seen += share
    }
    #expect(seen.sorted() == sessions.map(\.id).sorted())
  }

  @Test func sweepsReadListsAndRanges() throws {
    let range = try SettingsGrid.axis("a.b=0.2:0.4:0.05")
    #expect(range.values == [.number(0.2), .number(0.25), .number(0.3), .number(0.35), .number(0.4)])
    let whole = try SettingsGrid.axis("n=1:5:2")
    #expect(whole.values == [.integer(1), .integer(3), .integer(5)])
    let list = try SettingsGrid.axis("k=x,2,true")
    #expect(list.values == [.string("x"), .integer(2), .bool(true)])
    let grid = SettingsGrid(axes: [whole, list])
    #expect(grid.points.count == 9)
    #expect(grid.points[1].map(\.value) == [.integer(1), .integer(2)])
    for bad in ["k", "k=", "k=1:0:1", "k=0:1:0", "k=a,,b"] {
      #expect(throws: WorkbenchError.self, "\(bad)") { try SettingsGrid.axis(bad) }
    }
  }

  @Test func scoresReadTheirAggregate() throws {
    #expect(try ScoreSpec("face.blink_left:max").description == "face.blink_left:max")
    #expect(try ScoreSpec("-face.x").description == "-face.x:mean")
    #expect(throws: WorkbenchError.self) { try ScoreSpec("face.x:median") }
  }
}
