import Diagnostics
import Flows
import FlowsTesting
import JSONCore
import Measurements
import Reporting
import Testing

/// `workbench check` holds every field a flow reads against what the
/// estimators (or a trace) provide, with types.
@Suite("Check: measurements")
struct FieldCheckTests {
  static let reference = MeasurementReference(
    catalog: MeasurementCatalog([
      MeasurementField("face.count", .integer), MeasurementField("face.yaw"), MeasurementField("face.pitch"),
      MeasurementField("face.ear_left"), MeasurementField("face.faces.#.yaw"), MeasurementField("card.found", .boolean),
      MeasurementField("card.tilt_x"), MeasurementField("face.descriptor", .onRequest),
    ]), missing: "no estimator provides", listing: "see the list")

  func problems(_ source: String) throws -> [Diagnostic] {
    let fixture = try FlowFixture(source)
    return try FlowChecker.check(fixture.options(), measurements: Self.reference, logger: testLogger).problems
  }

  /// "flow.lua:3: message": the file's name, the line, the message.
  func located(_ problems: [Diagnostic]) -> [String] {
    problems.map { problem in
      let file = problem.location.map { String($0.file.split(separator: "/").last ?? "") } ?? "?"
      return "\(file):\(problem.location?.line.map(String.init) ?? "?"): \(problem.message)"
    }
  }

  @Test("a misspelled field in wb.threshold is an error at its line, with the field it was meant to be")
  func misspelledThreshold() throws {
    let problems = try problems(
      """
      local wb = require "wb"
      return wb.flow { name = "nod", steps = {
        wb.threshold { name = "down", field = "face.pich", above = 10 },
      } }
      """)
    #expect(problems.count == 1, "\(problems)")
    #expect(located(problems).first == "flow.lua:3: reads 'face.pich', which no estimator provides")
    #expect(problems.first?.help?.hasPrefix("did you mean 'face.pitch'") == true)
  }

  @Test("typos in needs, wb.field, wb.alert, wb.guard and plain-table steps are each caught at their line")
  func everyWayOfReading() throws {
    let problems = try problems(
      """
      local wb = require "wb"
      local yaw = wb.field("face.yew")
      return wb.flow { name = "all", steps = {
        wb.step { name = "s", needs = { "face.cuont" }, update = function() return true end },
        wb.threshold { value = function(m) return 1 end, needs = { "face.ear_lef" }, below = 0.2 },
        { name = "plain", needs = { "crad.found" }, update = function() return true end },
      }, watch = {
        wb.alert { status = "TILT", field = "card.tilt_z", above = 30 },
        wb.guard { reason = "gone", when = function(m) return false end, needs = { "card.fund" } },
      } }
      """)
    let messages = located(problems)
    #expect(messages.contains("flow.lua:2: reads 'face.yew', which no estimator provides"), "\(messages)")
    #expect(messages.contains("flow.lua:4: reads 'face.cuont', which no estimator provides"))
    #expect(messages.contains("flow.lua:5: reads 'face.ear_lef', which no estimator provides"))
    #expect(messages.contains("flow.lua:6: reads 'crad.found', which no estimator provides"))
    #expect(messages.contains("flow.lua:8: reads 'card.tilt_z', which no estimator provides"))
    #expect(messages.contains("flow.lua:9: reads 'card.fund', which no estimator provides"))
    #expect(problems.count == 6)
  }

  @Test("a number test on a boolean, a group or an on-request field is an error; on an integer it is not")
  func types() throws {
    let problems = try problems(
      """
      local wb = require "wb"
      return wb.flow { name = "types", steps = {
        wb.range { field = "card.found", min = 0, max = 1 },
        wb.threshold { field = "face", above = 1 },
        wb.threshold { field = "face.descriptor", above = 0 },
        wb.threshold { field = "face.count", above = 0 },
        wb.threshold { field = "face.faces.2.yaw", above = 20 },
      } }
      """)
    let messages = located(problems)
    #expect(
      messages == [
        "flow.lua:3: compares 'card.found' with a number, but it holds a boolean (true or false)",
        "flow.lua:4: compares 'face' with a number, but it is a group of measurements",
        "flow.lua:5: compares 'face.descriptor' with a number, but it holds no value of its own in a frame (it is computed when the flow asks)",
      ], "\(messages)")
  }

  @Test("groups and positions are fields a flow may name")
  func groups() throws {
    let problems = try problems(
      """
      local wb = require "wb"
      return wb.flow { name = "g", steps = {
        wb.step { name = "s", needs = { "face", "card", "face.faces.3.yaw", "t" }, update = function() return true end },
      } }
      """)
    #expect(problems.isEmpty, "\(problems)")
  }

  @Test("a getter made on every frame is not noted again (the list of reads does not grow while the flow runs)")
  func readsStopAfterLoading() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "g", steps = {
        wb.step { name = "s", needs = { "face.yaw" }, update = function(self, m)
          local get = wb.field("face.yaw")
          return nil
        end },
      } }
      """)
    let flow = try FlowLoader.load(fixture.options(), logger: testLogger)
    let before = flow.description.reads.count
    #expect(before == 1)
    var script = FrameScript()
    script.add(50) { _ in ["face.yaw": .number(1)] }
    let schema = MeasurementSchema()
    let runner = FlowRunner(flow: flow, sink: InMemoryEventSink(), schema: schema)
    for frame in script.build(into: schema) { _ = runner.process(frame) }
    try flow.vm.runString("return #require('wb.problems').reads", chunkName: "count")
    #expect(try flow.vm.returnedValue() == .integer(Int64(before)))
  }
}

@Suite("Measurement catalog")
struct MeasurementCatalogTests {
  @Test("lookup: values, groups, positions, unknowns")
  func lookup() {
    let catalog = MeasurementCatalog([MeasurementField("face.faces.#.yaw"), MeasurementField("card.found", .boolean)])
    #expect(catalog.lookup("face.faces.2.yaw") == .value(.number))
    #expect(catalog.lookup("face.faces.0.yaw") == .unknown)
    #expect(catalog.lookup("face.faces.x.yaw") == .unknown)
    #expect(catalog.lookup("face.faces") == .group)
    #expect(catalog.lookup("card.found") == .value(.boolean))
    #expect(catalog.lookup("card.found.x") == .unknown)
    #expect(catalog.lookup("t") == .value(.number))
    #expect(catalog.spellings.contains("face.faces.1.yaw"))
  }

  @Test("a path of no parts (a trace's \"\" key) is left out, and suggestions still work")
  func emptyPaths() {
    var catalog = MeasurementCatalog([MeasurementField("face.yaw")])
    catalog.add(MeasurementField(""))
    catalog.add(MeasurementField("."))
    #expect(catalog.fields.map(\.path) == ["t", "frame", "face.yaw"])
    #expect(catalog.spellings.contains("face.yaw"))
    #expect(catalog.lookup("") == .unknown)
  }
}

/// Names that do not exist are caught where they are written.
@Suite("Check: names")
struct NameCheckTests {
  @Test("wb.treshold is an error at its line that names wb.threshold")
  func misspelledBuilder() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        wb.treshold { field = "face.yaw", above = 10 },
      } }
      """)
    let report = try FlowChecker.check(fixture.options(), logger: testLogger)
    let message = try #require(report.problems.first?.message)
    #expect(message.contains("flow.lua:3: wb.treshold does not exist: did you mean wb.threshold?"), "\(message)")
    #expect(!message.contains("attempt to call a nil value"))
  }

  @Test("ctx.hnit in a step is a script error at its line that names ctx.hint")
  func misspelledContext() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        wb.step { name = "s", needs = { "face.yaw" }, update = function(self, m, ctx)
          ctx.hnit("x")
        end },
      } }
      """)
    var script = FrameScript()
    script.add(3) { _ in yaw(0) }
    let record = try run(fixture, script)
    #expect(record.result?.reason == "script_error")
    let text = record.result?.error ?? ""
    #expect(text.contains("flow.lua:4: ctx.hnit does not exist: did you mean ctx.hint?"), "\(text)")
  }

  @Test("a step may keep its own values in ctx")
  func ownValuesInContext() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        wb.step { name = "s", needs = { "face.yaw" }, update = function(self, m, ctx)
          ctx.seen = (rawget(ctx, "seen") or 0) + 1
          if ctx.seen == 3 then return true end
        end },
      } }
      """)
    var script = FrameScript()
    script.add(5) { _ in yaw(0) }
    #expect(try run(fixture, script).result?.reason == "passed")
  }

  @Test("a key missing from the fallback language is an error; from another, a warning (an error with --strict)")
  func fallbackLanguage() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        wb.threshold { field = "face.yaw", above = 10, hint = "nod.prompt" },
      } }
      """, messages: ["en": ["nod.prompt": "Nod"]])
    let report = try FlowChecker.check(fixture.options(), logger: testLogger)
    #expect(report.problems.isEmpty, "\(report.problems)")
    let warning = try #require(report.warnings.first { $0.message.contains("nod.prompt") })
    #expect(warning.message.contains("missing from the 'zh-HK' catalog: a run in 'zh-HK' shows the 'en' text"))
    #expect(warning.help?.contains("messages/zh-HK.json beside the flow") == true, "\(warning)")
    let strict = try FlowChecker.check(fixture.options(), strict: true, logger: testLogger)
    #expect(strict.problems.contains { $0.message.contains("nod.prompt") })

    let english = try FlowChecker.check(fixture.options(set: ["messages.fallback=zh-HK"]), logger: testLogger)
    #expect(english.problems.contains { $0.message == "message key 'nod.prompt' is missing from the 'zh-HK' catalog" })
  }

  @Test("a language with no catalog points to a catalog beside the flow")
  func catalogBesideTheFlow() throws {
    let fixture = try FlowFixture(RunnerTests.twoTurns.replacingOccurrences(of: "%@", with: ""))
    let report = try FlowChecker.check(fixture.options(language: "fr"), logger: testLogger)
    let problem = try #require(report.problems.first { $0.message.contains("messages.language") })
    #expect(problem.help?.contains("flow/messages/fr.json beside the flow") == true, "\(problem)")
    #expect(problem.help?.contains("configs/messages") == false)
  }

  @Test("a step with no timeout in a flow with no time limit is a warning; with either, none")
  func endless() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", time_limit = 0, steps = {
        wb.threshold { field = "face.yaw", above = 10 },
      } }
      """)
    let report = try FlowChecker.check(fixture.options(set: ["flow.step_timeout=0"]), logger: testLogger)
    #expect(report.warnings.contains { $0.message.contains("can wait for ever") && $0.location?.line == 3 })
    let bounded = try FlowChecker.check(fixture.options(), logger: testLogger)
    #expect(!bounded.warnings.contains { $0.message.contains("can wait for ever") })
  }
}

/// A number test that meets another type in a frame says so at the flow's line.
@Suite("Steps: values of another type")
struct WrongTypeTests {
  @Test(
    "wb.threshold, wb.range and wb.guard on a boolean fail at the flow's line, naming the field",
    arguments: [
      ("wb.threshold { field = \"face.pitch\", above = 10 }", "wb.threshold"),
      ("wb.range { field = \"face.pitch\", min = 0, max = 1 }", "wb.range"),
    ])
  func wrongType(step: String, kind: String) throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        \(step),
      } }
      """)
    var script = FrameScript()
    script.add(3) { _ in ["face.pitch": .bool(false)] }
    let record = try run(fixture, script)
    #expect(record.result?.reason == "script_error")
    let error = record.result?.error ?? ""
    #expect(
      error.contains("flow.lua:3: \(kind): 'face.pitch' is a boolean (false) in this frame, not a number"), "\(error)")
    #expect(!error.contains("plugins/wb"), "\(error)")
  }

  @Test("a guard on a string fails at its line")
  func guardOnAString() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        wb.threshold { field = "face.yaw", above = 10 },
      }, watch = {
        wb.guard { reason = "gone", field = "card.size_ratio", below = 0.2 },
      } }
      """)
    var script = FrameScript()
    script.add(3) { _ in ["face.yaw": .number(0), "card.size_ratio": .string("far")] }
    let error = try run(fixture, script).result?.error ?? ""
    #expect(
      error.contains("flow.lua:5: wb.guard: 'card.size_ratio' is a string (far) in this frame, not a number"),
      "\(error)")
  }
}

/// What a step tests by name is in its `started` event, and a watcher's in
/// the `session` event, so that a report draws the flow's own lines.
@Suite("Events: thresholds")
struct ThresholdEventTests {
  @Test("wb.threshold, wb.range, a sequence's sub-steps and a watcher say what they test")
  func thresholdsInEvents() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = {
        wb.range { name = "front", field = "face.yaw", min = -5, max = 5 },
        wb.sequence { name = "two ranges",
          wb.range { field = "face.yaw", min = -5, max = 5 },
          wb.range { field = "face.yaw", min = -20, max = 20 },
        },
        wb.sequence { name = "nod",
          wb.threshold { field = "face.pitch", below = -15 },
          wb.threshold { field = "face.pitch", above = 0 },
        },
        wb.step { name = "plain", needs = { "face.yaw" }, update = function() return true end },
      }, watch = {
        wb.alert { status = "TURNED", field = "face.yaw", above = 40 },
      } }
      """)
    var script = FrameScript()
    script.add(3) { _ in ["face.yaw": .number(0), "face.pitch": .number(-20)] }
    script.add(3) { _ in ["face.yaw": .number(0), "face.pitch": .number(5)] }
    let record = try run(fixture, script)
    let started = record.events("step").filter { $0["state"]?.stringValue == "started" }
    func thresholds(_ name: String) -> String? {
      started.first { $0["name"]?.stringValue == name }?["thresholds"]?.jsonText
    }
    #expect(thresholds("front") == #"[{"field":"face.yaw","min":-5,"max":5}]"#)
    #expect(thresholds("nod") == #"[{"field":"face.pitch","below":-15,"above":0}]"#)
    #expect(thresholds("plain") == nil)
    #expect(
      thresholds("two ranges") == #"[{"field":"face.yaw","min":-5,"max":5},{"field":"face.yaw","min":-20,"max":20}]"#)
    let session = try #require(record.events("session").first)
    #expect(session["thresholds"]?.jsonText == #"[{"field":"face.yaw","above":40,"watcher":"TURNED"}]"#)
  }
}
