import Diagnostics
import JSONCore
import Settings
import Testing

/// Settings that hold a number or a list of numbers (`pad.input_size`:
/// `80` or `[128, 128]`), or a string or a list of strings (`pad.model`).
@Suite struct ListSettingTests {
  let declarations: [SettingDeclaration] = [
    .numbers("model.input_size", default: [80], lengths: 1...2, minimum: 1, maximum: 4096, doc: "Input size"),
    .numbers("model.mean", default: [0, 0, 0], lengths: 3...3, doc: "Per channel"),
    .strings("model.files", default: [], doc: "Model files"),
  ]

  func resolve(_ assign: (inout SettingsBuilder) -> Void) throws -> (ResolvedSettings, [Diagnostic]) {
    var builder = try SettingsBuilder(declarations: declarations)
    assign(&builder)
    return builder.resolve()
  }

  @Test func aNumberOrAListFromTheCommandLineAndFromJSON() throws {
    let (settings, problems) = try resolve { builder in
      builder.assign("model.input_size", text: "[128, 96]", source: .commandLine)
      builder.assign("model.mean", .array([.number(151.2405), .number(119.595), .integer(107)]), source: .commandLine)
      builder.assign("model.files", text: #"["a.onnx", "b.onnx"]"#, source: .commandLine)
    }
    #expect(problems.isEmpty, "\(problems)")
    #expect(settings.numbers("model.input_size") == [128, 96])
    #expect(settings.numbers("model.mean") == [151.2405, 119.595, 107])
    #expect(settings.strings("model.files") == ["a.onnx", "b.onnx"])
    #expect(settings["model.input_size"]?.description == "[128, 96]")
    #expect(settings["model.files"]?.jsonValue == .array([.string("a.onnx"), .string("b.onnx")]))

    let (single, none) = try resolve { builder in
      builder.assign("model.input_size", text: "112", source: .commandLine)
      builder.assign("model.files", text: "models/one model.onnx", source: .commandLine)
    }
    #expect(none.isEmpty)
    #expect(single.numbers("model.input_size") == [112])
    #expect(single["model.input_size"]?.description == "112")
    #expect(single.strings("model.files") == ["models/one model.onnx"])
    #expect(
      single.strings("model.files").map { _ in single["model.files"]?.jsonValue } == .string("models/one model.onnx"))
  }

  @Test func aWrongLengthTypeOrValueIsNamed() throws {
    let (settings, problems) = try resolve { builder in
      builder.assign("model.input_size", text: "[1, 2, 3]", source: .commandLine)
      builder.assign("model.mean", text: "5", source: .commandLine)
    }
    #expect(settings.numbers("model.input_size") == [80])
    #expect(
      problems.map(\.message) == [
        #"setting 'model.input_size' must be a number or a list of 1 to 2 numbers, got string "[1, 2, 3]" (from --set)"#,
        #"setting 'model.mean' must be a list of 3 numbers, got string "5" (from --set)"#,
      ])
    #expect(problems.last?.help == "give a list such as [1, 1, 1]")

    let (_, range) = try resolve { builder in
      builder.assign("model.input_size", .array([.integer(128), .integer(0)]), source: .commandLine)
      builder.assign("model.files", .array([.string("a.onnx"), .integer(3)]), source: .commandLine)
    }
    #expect(
      range.map(\.message).first
        == "setting 'model.input_size' = [128, 0] is out of range: allowed 1 ... 4096 (from --set)")
    #expect(range.count == 2)
    #expect(range.last?.message.hasPrefix("setting 'model.files' must be a string or a list of strings") == true)
  }
}
