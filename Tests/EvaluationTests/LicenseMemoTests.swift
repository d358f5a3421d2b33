import Diagnostics
import Synchronization
import Testing

@testable import Evaluation

@Suite struct LicenseMemoTests {
  @Test func anAllowedSetOfFeaturesIsCheckedOnceARefusalEveryTime() throws {
    let checks = Mutex<[[String]]>([])
    let check = LicenseMemo.remembering { (features: [String]) throws(WorkbenchError) -> Void in
      checks.withLock { $0.append(features) }
      if features.contains("gallery") { throw WorkbenchError(.license, "the license does not allow gallery") }
    }
    for _ in 0..<3 { try check(["face"]) }
    for _ in 0..<2 { #expect(throws: WorkbenchError.self) { try check(["face", "gallery"]) } }
    try check(["card"])
    #expect(checks.withLock { $0 } == [["face"], ["face", "gallery"], ["face", "gallery"], ["card"]])
  }
}
