import Estimators
import FaceEstimation
import FaceEstimationTesting
import Foundation
import Imaging
import Measurements
import Settings
import TestSupport
import Testing

@Suite(
  "Face estimator on real faces (MediaPipe)", .serialized, .requires(FaceBackendInstall.requirement))
struct FaceEstimatorTests {
  @Test("one frontal face on obama and biden, with a plausible pose, eyes and box", arguments: ["obama", "biden"])
  func frontalFace(name: String) throws {
    let image = try FaceFixtures.color("frames/\(name)-480.jpg")
    let run = try FaceRun()
    let m = try run.measure(image)
    #expect(m["face.count"] == 1)
    let yaw = try #require(m["face.yaw"])
    let pitch = try #require(m["face.pitch"])
    let roll = try #require(m["face.roll"])
    #expect(abs(yaw) < 20)
    #expect(abs(pitch) < 20)
    #expect(abs(roll) < 15)
    let x = try #require(m["face.box.x"])
    let y = try #require(m["face.box.y"])
    let w = try #require(m["face.box.w"])
    let h = try #require(m["face.box.h"])
    #expect(x >= 0 && y >= 0 && x + w <= Double(image.width) && y + h <= Double(image.height))
    #expect(w > 100 && h > 100)
    #expect((0.2...1).contains(try #require(m["face.size"])))
    #expect(try #require(m["face.border_distance"]) > 0)
    for eye in ["left", "right"] {
      #expect((0.18...0.5).contains(try #require(m["face.ear_\(eye)"])), "eye aspect ratio of the open \(eye) eye")
      #expect(try #require(m["face.blink_\(eye)"]) < 0.5, "blink score of the open \(eye) eye")
    }
    for kind in QualityKind.allCases {
      #expect((0...1).contains(try #require(m["face.quality.\(kind.rawValue)"])))
    }
    // The most prominent face is also face.faces.1.
    #expect(m["face.faces.1.yaw"] == yaw)
    #expect(m["face.faces.2.yaw"] == nil)
    // The mesh stays available in Swift; the person's right eye is on the image's left.
    let face = try #require(run.estimator.faces.first)
    #expect(face.landmarks.count == FaceMesh.pointCount)
    #expect(face.landmarks[33].x < face.landmarks[263].x)
  }

  @Test("the signs of yaw and roll follow the nose and the eye line on biden")
  func yawSign() throws {
    let run = try FaceRun()
    let m = try run.measure(try FaceFixtures.color("frames/biden-480.jpg"))
    let face = try #require(run.estimator.faces.first)
    let eyesMiddle = (face.landmarks[33].x + face.landmarks[263].x) / 2
    let noseOffset = face.landmarks[FaceMesh.noseTip].x - eyesMiddle
    let yaw = try #require(m["face.yaw"])
    #expect(abs(yaw) > 3)
    #expect((yaw > 0) == (noseOffset > 0), "positive yaw: the person's own left, the image's right")
    // He also tilts his head toward his left shoulder: his left eye (image right) sits lower.
    let roll = try #require(m["face.roll"])
    #expect(abs(roll) > 3)
    #expect((roll > 0) == (face.landmarks[263].y > face.landmarks[33].y), "positive roll: toward the left shoulder")
  }

  @Test("a mirrored image flips the sign of yaw and roll; the mirror option flips them back and swaps the eyes")
  func mirroring() throws {
    let image = try FaceFixtures.color("frames/biden-480.jpg")
    let flipped = FaceFixtures.mirrored(image)
    let plain = try FaceRun().measure(image)
    let mirroredImage = try FaceRun().measure(flipped)
    let yaw = try #require(plain["face.yaw"])
    let mirroredYaw = try #require(mirroredImage["face.yaw"])
    #expect(abs(yaw) > 3)
    #expect(yaw * mirroredYaw < 0)
    #expect(abs(yaw + mirroredYaw) < 4)
    let roll = try #require(plain["face.roll"])
    #expect(abs(roll + (try #require(mirroredImage["face.roll"]))) < 4)

    let withOption = try FaceRun(mirror: true).measure(flipped)
    let optionYaw = try #require(withOption["face.yaw"])
    #expect(abs(optionYaw - yaw) < 4)
    #expect(withOption["face.ear_left"] == mirroredImage["face.ear_right"])
    #expect(withOption["face.blink_left"] == mirroredImage["face.blink_right"])
  }

  @Test("multi_face: at least four of its five faces with the tile search, largest first")
  func multipleFaces() throws {
    let image = try FaceFixtures.color("faces/multi_face.jpg")
    let run = try FaceRun(tiles: 2)
    let m = try run.measure(image)
    let count = try #require(m["face.count"])
    #expect(count >= 4)
    #expect(m["face.faces.4.box.w"] != nil)
    let areas = run.estimator.faces.map(\.box.area)
    #expect(areas == areas.sorted(by: >))
    #expect(m["face.box.w"] == m["face.faces.1.box.w"])
    // The boxes are distinct faces.
    let boxes = run.estimator.faces.map(\.box)
    for i in boxes.indices {
      for j in boxes.indices where j > i { #expect(boxes[i].overlap(boxes[j]) < 0.3) }
    }
  }

  @Test("frames without a face give face.count 0 and no other face measurement")
  func noFace() throws {
    let blank = ImageBuffer(width: 640, height: 480, format: .rgb8)
    blank.bytes.update(repeating: 128)
    // The sky and sea right of the group in multi_face: a real photo with no face in it.
    let photo = try FaceFixtures.color("faces/multi_face.jpg")
    let sky = ImageBuffer(format: .rgb8)
    try ImageConversion.crop(photo, x: 560, y: 0, width: 440, height: 250, into: sky)
    let run = try FaceRun()
    for (index, image) in [blank, sky].enumerated() {
      let m = try run.measure(image, index: Int64(index), t: Double(index) / 30)
      #expect(m["face.count"] == 0)
      #expect(m["face.yaw"] == nil)
      #expect(m["face.box.x"] == nil)
      #expect(run.estimator.faces.isEmpty)
    }
  }

  @Test("the blink in the video: eyes closed at frames 26-28, and nowhere outside 24-30")
  func blinkVideo() throws {
    let run = try FaceRun()
    var closed: [Int] = []
    var missing: [Int] = []
    for (index, file) in try FaceFixtures.blinkFrames().enumerated() {
      let m = try run.measure(try FaceFixtures.color(file), index: Int64(index), t: Double(index) / 30)
      guard m["face.count"] == 1, let blinkLeft = m["face.blink_left"], let blinkRight = m["face.blink_right"],
        let earLeft = m["face.ear_left"], let earRight = m["face.ear_right"]
      else {
        missing.append(index)
        continue
      }
      let blendshapesClosed = blinkLeft > 0.5 && blinkRight > 0.5
      let landmarksClosed = (earLeft + earRight) / 2 < 0.2
      if blendshapesClosed || landmarksClosed { closed.append(index) }
    }
    #expect(missing.isEmpty, "frames without exactly one face: \(missing)")
    #expect(Set([26, 27, 28]).isSubset(of: Set(closed)), "closed frames: \(closed)")
    #expect(closed.allSatisfy { (24...30).contains($0) }, "closed frames: \(closed)")
  }

  @Test("a frame decoded at half size still reports the box in pixels of the frame as captured")
  func scaledDecode() throws {
    let image = try FaceFixtures.color("frames/obama-480.jpg")
    let full = try FaceRun().measure(image)
    let half = ImageBuffer(format: .rgb8)
    try ImageConversion.resize(image, width: image.width / 2, height: image.height / 2, into: half)
    let frame = try FaceFixtures.frame(half)
    frame.sourceWidth = image.width
    frame.sourceHeight = image.height
    let run = try FaceRun()
    var measurements = MeasurementFrame(t: 0, index: 0)
    run.estimator.estimate(frame, into: &measurements)
    func value(_ path: String) -> Double? {
      if case .number(let number) = measurements[run.schema.lookup(path: path) ?? -1] { return number }
      return nil
    }
    for field in ["box.x", "box.y", "box.w", "box.h"] {
      let expected = try #require(full["face.\(field)"])
      let scaled = try #require(value("face.\(field)"))
      #expect(abs(scaled - expected) < 0.05 * Double(image.width), "face.\(field)")
    }
    #expect(abs(try #require(value("face.size")) - (try #require(full["face.size"]))) < 0.03)
  }

  @Test("a frame whose timestamp does not grow is still measured (video mode needs growing timestamps)")
  func repeatedTimestamp() throws {
    let image = try FaceFixtures.color("frames/obama-480.jpg")
    let run = try FaceRun()
    for index in 0..<3 {
      let m = try run.measure(image, index: Int64(index), t: 0)
      #expect(m["face.count"] == 1)
    }
  }

  @Test("image mode (tracksFaces off): unrelated images, timestamps ignored, each searched on its own")
  func imageMode() throws {
    var options = FaceBackendInstall.options.backend
    options.tracksFaces = false
    let backend = try MediaPipeFaceBackend(options: options)
    var faces = FaceDetections()
    for name in ["obama", "biden", "obama"] {
      let image = try FaceFixtures.color("frames/\(name)-480.jpg")
      try backend.detect(image, timestampMilliseconds: 0, into: &faces)
      #expect(faces.count == 1, "\(name)")
      let box = FaceGeometry.box(of: faces.valid.first?.landmarks ?? [])
      #expect(box.width > 0.15 * Double(image.width), "\(name): \(box)")
    }
  }

  @Test("a model path that is not a model: a clear error naming the file")
  func wrongModel() throws {
    var options = FaceBackendInstall.options
    options.backend.modelPath = FaceFixtures.folder + "/faces/astronaut.jpg"
    let estimator = FaceEstimator(options: options)
    let error = try #require(throws: EstimatorError.self) { try estimator.prepare(schema: MeasurementSchema()) }
    #expect(error.estimator == "face.mediapipe")
    #expect(error.message.contains("astronaut.jpg"))
    #expect(error.message.contains("cannot start the Face Landmarker"))
  }
}

@Suite("Face estimator without its backend")
struct FaceBackendMissingTests {
  @Test("library missing: the error names the command that installs it")
  func libraryMissing() throws {
    let estimators = try FaceEstimators.make(
      home: WorkbenchHome(root: "/nonexistent-workbench"),
      environment: [FaceEstimators.libraryVariable: "/nonexistent/libmediapipe.so"])
    let estimator = try #require(estimators.first)
    #expect(estimator.descriptor.name == "face.mediapipe")
    #expect(estimator.descriptor.image == .color)
    let error = try #require(throws: EstimatorError.self) { try estimator.prepare(schema: MeasurementSchema()) }
    #expect(error.message.contains("/nonexistent/libmediapipe.so"))
    #expect(error.help?.contains("scripts/install-face-backend") == true)
  }

  @Test("a file that is not a shared library: the loader's reason and the install command")
  func libraryBroken() throws {
    let environment = [FaceEstimators.libraryVariable: FaceFixtures.folder + "/faces/astronaut.jpg"]
    let estimator = try #require(
      try FaceEstimators.make(home: WorkbenchHome(root: "/nonexistent"), environment: environment).first)
    let error = try #require(throws: EstimatorError.self) { try estimator.prepare(schema: MeasurementSchema()) }
    #expect(error.message.contains("cannot load the MediaPipe library"))
    #expect(error.help?.contains("scripts/install-face-backend") == true)
  }

  @Test(
    "model missing: the error names the path and the install command", .requires(FaceBackendInstall.requirement))
  func modelMissing() throws {
    var options = FaceBackendInstall.options
    options.backend.modelPath = "/nonexistent/face_landmarker.task"
    let error = try #require(throws: EstimatorError.self) {
      try FaceEstimator(options: options).prepare(schema: MeasurementSchema())
    }
    #expect(error.message.contains("/nonexistent/face_landmarker.task"))
    #expect(error.help?.contains("scripts/install-face-backend") == true)
  }

  @Test("paths: the environment over the workbench folder")
  func locations() {
    let plain = FaceEstimators.options(home: "/opt/wb", environment: [:])
    #expect(plain.backend.libraryPath == "/opt/wb/third_party/mediapipe/libmediapipe.so")
    #expect(plain.backend.modelPath == "/opt/wb/models/face_landmarker.task")
    let overridden = FaceEstimators.options(
      home: "/opt/wb",
      environment: [FaceEstimators.libraryVariable: "/x/lib.so", FaceEstimators.modelVariable: "/y/model.task"])
    #expect(overridden.backend.libraryPath == "/x/lib.so")
    #expect(overridden.backend.modelPath == "/y/model.task")
  }

  @Test("a backend can be replaced: the estimator measures what any FaceBackend finds")
  func replaceableBackend() throws {
    var face = FaceObservation()
    face.landmarks = (0..<FaceMesh.pointCount).map { (index: Int) -> SIMD3<Float> in
      SIMD3(Float(100 + index % 100), Float(50 + index / 5), 0)
    }
    face.blendshapes = Array(repeating: 0, count: FaceBlendshape.allCases.count)
    face.blendshapes[FaceBlendshape.eyeBlinkLeft.rawValue] = 0.9
    face.transform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -50, 1]
    let estimator = FaceEstimator(options: FaceBackendInstall.options) { () throws(FaceBackendError) in
      ScriptedFaceBackend(name: "fake", everyImage: [.observation(face)])
    }
    let schema = MeasurementSchema()
    try estimator.prepare(schema: schema)
    let frame = try FaceFixtures.frame(ImageBuffer(width: 320, height: 240, format: .rgb8))
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    func value(_ path: String) -> MeasurementValue { measurements[schema.lookup(path: path) ?? -1] }
    #expect(value("face.count") == .integer(1))
    #expect(value("face.box.x") == .number(100))
    #expect(value("face.box.w") == .number(99))
    #expect(value("face.yaw") == .number(0))
    #expect(value("face.blink_left") == .number(0.9))
    #expect(value("face.faces.1.blink_left") == .number(0.9))
  }
}
