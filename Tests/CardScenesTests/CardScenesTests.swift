import Capture
import CardGeometry
import CardScenes
import Diagnostics
import Foundation
import Imaging
import JSONCore
import TestSupport
import Testing

@Suite struct CardScheduleTests {
  let camera = PinholeCamera(width: 640, height: 360)

  @Test func interpolatesBetweenKeyframes() {
    let schedule = CardSchedule(
      keyframes: [CardKeyframe(t: 0), CardKeyframe(t: 2, tiltY: 40, glare: 1)], interpolation: .linear)
    let middle = schedule.state(at: 1, camera: camera)
    #expect(abs(middle.pose.tiltY - 20) < 1e-9)
    #expect(abs(middle.glare - 0.5) < 1e-9)
    let eased = CardSchedule(keyframes: schedule.keyframes, interpolation: .smoothstep)
    #expect(abs(eased.state(at: 0.5, camera: camera).pose.tiltY - 40 * 0.15625) < 1e-9)
    // Before the first and after the last keyframe the ends hold.
    #expect(schedule.state(at: 5, camera: camera).pose.tiltY == 40)
  }

  @Test func widthRatioSetsTheDepth() {
    let schedule = CardSchedule(keyframes: [CardKeyframe(t: 0, distance: .widthRatio(0.5))])
    let state = schedule.state(at: 0, camera: camera)
    let corners = state.pose.projectedCorners(camera: camera)
    #expect(abs(corners[1].x - corners[0].x - 320) < 1e-6)
  }

  @Test func parsesAFileWithInheritedValues() throws {
    let schedule = try CardSchedule.parse(
      """
      {"interpolation": "linear", "noise": 0,
       "keyframes": [
         {"t": 0, "width_ratio": 0.4, "tilt_x": 10},
         {"t": 1, "tilt_y": 30},
         {"t": 2, "visible": false}
       ]}
      """)
    #expect(schedule.keyframes.count == 3)
    #expect(schedule.keyframes[1].tiltX == 10)
    #expect(schedule.keyframes[2].tiltY == 30)
    #expect(schedule.keyframes[2].distance == .widthRatio(0.4))
    #expect(!schedule.keyframes[2].visible)
    #expect(schedule.interpolation == .linear)
  }

  @Test func anUnknownKeyIsNamedWithItsLine() {
    let text = """
      {"keyframes": [
        {"t": 0},
        {"t": 1,
         "tilt_z": 30}
      ]}
      """
    #expect {
      try CardSchedule.parse(text, file: "s.json")
    } throws: { error in
      guard let error = error as? WorkbenchError, let diagnostic = error.diagnostics.first else { return false }
      return diagnostic.location == SourceLocation(file: "s.json", line: 4, key: "keyframes[1].tilt_z")
        && diagnostic.help == "did you mean 'tilt_x'?"
    }
  }

  @Test func aWrongTypeIsNamedAtItsKeyframe() {
    let text = """
      {"keyframes": [
        {"t": 0, "tilt_y": 0},
        {"t": 1, "tilt_y": 0},
        {"t": 2, "tilt_y": "left"}
      ]}
      """
    #expect {
      try CardSchedule.parse(text, file: "s.json")
    } throws: { error in
      guard let error = error as? WorkbenchError, let diagnostic = error.diagnostics.first else { return false }
      return diagnostic.location?.line == 4 && diagnostic.location?.key == "keyframes[2].tilt_y"
        && diagnostic.message.contains("number")
    }
  }

  @Test func aSyntaxErrorHasItsLine() {
    #expect {
      try CardSchedule.parse("{\"keyframes\": [\n  {\"t\": 0,}\n]}", file: "s.json")
    } throws: { error in
      (error as? WorkbenchError)?.diagnostics.first?.location?.line == 2
    }
  }

  @Test func timesMustIncrease() {
    #expect(throws: WorkbenchError.self) {
      try CardSchedule.parse("{\"keyframes\": [{\"t\": 1}, {\"t\": 1}]}")
    }
  }

  @Test func theExampleSchedulesParse() throws {
    let folder = packageRoot() + "/examples/synth"
    // The card scenes; face-*.json are face scenes (FaceScenesTests reads them).
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
      $0.hasSuffix(".json") && !$0.hasPrefix("face-")
    }
    #expect(names.count >= 7)
    for name in names {
      let schedule = try CardSchedule.load(path: folder + "/" + name)
      #expect(schedule.length > 0, "\(name)")
    }
  }
}

@Suite struct CardRendererTests {
  /// A flat background, so that the card's outline is easy to find.
  func flatRenderer(width: Int = 640, height: Int = 360) -> CardRenderer {
    let background = ImageBuffer(width: width, height: height, format: .rgb8)
    background.bytes.update(repeating: 40)
    return CardRenderer(camera: PinholeCamera(width: width, height: height), background: background)
  }

  /// The first and last columns of row `y` brighter than `level`.
  func span(_ image: ImageBuffer, row y: Int, level: UInt8 = 120) -> (Int, Int)? {
    var first: Int?
    var last: Int?
    for x in 0..<image.width where image.pixels[(y * image.width + x) * 3] > level {
      if first == nil { first = x }
      last = x
    }
    guard let first, let last else { return nil }
    return (first, last)
  }

  @Test func theDrawnCardSitsOnTheProjectedCorners() throws {
    let renderer = flatRenderer()
    for (tiltY, roll) in [(0.0, 0.0), (35, 0), (-30, 8)] {
      let state = CardSceneState(
        pose: CardPose(tiltY: tiltY, roll: roll, translation: Vector3(0, 0, 250)))
      let image = renderer.render([state])
      let corners = state.pose.projectedCorners(camera: renderer.camera)
      // Along the row through the card's centre, the card starts and ends
      // where the left and right sides cross that row.
      let y = 180
      let left = try #require(Line(corners[3], corners[0]).x(atY: Double(y)))
      let right = try #require(Line(corners[1], corners[2]).x(atY: Double(y)))
      let (first, last) = try #require(span(image, row: y))
      #expect(abs(Double(first) - left) <= 1.0, "tilt_y \(tiltY)")
      #expect(abs(Double(last) - right) <= 1.0, "tilt_y \(tiltY)")
    }
  }

  @Test func glareBrightensAndSaturatesTheCard() {
    let renderer = flatRenderer()
    let pose = CardPose(translation: Vector3(0, 0, 200))
    let plain = renderer.render([CardSceneState(pose: pose)]).copy()
    let glared = renderer.render([CardSceneState(pose: pose, glare: 1, glareX: 0.5, glareY: 0.5)])
    func saturated(_ image: ImageBuffer) -> Int { image.bytes.reduce(0) { $0 + ($1 == 255 ? 1 : 0) } }
    #expect(saturated(plain) == 0)
    #expect(saturated(glared) > 1000)
  }

  @Test func motionBlurSmearsTheEdges() throws {
    let renderer = flatRenderer()
    let still = CardSceneState(pose: CardPose(translation: Vector3(0, 0, 250)))
    var moved = still
    moved.pose.translation.x = 12
    let sharp = renderer.render([still]).copy()
    let samples = (0...12).map { i -> CardSceneState in
      var state = still
      state.pose.translation.x = Double(i)
      return state
    }
    let blurred = renderer.render(samples)
    // Pixels strictly between dark and light along the centre row.
    func midTones(_ image: ImageBuffer) -> Int {
      (0..<image.width).filter {
        let value = image.pixels[(180 * image.width + $0) * 3]
        return value > 60 && value < 180
      }.count
    }
    #expect(midTones(blurred) > midTones(sharp) + 10)
  }

  @Test func aHiddenCardDrawsNothing() {
    let renderer = flatRenderer()
    let image = renderer.render([CardSceneState(pose: CardPose(translation: Vector3(0, 0, 200)), visible: false)])
    #expect(image.bytes.allSatisfy { $0 == 40 })
  }

  @Test func backgroundsAreRepeatable() {
    let a = SceneBackground.make(width: 160, height: 90, seed: 3)
    let b = SceneBackground.make(width: 160, height: 90, seed: 3)
    let c = SceneBackground.make(width: 160, height: 90, seed: 4)
    #expect(Array(a.bytes) == Array(b.bytes))
    #expect(Array(a.bytes) != Array(c.bytes))
  }
}

/// A line through two points, to find where it crosses a row.
struct Line {
  var a: Point2
  var b: Point2
  init(_ a: Point2, _ b: Point2) {
    self.a = a
    self.b = b
  }
  func x(atY y: Double) -> Double? {
    guard abs(b.y - a.y) > 1e-9 else { return nil }
    return a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y)
  }
}

@Suite struct CardSceneRecordingTests {
  @Test func writesARecordingThatReadsBackWithItsTruth() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let schedule = CardSchedule(
      keyframes: [CardKeyframe(t: 0, distance: .widthRatio(0.5)), CardKeyframe(t: 0.5, tiltY: 30)])
    let options = CardSceneOptions(width: 320, height: 180, fps: 10, seed: 2)
    let scene = CardScene(schedule: schedule, options: options)
    let path = folder.file("flip.avi")
    let frames = try scene.write(to: path)
    #expect(frames == 6)
    #expect(folder.listing == ["flip.avi", "flip.avi.timestamps.jsonl", "flip.avi.truth.jsonl"])

    let source = try RecordingSource.open(path: path)
    defer { source.close() }
    #expect(source.info.width == 320)
    let decoder = JPEGDecoder()
    let image = ImageBuffer(format: .gray8)
    var times: [Double] = []
    while let frame = try source.next() {
      guard case .jpeg(let bytes) = frame.payload else {
        Issue.record("frame \(frame.index) is not a JPEG")
        continue
      }
      try decoder.decode(bytes, into: image, format: .gray8)
      #expect(image.width == 320 && image.height == 180)
      times.append(frame.t)
    }
    #expect(times.count == 6)
    #expect(abs(times[5] - 0.5) < 1e-9)

    let lines = try String(contentsOfFile: CardScene.truthPath(forRecording: path), encoding: .utf8)
      .split(separator: "\n")
    #expect(lines.count == 7)
    let header = try JSONParser.parse(String(lines[0]))
    #expect(header["workbench_card_truth"]?.integerValue == 1)
    let last = try JSONParser.parse(String(lines[6]))
    #expect(last["index"]?.integerValue == 5)
    #expect(abs((last["tilt_y"]?.doubleValue ?? 0) - 30) < 1e-6)
    let corners = try #require(last["corners"]?.arrayValue)
    #expect(corners.count == 4)
    let truth = scene.truth(frame: 5)
    #expect(abs((corners[2].arrayValue?[0].doubleValue ?? 0) - truth.corners[2].x) < 0.01)
    #expect(last["visible"]?.boolValue == true)
  }
}
