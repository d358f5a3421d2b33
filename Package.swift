// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "workbench",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "workbench", targets: ["workbench"]),
    .executable(name: "workbench-bench", targets: ["workbench-bench"]),
    .executable(name: "workbench-fuzz", targets: ["workbench-fuzz"]),
    .executable(name: "workbench-allocations", targets: ["workbench-allocations"]),
    // The example estimator plugin (installed into plugins/ by scripts/build-plugins).
    .library(name: "WorkbenchContrastPlugin", type: .dynamic, targets: ["WorkbenchContrastPlugin"]),
    // The example analytics sink plugin (--analytics csv:FILE), installed by scripts/build-plugins.
    .library(name: "WorkbenchCSVAnalyticsPlugin", type: .dynamic, targets: ["WorkbenchCSVAnalyticsPlugin"]),
    // A plugin with a wrong ABI version, for the loader's tests.
    .library(name: "WorkbenchWrongABITestPlugin", type: .dynamic, targets: ["WorkbenchWrongABITestPlugin"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
    .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    // Used directly by LicenseActivation; the versions Hummingbird and AsyncHTTPClient resolve to.
    .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
    // The activation server's /v1/metrics (Prometheus text format), with a registry of its own per
    // server; it brings swift-metrics 2.13.0.
    .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    // The TLS of a shared gallery's connection (sslmode): the version PostgresNIO resolves to.
    .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
  ],
  targets: [
    // Lua 5.4 from the system (Debian liblua5.4-dev).
    .systemLibrary(
      name: "CLua", pkgConfig: "lua5.4",
      providers: [.apt(["liblua5.4-dev"])]),
    // Ctrl-C and SIGTERM as a flag, read by the frame loop and by the Lua count hook.
    .target(name: "CInterrupts"),
    .target(name: "Interrupts", dependencies: ["CInterrupts"]),
    // The C side of the Lua boundary: sandbox, limits, errors, table fill.
    .target(name: "CLuaShim", dependencies: ["CLua", "CInterrupts"]),
    // libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev).
    .systemLibrary(
      name: "CTurboJPEG", pkgConfig: "libturbojpeg",
      providers: [.apt(["libturbojpeg0-dev"])]),
    // libv4l2 (Debian libv4l-dev) behind a small C shim: its calls are variadic.
    .target(name: "CV4L2", linkerSettings: [.linkedLibrary("v4l2")]),
    .target(name: "JSONCore", dependencies: ["Diagnostics"]),
    // Files written whole or not at all (AtomicFile): temporary name, sync, rename.
    .target(name: "FileSystem"),
    .target(name: "Imaging", dependencies: ["CTurboJPEG"]),
    // FFmpeg's libavformat, libavcodec and libswscale (Debian 5.1) behind a small C shim: video
    // files of every container and codec the build reads. docs/inputs.md. Opened on first use
    // (dlopen), not linked: they pull in a hundred libraries that cost every start-up 27 ms.
    .target(name: "CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
    .target(
      name: "Capture",
      dependencies: ["Imaging", "CV4L2", "CFFmpeg", "Diagnostics", "JSONCore", "Interrupts", "FileSystem"]),
    // A scripted V4L2 device behind Capture's ioctl seam: the camera code runs without a camera, in the
    // tests and in the kiosk soak of workbench-bench.
    .target(name: "SimulatedCamera", dependencies: ["Capture", "CV4L2"]),
    // The C ABI of estimator plugins: one header, docs/plugins.md.
    .target(name: "WorkbenchPluginABI"),
    .target(
      name: "Estimators", dependencies: ["Imaging", "Measurements", "Diagnostics", "JSONCore", "WorkbenchPluginABI"]),
    // The MediaPipe Tasks C API, declared in plain C and opened at run time
    // (dlopen): nothing links against libmediapipe.so. docs/face.md.
    .target(name: "CMediaPipe", linkerSettings: [.linkedLibrary("dl")]),
    // dlib's face-recognition network behind a C boundary (Debian libdlib-dev,
    // with OpenBLAS): C++ exceptions stop at the shim. docs/gallery.md.
    .target(
      name: "CFaceRecognition",
      linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("blas"), .linkedLibrary("lapack")]),
    // Presentation-attack models (ONNX) through OpenCV's DNN module (Debian libopencv-dnn-dev),
    // behind a C++ shim that stops every C++ exception. docs/liveness.md.
    .target(
      name: "CPresentationAttack",
      cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
      linkerSettings: [.linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_core")]),
    // A face's live probability from a model the user brings: crop, input, output.
    .target(
      name: "PresentationAttack",
      dependencies: [
        "CPresentationAttack", "Imaging", "FaceEstimation", "Estimators", "Measurements", "Settings",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // face.liveness from a liveness service (LUNA PLATFORM's /liveness), off the frame loop.
    .target(
      name: "LivenessService",
      dependencies: [
        "Estimators", "Imaging", "JSONCore", "Measurements", "Settings",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A malloc counter for the benchmarks that say a hot path allocates nothing (linked into the benchmarks and
    // the allocation check only).
    .target(name: "CAllocationCounter"),
    // Model-free cues of a real head: motion no head can make (a photo swap), planarity (a flat picture).
    .target(
      name: "MotionCues",
      dependencies: ["FaceEstimation", "Estimators", "Measurements", "Settings"]),
    // Face descriptors: the model, alignment from the face mesh, the estimator, still images.
    .target(
      name: "FaceRecognition",
      dependencies: [
        "CFaceRecognition", "FaceEstimation", "Estimators", "Imaging", "Measurements", "Settings", "Diagnostics",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Users, groups and their faces, in SQLite (GRDB) or PostgreSQL; 1:1 and 1:N search. docs/gallery.md.
    .target(
      name: "Gallery",
      dependencies: [
        "FaceRecognition", "JSONCore", "Diagnostics", "Imaging", "Settings",
        .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // The face estimator ("face.mediapipe") behind the FaceBackend protocol.
    .target(
      name: "FaceEstimation",
      dependencies: [
        "Estimators", "Imaging", "Measurements", "Settings", "CMediaPipe", "JSONCore",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .target(
      name: "WorkbenchCSVAnalyticsPlugin", dependencies: ["WorkbenchPluginABI"], path: "plugins/example-csv-analytics",
      publicHeadersPath: "."),
    .target(
      name: "WorkbenchContrastPlugin", dependencies: ["WorkbenchPluginABI"], path: "plugins/example-contrast",
      publicHeadersPath: ".", linkerSettings: [.linkedLibrary("m")]),
    .target(
      name: "WorkbenchWrongABITestPlugin", dependencies: ["WorkbenchPluginABI"],
      path: "Tests/Fixtures/plugins/wrong-abi",
      publicHeadersPath: "."),
    .target(
      name: "Diagnostics",
      dependencies: [.product(name: "Logging", package: "swift-log")]),
    .target(name: "Scripting", dependencies: ["CLuaShim", "JSONCore", "Diagnostics", "Measurements"]),
    // One seeded generator (SplitMix64) for step orders, QA faults and synthetic scenes.
    .target(name: "Randomness"),
    // ISO/IEC 30107-3 error rates' statistics: Clopper–Pearson intervals, DET curves, EER, operating points.
    // docs/eval.md.
    .target(name: "PADMetrics"),
    .target(name: "Settings", dependencies: ["JSONCore", "Diagnostics"]),
    .target(name: "Messages", dependencies: ["JSONCore", "Diagnostics"]),
    .target(name: "Measurements", dependencies: ["JSONCore", "Diagnostics"]),
    .target(name: "Reporting", dependencies: ["JSONCore", "Diagnostics", "Measurements", "FileSystem"]),
    // The session report: one self-contained HTML page of a run (docs/report.md).
    .target(name: "SessionReport", dependencies: ["JSONCore", "Diagnostics", "Reporting"]),
    // The page of `workbench eval`: ISO/IEC 30107-3 measures of a flow over a labelled corpus, in the
    // session report's look (its stylesheet and formatting).
    .target(name: "EvaluationReport", dependencies: ["JSONCore", "Diagnostics", "SessionReport"]),
    // License files (Ed25519-signed) and license.conf / vllicense.plist: docs/licensing.md.
    .target(
      name: "Licensing",
      dependencies: ["Diagnostics", "JSONCore", "FileSystem", .product(name: "Crypto", package: "swift-crypto")]),
    // Starting an HTTP server on an address and learning the port it listens on; which
    // addresses are loopback. Shared by the preview and the activation server.
    .target(
      name: "HTTPServing",
      dependencies: [
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A plain TCP client of a port on 127.0.0.1, byte by byte: for the servers' tests and bench.
    .target(name: "LoopbackClient"),
    // License activation over HTTP: the client (`license activate`) and the reference
    // activation server (`license serve`), kept out of Licensing: docs/licensing.md.
    .target(
      name: "LicenseActivation",
      dependencies: [
        "Licensing", "Diagnostics", "JSONCore", "HTTPServing",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ]),
    // Signed artifacts of a run (recording, captured images, timestamps) and their check.
    .target(
      name: "Integrity",
      dependencies: [
        "Diagnostics", "JSONCore", "Licensing", "FileSystem", .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // The analytics trace (Uqudo's SDK tracer): records from a run's events, to a file or an endpoint.
    .target(
      name: "Analytics",
      dependencies: [
        "Reporting", "JSONCore", "Diagnostics", "WorkbenchPluginABI",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    // QA scenarios: loading, fault injection, expectations, TAP and JUnit (docs/qa.md).
    .target(
      name: "Scenarios",
      dependencies: [
        "Session", "RunComposition", "Flows", "Scripting", "Capture", "Imaging", "Measurements", "Reporting",
        "Diagnostics", "JSONCore", "CardScenes", "FaceScenes", "Settings", "Licensing", "Randomness", "Gallery",
        "FileSystem",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // `workbench new`: a folder with a working flow from configs/templates/.
    .target(name: "Scaffold", dependencies: ["Diagnostics", "Settings", "JSONCore"]),
    // Synthetic face scenes: the face estimator's measurement trace from a keyframe schedule (docs/synth.md).
    .target(name: "FaceScenes", dependencies: ["Diagnostics", "JSONCore", "Randomness", "FileSystem"]),
    // ID-1 card geometry shared by the renderer and the estimator: pose, camera, homography, layout.
    .target(name: "CardGeometry"),
    // Synthetic card scenes: a card rendered over a table top from a keyframe schedule (docs/synth.md).
    .target(
      name: "CardScenes",
      dependencies: ["CardGeometry", "Imaging", "JSONCore", "Capture", "Diagnostics", "FileSystem", "Randomness"]),
    // The native ID-card estimator: detection, tracking, pose, glare, blur (docs/card.md).
    // With the card's run settings and what it gives captures (the rectified card, the portrait).
    .target(
      name: "CardEstimation",
      dependencies: [
        "CardGeometry", "Estimators", "Imaging", "Measurements", "Settings", "FaceEstimation", "JSONCore",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // The flow runtime: loading a flow into its Lua state, its host functions, running its steps.
    .target(
      name: "Flows",
      dependencies: [
        "Scripting", "Interrupts", "Settings", "Messages", "Measurements", "Reporting", "Diagnostics", "JSONCore",
        "Randomness",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // One run of a flow, and the one object that drives it: inputs, the estimator pipeline, outputs,
    // lifecycle. Which estimators exist and who the faces are is given to it (RunComposition).
    .target(
      name: "Session",
      dependencies: [
        "Flows", "Interrupts", "Settings", "Measurements", "Reporting", "Diagnostics", "JSONCore", "Imaging",
        "Capture", "Estimators", "Integrity", "Licensing", "CardGeometry",
        .product(name: "Logging", package: "swift-log"),
      ]),
    // A session with workbench's own parts: the estimators (face, card, recognition, plugins), the
    // gallery as the flows' identity, every run setting, the report and analytics outputs of `run`.
    .target(
      name: "RunComposition",
      dependencies: [
        "Session", "Flows", "Settings", "Measurements", "Reporting", "Diagnostics", "JSONCore", "Imaging", "Capture",
        "Estimators", "Licensing", "FaceEstimation", "CardEstimation", "Analytics", "SessionReport",
        "FaceRecognition", "Gallery", "PresentationAttack", "LivenessService", "MotionCues",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // `workbench doctor`: each part a run needs, checked as a run uses it, with what to do. docs/install.md.
    .target(
      name: "Doctor",
      dependencies: [
        "CLua", "Capture", "Diagnostics", "FaceEstimation", "FaceRecognition", "Flows", "JSONCore", "Licensing",
        "PresentationAttack", "RunComposition", "Settings",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // `workbench eval`: a flow over a labelled corpus, measured once into a cache and replayed per
    // settings point; ISO/IEC 30107-3 rates, shards and their merge. docs/eval.md.
    .target(
      name: "Evaluation",
      dependencies: [
        "RunComposition", "Session", "Flows", "Settings", "Measurements", "Reporting", "Diagnostics", "JSONCore",
        "Capture", "FileSystem", "Interrupts", "FaceScenes", "CardScenes", "PADMetrics", "EvaluationReport",
        "Randomness", .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // The live preview: the page, its HTTP API, the file watcher, the terminal's keys. docs/preview.md.
    .target(
      name: "Preview",
      dependencies: [
        "Session", "Flows", "Settings", "Reporting", "Measurements", "Capture", "Imaging", "JSONCore", "Diagnostics",
        "Interrupts", "HTTPServing",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(
      name: "workbench",
      dependencies: [
        "Session", "RunComposition", "Preview", "Flows", "Settings", "Diagnostics", "Reporting", "Estimators",
        "JSONCore", "Capture", "Licensing",
        "Integrity", "Scenarios", "LicenseActivation", "CardScenes", "FaceScenes", "Scaffold", "Analytics",
        "SessionReport",
        "Gallery", "FaceRecognition", "FaceEstimation", "FileSystem", "Evaluation", "Doctor",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // What the benchmarks share, and the allocation check of scripts/test: a run's hot path only,
    // so that its release build leaves out the servers and clients the other benchmarks link.
    .target(
      name: "BenchSupport",
      dependencies: [
        "Session", "Flows", "Settings", "Reporting", "Diagnostics", "JSONCore", "Capture", "Estimators",
        "FaceEstimation", "MotionCues", "CAllocationCounter",
        // Only for the settings they declare, which the bundled configs/settings.json sets.
        "CardEstimation", "FaceRecognition", "PresentationAttack",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(name: "workbench-allocations", dependencies: ["BenchSupport"]),
    .executableTarget(
      name: "workbench-bench",
      dependencies: [
        "Evaluation", "Session", "RunComposition", "Preview", "Flows", "Interrupts", "Measurements", "Reporting",
        "Diagnostics",
        "Imaging", "Capture", "Estimators",
        "FaceEstimation", "CardGeometry", "CardScenes", "CardEstimation", "Scenarios", "Randomness",
        "FaceRecognition", "Gallery", "JSONCore", "MotionCues", "PresentationAttack", "CAllocationCounter",
        "BenchSupport",
        // The soak streams from the scripted V4L2 device: there is no camera to soak with.
        "SimulatedCamera",
        // The server bench's clients.
        "LoopbackClient",
        .product(name: "Logging", package: "swift-log"),
      ]),

    // Every parser of a user's file or a peer's bytes as a fuzz target (docs/fuzzing.md).
    .target(
      name: "FuzzTargets",
      dependencies: [
        "Capture", "Diagnostics", "Imaging", "JSONCore", "LicenseActivation", "Licensing", "Measurements", "Messages",
        "Scenarios", "RunComposition", "Settings", "Randomness", "FaceScenes",
      ]),
    // libFuzzer's entry points when built by scripts/fuzz; otherwise a tool to list, seed and replay.
    .executableTarget(name: "workbench-fuzz", dependencies: ["FuzzTargets"]),
    // Helpers every test target shares (temporary folders, the package root, the built binary).
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // An HTTP server on loopback for the tests of HTTP clients.
    .target(
      name: "HTTPTestSupport",
      dependencies: [
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      path: "Tests/HTTPTestSupport"),

    // A frame source of in-memory frames, for tests.
    .target(name: "CaptureTesting", dependencies: ["Capture"], path: "Tests/CaptureTesting"),
    // A face backend that reports scripted faces, and where the real one is installed.
    .target(
      name: "FaceEstimationTesting", dependencies: ["FaceEstimation", "Imaging", "TestSupport"],
      path: "Tests/FaceEstimationTesting"),
    // A flow written to a temporary folder, loaded with the engine's settings and a double of the estimators'.
    .target(
      name: "FlowsTesting", dependencies: ["Flows", "Settings", "JSONCore", "TestSupport"], path: "Tests/FlowsTesting"),
    .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport"]),
    .testTarget(
      name: "LivenessServiceTests",
      dependencies: [
        "LivenessService", "Estimators", "Measurements", "Settings", "Imaging", "JSONCore", "TestSupport",
        "HTTPTestSupport", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    .testTarget(
      name: "PresentationAttackTests",
      dependencies: [
        "PresentationAttack", "FaceEstimation", "FaceEstimationTesting", "Estimators", "Measurements", "Settings",
        "Imaging", "TestSupport",
      ],
      exclude: ["make_models.py"]),
    .testTarget(
      name: "MotionCuesTests",
      dependencies: [
        "MotionCues", "FaceEstimation", "FaceEstimationTesting", "Estimators", "Measurements", "Imaging", "TestSupport",
      ]),
    .testTarget(name: "DoctorTests", dependencies: ["Doctor", "JSONCore", "Settings", "TestSupport"]),
    .testTarget(
      name: "CaptureTests", dependencies: ["Capture", "CFFmpeg", "SimulatedCamera", "Imaging", "TestSupport"]),
    .testTarget(name: "EstimatorsTests", dependencies: ["Estimators", "Imaging", "Measurements", "TestSupport"]),
    .testTarget(
      name: "FaceEstimationTests",
      dependencies: [
        "FaceEstimation", "CMediaPipe", "Estimators", "Imaging", "Measurements", "Settings", "TestSupport",
        "FaceEstimationTesting", .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "FaceRecognitionTests",
      dependencies: ["FaceRecognition", "FaceEstimation", "Imaging", "Estimators", "TestSupport"]),
    .testTarget(name: "GalleryTests", dependencies: ["Gallery", "FaceRecognition", "JSONCore", "TestSupport"]),
    .testTarget(name: "CardGeometryTests", dependencies: ["CardGeometry"]),
    .testTarget(
      name: "CardScenesTests", dependencies: ["CardScenes", "CardGeometry", "Capture", "Imaging", "TestSupport"]),
    .testTarget(
      name: "CardEstimationTests",
      dependencies: [
        "CardEstimation", "CardScenes", "CardGeometry", "Estimators", "Measurements", "Imaging", "TestSupport",
        "FaceEstimation", "Settings", "Randomness", "FaceEstimationTesting",
      ]),
    .testTarget(name: "RandomnessTests", dependencies: ["Randomness"]),
    .testTarget(name: "PADMetricsTests", dependencies: ["PADMetrics", "TestSupport", "Randomness"]),
    .testTarget(
      name: "EvaluationTests",
      dependencies: [
        "Evaluation", "RunComposition", "Session", "Flows", "Estimators", "JSONCore", "Diagnostics", "TestSupport",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "FaceScenesTests", dependencies: ["FaceScenes", "FaceEstimation", "JSONCore", "Diagnostics", "TestSupport"]),
    .testTarget(
      name: "SessionTests",
      dependencies: [
        "Session", "RunComposition", "Flows", "FlowsTesting", "Reporting", "TestSupport", "Capture", "CaptureTesting",
        "SimulatedCamera", "Estimators", "Imaging", "Measurements", "Diagnostics", "JSONCore", "Settings",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "TestSupport"]),
    .testTarget(name: "FileSystemTests", dependencies: ["FileSystem", "TestSupport"]),
    .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "TestSupport"]),
    .testTarget(
      name: "AnalyticsTests",
      dependencies: [
        "Analytics", "Reporting", "JSONCore", "TestSupport", "HTTPTestSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    .testTarget(
      name: "ScenariosTests",
      dependencies: [
        "Scenarios", "Capture", "CaptureTesting", "Imaging", "JSONCore", "Measurements", "TestSupport", "Diagnostics",
      ]),
    .testTarget(name: "ScriptingTests", dependencies: ["Scripting", "CLuaShim", "TestSupport"]),
    .testTarget(name: "SettingsTests", dependencies: ["Settings", "TestSupport"]),
    .testTarget(name: "MessagesTests", dependencies: ["Messages", "TestSupport"]),
    .testTarget(name: "MeasurementsTests", dependencies: ["Measurements", "TestSupport"]),
    .testTarget(name: "ReportingTests", dependencies: ["Reporting", "TestSupport"]),
    .testTarget(
      name: "SessionReportTests", dependencies: ["SessionReport", "JSONCore", "Diagnostics", "TestSupport"],
      exclude: ["Fixtures"]),
    .testTarget(
      name: "EvaluationReportTests", dependencies: ["EvaluationReport", "JSONCore", "TestSupport"]),
    .testTarget(name: "LicensingTests", dependencies: ["Licensing", "TestSupport"]),
    .testTarget(
      name: "HTTPServingTests",
      dependencies: [
        "HTTPServing", "LoopbackClient", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    .testTarget(
      name: "LicenseActivationTests",
      dependencies: [
        "LicenseActivation", "Licensing", "Diagnostics", "TestSupport", "HTTPTestSupport", "LoopbackClient",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "FlowsTests",
      dependencies: [
        "Flows", "FlowsTesting", "TestSupport", "Measurements", "Settings", "Reporting", "Diagnostics", "JSONCore",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "PreviewTests",
      dependencies: ["Preview", "Capture", "Measurements", "Diagnostics", "Reporting", "JSONCore"]),
    .testTarget(
      name: "IntegrityTests", dependencies: ["Integrity", "Licensing", "Diagnostics", "JSONCore", "TestSupport"]),
    .testTarget(name: "ScaffoldTests", dependencies: ["Scaffold", "Settings", "Diagnostics", "TestSupport"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "workbench", "Imaging", "Licensing", "TestSupport", "Gallery", "Capture", "Preview", "Session",
        "RunComposition", "LoopbackClient", "JSONCore", "FaceEstimationTesting", "HTTPTestSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
      ],
      exclude: ["Fixtures"]),
  ]
)
