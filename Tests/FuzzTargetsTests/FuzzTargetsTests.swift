import Foundation
import TestSupport
import Testing

@testable import FuzzTargets

/// Every input a fuzzer ever broke a parser with is kept in
/// Tests/Fixtures/fuzz/<target>/ and must hold from then on; so must every
/// seed the fuzzers start from.
@Suite(.serialized) struct FuzzTargetsTests {
  static let names = FuzzTargets.all.map(\.name)

  @Test func everyParserTheHardeningListsHasATarget() {
    let expected: Set = [
      "json", "trace", "settings", "messages", "license-conf", "license-plist", "license-dat", "activation-request",
      "activation-answer", "avi", "mjpeg", "y4m", "video", "timestamps", "jpeg", "photo-header", "face-schedule",
      "scenario",
    ]
    #expect(Set(Self.names) == expected)
    for target in FuzzTargets.all {
      if let dictionary = target.dictionary {
        #expect(FileManager.default.fileExists(atPath: packageRoot() + "/" + dictionary), "\(dictionary)")
      }
    }
  }

  @Test(arguments: names)
  func theSeedsHold(_ name: String) throws {
    let target = try #require(FuzzTargets.named(name))
    let seeds = FuzzSeeds.inputs(of: target, root: packageRoot())
    #expect(!seeds.isEmpty, "\(name) has no seeds")
    for (index, seed) in seeds.enumerated() {
      #expect(target.check(seed) == [], "\(name) seed \(index)")
    }
  }

  @Test(arguments: names)
  func theSavedInputsHold(_ name: String) throws {
    let target = try #require(FuzzTargets.named(name))
    let folder = packageRoot() + "/Tests/Fixtures/fuzz/" + name
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    for file in files {
      let data = try #require(FileManager.default.contents(atPath: folder + "/" + file))
      #expect(target.check(Array(data)) == [], "\(name)/\(file)")
    }
  }

  /// The rules do break: a target is no use if nothing can fail it.
  @Test func aRefusalThatDoesNotNameItsInputBreaksARule() {
    #expect(ErrorRules.namesTheInput("/in/clip.avi: no 'movi' list", "/in/clip.avi", "the error") == [])
    #expect(ErrorRules.namesTheInput("no 'movi' list", "/in/clip.avi", "the error").count == 1)
    #expect(ErrorRules.namesTheInput(" ", "clip.avi", "the error").last == "the error is empty")
  }
}
