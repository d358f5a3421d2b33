import Foundation
import TestSupport
import Testing

@testable import Evaluation

@Suite("A measurement kept for later names the model's bytes")
struct ModelDigestTests {
  @Test("a model replaced under the same name gives another recipe; the same bytes the same")
  func replacedModel() throws {
    let folder = try TemporaryFolder(prefix: "model-digest")
    defer { folder.remove() }
    let path = try folder.write("model.onnx", "first model's bytes")
    let first = Evaluation.modelDigests([path])
    #expect(first.count == 1)
    #expect(first[0].hasPrefix("model \(path): "))
    #expect(Evaluation.modelDigests([path]) == first)
    _ = try folder.write("model.onnx", "other bytes, same name")
    #expect(Evaluation.modelDigests([path]) != first)
    #expect(Evaluation.modelDigests([folder.path + "/none.onnx"]) == ["model \(folder.path)/none.onnx: unreadable"])
    #expect(Evaluation.modelDigests([""]).isEmpty)
  }
}
