import FaceEstimation
import Settings
import Testing

@Suite("Face estimator settings")
struct FaceSettingsTests {
  /// Every declaration at its default, with `overrides` applied.
  func resolved(_ overrides: [String: SettingValue]) -> ResolvedSettings {
    ResolvedSettings(
      FaceEstimators.settingDeclarations.map { declaration in
        ResolvedSetting(
          declaration: declaration, value: overrides[declaration.key] ?? declaration.defaultValue,
          source: overrides[declaration.key] == nil ? .builtin : .commandLine)
      })
  }

  @Test("the declarations have valid keys under face.")
  func declarations() {
    for declaration in FaceEstimators.settingDeclarations {
      #expect(SettingDeclaration.isValidKey(declaration.key))
      #expect(declaration.key.hasPrefix("face."))
    }
  }

  @Test("the defaults give the defaults of the backend")
  func defaults() {
    let options = FaceEstimators.options(home: "/opt/wb", settings: resolved([:]), environment: [:])
    #expect(options.backend.libraryPath == "/opt/wb/third_party/mediapipe/libmediapipe.so")
    #expect(options.backend.maxFaces == 5)
    #expect(options.backend.searchTiles == 0)
    #expect(options.mirror == false)
    #expect(options.fullResolution == false)
    #expect(FaceEstimator(options: options).descriptor.workingWidth == 640, "frames may be scaled to 640 wide")
  }

  @Test("face.full_resolution: the estimator asks for frames at the size captured")
  func fullResolution() {
    let options = FaceEstimators.options(
      home: "/opt/wb", settings: resolved(["face.full_resolution": .boolean(true)]), environment: [:])
    #expect(options.fullResolution)
    #expect(FaceEstimator(options: options).descriptor.workingWidth == nil)
  }

  @Test("settings win over the environment; every option is read")
  func overrides() throws {
    let settings = resolved([
      "face.library": .string("/a/lib.so"), "face.model": .string("/b/m.task"), "face.max_faces": .integer(2),
      "face.min_detection_confidence": .number(0.3), "face.tile_search": .string("3x3"), "face.mirror": .boolean(true),
    ])
    let options = FaceEstimators.options(
      home: "/opt/wb", settings: settings, environment: [FaceEstimators.libraryVariable: "/env/lib.so"])
    #expect(options.backend.libraryPath == "/a/lib.so")
    #expect(options.backend.modelPath == "/b/m.task")
    #expect(options.backend.maxFaces == 2)
    #expect(options.backend.minDetectionConfidence == 0.3)
    #expect(options.backend.searchTiles == 3)
    #expect(options.mirror)
    let estimators = try FaceEstimators.make(
      home: WorkbenchHome(root: "/opt/wb", environment: [:]), settings: settings, environment: [:])
    #expect(estimators.map(\.descriptor.name) == ["face.mediapipe"])
  }
}
