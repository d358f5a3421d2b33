import CLua
import Capture
import Diagnostics
import FaceEstimation
import FaceRecognition
import Flows
import Foundation
import Licensing
import Logging
import PresentationAttack
import RunComposition
import Settings

/// `workbench doctor`: each part workbench needs, checked the way a run
/// uses it (the library loaded, the model's checksum, the license verified),
/// with what to do about each that is missing. Every check stands alone, so
/// that doctor reports the rest when one part is broken.
public struct Doctor {
  public var home: WorkbenchHome
  public var environment: [String: String]
  public var now: Date
  /// The video nodes to look at (nil: every /dev/video*) and how to open them.
  public var devicePaths: [String]?
  public var device: any V4L2Device
  /// The folders runs write to: their outputs (the current folder), temporary
  /// files, and the user's own folders (settings and license, the gallery,
  /// the evaluation cache), with what to do when one cannot be written.
  public var folders: [(name: String, path: String, advice: String)]

  /// The bundled flow doctor loads to check the step library.
  public static let exampleFlow = "liveness-blink.lua"

  public init(
    home: WorkbenchHome, environment: [String: String] = ProcessInfo.processInfo.environment, now: Date = Date(),
    devicePaths: [String]? = nil, device: any V4L2Device = LibV4L2Device()
  ) {
    self.home = home
    self.environment = environment
    self.now = now
    self.devicePaths = devicePaths
    self.device = device
    func user(_ variable: String, _ fallback: String) -> String {
      WorkbenchHome.userFolder(variable, orUnderHome: fallback, environment: environment)
    }
    folders = [
      (
        "outputs", FileManager.default.currentDirectoryPath,
        "run from a folder you can write to, or name the outputs (--events, --report) elsewhere"
      ),
      (
        "temporary files", environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp",
        "set TMPDIR to a folder you can write to"
      ),
      (
        "your settings", home.userConfigFolder,
        "set XDG_CONFIG_HOME to a folder you can write to (settings.json, license trial)"
      ),
      (
        "your gallery", user("XDG_DATA_HOME", ".local/share"),
        "set XDG_DATA_HOME to a folder you can write to, or name a gallery with --gallery"
      ),
      (
        "eval cache", user("XDG_CACHE_HOME", ".cache"),
        "set XDG_CACHE_HOME to a folder you can write to, or give eval --cache"
      ),
    ]
  }

  public func examine() -> DoctorReport {
    let pinned = try? PinnedFiles.read(home: home.root)
    var findings = [lua()]
    findings += faceBackend(pinned: pinned)
    findings.append(recognitionModels(pinned: pinned))
    findings += ffmpeg()
    findings.append(openCV())
    findings.append(license())
    findings += cameras()
    findings += writableFolders()
    return DoctorReport(findings: findings)
  }

  // MARK: - The parts

  func lua() -> DoctorFinding {
    let version = Int(lua_version(nil))
    let name = "Lua \(version / 100).\(version % 100)"
    let stepLibrary = home.plugins + "/wb/init.lua"
    guard FileManager.default.fileExists(atPath: stepLibrary) else {
      return DoctorFinding(
        "Lua and the step library", .missing, "\(name); there is no step library \(stepLibrary)",
        advice: "reinstall workbench, or set WORKBENCH_HOME to the workbench folder", neededByExamples: true)
    }
    let example = home.examples + "/" + Self.exampleFlow
    guard FileManager.default.fileExists(atPath: example) else {
      return DoctorFinding(
        "Lua and the step library", .ok, "\(name); \(WorkbenchHome.display(stepLibrary))", neededByExamples: true)
    }
    do {
      _ = try FlowLoader.load(RunSettings.flowOptions(example), logger: Logger(label: "workbench.doctor"))
    } catch {
      return DoctorFinding(
        "Lua and the step library", .missing,
        "\(name); \(WorkbenchHome.display(example)) does not load: \(error.diagnostics.first?.locatedMessage ?? "\(error)")",
        advice: error.diagnostics.first?.help ?? "reinstall workbench", neededByExamples: true)
    }
    return DoctorFinding(
      "Lua and the step library", .ok, "\(name); the step library loads \(WorkbenchHome.display(example))",
      neededByExamples: true)
  }

  func faceBackend(pinned: PinnedFiles?) -> [DoctorFinding] {
    let options = FaceEstimators.options(home: home, settings: nil, environment: environment)
    var library = file(
      "face library (MediaPipe)", path: options.backend.libraryPath, pinned: pinned,
      variable: FaceEstimators.libraryVariable)
    // At its pinned place with another checksum it may not match the C declarations: it is not loaded.
    if library.status == .ok {
      do {
        try FaceEstimators.loadLibrary(path: options.backend.libraryPath)
        library.detail += ", loads"
      } catch {
        library.status = .missing
        library.detail = error.message
        library.advice = error.help
      }
    }
    let model = file(
      "face model", path: options.backend.modelPath, pinned: pinned, variable: FaceEstimators.modelVariable)
    return [library, model]
  }

  func recognitionModels(pinned: PinnedFiles?) -> DoctorFinding {
    let models = FaceRecognitionModels.resolve(home: home.root, settings: nil, environment: environment)
    let recognition = file(
      "recognition models (dlib)", path: models.recognitionModel, pinned: pinned,
      variable: FaceRecognitionModels.recognitionVariable)
    guard recognition.status == .ok else { return recognition }
    var shape = file(
      "recognition models (dlib)", path: models.shapeModel, pinned: pinned,
      variable: FaceRecognitionModels.shapeVariable)
    if shape.status == .ok { shape.detail = recognition.detail + "; " + shape.detail }
    return shape
  }

  /// A file of the face backend: there, and with its pinned checksum when
  /// it is at its pinned place in the workbench folder (a file named by
  /// `variable` or a setting is the user's own: only its presence counts).
  func file(_ part: String, path: String, pinned: PinnedFiles?, variable: String) -> DoctorFinding {
    let repair = home.faceBackendRepair
    let shown = WorkbenchHome.display(path)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
      return DoctorFinding(
        part, .missing, "there is no \(shown)",
        advice: "\(repair) (or point \(variable) at the file)", neededByExamples: true)
    }
    let listed = pinned?.sums.first { home.path(ofPinned: $0.key) == path }
    guard let expected = listed?.value else {
      return DoctorFinding(
        part, .ok, shown + " (not a pinned file: its checksum is not checked)", neededByExamples: true)
    }
    guard let actual = PinnedFiles.sha256(ofFile: path) else {
      return DoctorFinding(
        part, .missing, "\(shown) cannot be read", advice: "check the file's permissions", neededByExamples: true)
    }
    guard actual == expected else {
      return DoctorFinding(
        part, .missing,
        "\(shown) has SHA-256 \(actual.prefix(12))…, not the pinned \(expected.prefix(12))… "
          + "(another version, or a damaged file)",
        advice: "\(repair): it puts the pinned file back", neededByExamples: true)
    }
    return DoctorFinding(part, .ok, shown + ", checksum as pinned", neededByExamples: true)
  }

  func ffmpeg() -> [DoctorFinding] {
    if let reason = FFmpegLibraries.loadError {
      return [
        DoctorFinding(
          "FFmpeg", .missing, "cannot be loaded (\(reason)): video files (.mp4, .mov, .mkv) and --record cannot work",
          advice: FFmpegLibraries.installAdvice, neededByExamples: false)
      ]
    }
    var findings = [DoctorFinding("FFmpeg", .ok, FFmpegLibraries.versions, neededByExamples: false)]
    let decoders = ["h264", "hevc"].filter { !FFmpegLibraries.hasDecoder($0) }
    findings.append(
      decoders.isEmpty
        ? DoctorFinding("video decoders", .ok, "h264, hevc: phone videos (.mp4, .mov) play", neededByExamples: false)
        : DoctorFinding(
          "video decoders", .warning, "no \(decoders.joined(separator: ", ")) decoder: such videos cannot be read",
          advice: "install Debian's libavcodec59 (its decoders include both)", neededByExamples: false))
    findings.append(
      FFmpegLibraries.hasEncoder("libx264")
        ? DoctorFinding("video encoder", .ok, "libx264: --record to .mp4 works", neededByExamples: false)
        : DoctorFinding(
          "video encoder", .warning, "no libx264 encoder: --record writes MJPEG AVI only",
          advice: "install Debian's libavcodec59 with libx264164", neededByExamples: false))
    return findings
  }

  func openCV() -> DoctorFinding {
    DoctorFinding(
      "OpenCV DNN", .ok, "OpenCV \(PADModel.openCVVersion): the passive-liveness model (face.liveness) runs",
      neededByExamples: false)
  }

  func license() -> DoctorFinding {
    let gate = LicenseGate.locate(
      configOption: nil, publicKeyOption: nil, folders: home.licenseFolders, environment: environment)
    do {
      let license = try gate.check(features: [], now: now)
      // Counted as `license show` counts them, so that both say the same.
      let days = license.daysLeft(at: now)
      let detail =
        "\(license.id) for \(license.eid), \(days) days left; grants "
        + (license.features.isEmpty ? "no feature" : license.features.joined(separator: ", "))
      if license.expires.timeIntervalSince(now) < 7 * 86_400 {
        return DoctorFinding(
          "license", .warning, detail,
          advice:
            "renew it before it ends: workbench license activate --config \(WorkbenchHome.display(gate.configPath)) --force",
          neededByExamples: true)
      }
      return DoctorFinding("license", .ok, detail, neededByExamples: true)
    } catch {
      let first = error.diagnostics.first
      var advice = first?.help
      // A checkout has no license until its demo makes one.
      if FileManager.default.isExecutableFile(atPath: home.root + "/scripts/demo-license") {
        advice = [advice, "in this checkout, scripts/demo-license gives this machine a demo license"]
          .compactMap { $0 }.joined(separator: "; ")
      }
      return DoctorFinding(
        "license", .missing, first?.locatedMessage ?? "\(error)", advice: advice, neededByExamples: true)
    }
  }

  func cameras() -> [DoctorFinding] {
    let devices = DeviceList.scan(paths: devicePaths, device: device)
    let findings = devices.compactMap { camera -> DoctorFinding? in
      if let problem = camera.problem {
        return DoctorFinding(
          "camera", .warning, "\(camera.path): \(problem)", advice: camera.help, neededByExamples: false)
      }
      guard camera.captures else { return nil }
      let formats = camera.formats.map(\.pixelFormat)
      return DoctorFinding(
        "camera", .ok,
        "\(camera.path): \(camera.card ?? "a camera"), "
          + (formats.isEmpty ? "no formats" : formats.joined(separator: ", ")),
        neededByExamples: false)
    }
    guard findings.isEmpty else { return findings }
    return [
      DoctorFinding(
        "camera", .warning, "no camera (no /dev/video* that captures)",
        advice: "the examples read recordings and need none; plug one in for --camera", neededByExamples: false)
    ]
  }

  func writableFolders() -> [DoctorFinding] {
    folders.map { folder in
      let isUsers = !["outputs", "temporary files"].contains(folder.name)
      let shown =
        isUsers
        ? WorkbenchHome.displayUserPath(folder.path, environment: environment) : WorkbenchHome.display(folder.path)
      // A user's folder is made on first use: then its nearest existing parent must be writable.
      var existing = folder.path
      while !FileManager.default.fileExists(atPath: existing), existing != "/", !existing.isEmpty {
        existing = (existing as NSString).deletingLastPathComponent
      }
      var isFolder: ObjCBool = false
      let existsAsFolder =
        FileManager.default.fileExists(atPath: existing, isDirectory: &isFolder) && isFolder.boolValue
      guard existsAsFolder, access(existing, W_OK | X_OK) == 0 else {
        return DoctorFinding(
          folder.name, .warning, "\(shown) is not writable by this user", advice: folder.advice,
          neededByExamples: false)
      }
      let parent = WorkbenchHome.displayUserPath(existing, environment: environment)
      let detail =
        existing == folder.path ? "\(shown) is writable" : "\(shown) will be made on first use (\(parent) is writable)"
      return DoctorFinding(folder.name, .ok, detail, neededByExamples: false)
    }
  }
}
