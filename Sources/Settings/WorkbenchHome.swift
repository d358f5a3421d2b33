import Diagnostics
import Foundation

/// Where workbench's own files are, found the same way from a checkout, from
/// the installed package and from a relocated copy of the installed tree:
///
/// - a **checkout**: the folder with `configs/` and `plugins/` above the
///   executable (or the current folder); MediaPipe's library under
///   `third_party/mediapipe/`, plugins built in place;
/// - an **installed** tree under a prefix (`/usr`, or wherever a tarball of it
///   was unpacked): the executable in `PREFIX/bin`, the data in
///   `PREFIX/share/workbench` (configs, the step library, models, templates),
///   the private libraries and native plugins in `PREFIX/lib/workbench`.
///
/// $WORKBENCH_HOME names the data folder explicitly. A user's own settings
/// and license live in `$XDG_CONFIG_HOME/workbench`, the machine's in
/// `/etc/workbench` (docs/install.md).
public struct WorkbenchHome: Sendable {
  public enum Layout: Sendable, Equatable {
    case checkout
    /// The prefix the package was installed (or unpacked) under.
    case installed(prefix: String)
  }

  /// The data folder: the one that holds `configs/` and `plugins/`.
  public var root: String
  public var layout: Layout
  /// The user's and the machine's settings folders, searched in that order.
  public var userConfigFolder: String
  public var systemConfigFolder: String

  public var configs: String { root + "/configs" }
  /// The Lua step library (`plugins/wb`) and, in a checkout, the native plugins.
  public var plugins: String { root + "/plugins" }
  public var messages: String { configs + "/messages" }
  public var settingsFile: String { configs + "/settings.json" }

  /// The folder of the native plugins (`*.so`) a run loads.
  public var nativePlugins: String {
    switch layout {
    case .checkout: return plugins
    case .installed(let prefix): return prefix + "/lib/workbench/plugins"
    }
  }

  /// The example flows, recordings, traces and QA suites.
  public var examples: String {
    switch layout {
    case .checkout: return root + "/examples"
    case .installed(let prefix): return prefix + "/share/doc/workbench/examples"
    }
  }

  /// MediaPipe's library, private to workbench (never on the system's library path).
  public var faceLibrary: String {
    switch layout {
    case .checkout: return root + "/" + Self.checkoutFaceLibrary
    case .installed(let prefix): return prefix + "/lib/workbench/libmediapipe.so"
    }
  }

  /// Where a file of the pinned list (third_party/face-backend.sha256, whose
  /// paths are a checkout's) is in this layout.
  public func path(ofPinned listed: String) -> String {
    listed == Self.checkoutFaceLibrary ? faceLibrary : root + "/" + listed
  }

  /// What puts the face backend's files back in place.
  public var faceBackendRepair: String {
    switch layout {
    case .checkout: return "run " + Self.faceBackendInstallCommand
    case .installed: return "reinstall the package (apt install --reinstall workbench)"
    }
  }

  /// The settings folders an installed workbench reads before its bundled
  /// `configs/`, highest first: the user's, then the machine's.
  public var configFolders: [String] { [userConfigFolder, systemConfigFolder] }

  /// Where a license configuration (license.conf) is looked for, first
  /// found wins: the machine's folder, the user's, then the bundled
  /// `configs/`. The machine's comes first, unlike settings, so that an
  /// integrator's licensing in /etc/workbench holds for every user.
  public var licenseFolders: [String] { [systemConfigFolder, userConfigFolder, Self.display(configs)] }

  public init(
    root: String, layout: Layout = .checkout,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.root = root
    self.layout = layout
    self.userConfigFolder = Self.userFolder(
      "XDG_CONFIG_HOME", orUnderHome: ".config", environment: environment)
    self.systemConfigFolder =
      environment[Self.systemConfigVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/workbench"
  }

  /// The command that installs the face backend and the recognition models
  /// into a checkout (MediaPipe's library, its model, dlib's models).
  public static let faceBackendInstallCommand = "scripts/install-face-backend"
  /// MediaPipe's library in a checkout, relative to its folder.
  public static let checkoutFaceLibrary = "third_party/mediapipe/libmediapipe.so"
  /// Names the machine's settings folder instead of /etc/workbench (for tests
  /// and for relocated trees that must not read the machine's).
  public static let systemConfigVariable = "WORKBENCH_SYSTEM_CONFIG"

  /// `$VARIABLE/workbench`, else `$HOME/fallback/workbench` (the XDG base
  /// directories); a relative `$VARIABLE` is ignored, as the XDG
  /// specification says.
  public static func userFolder(
    _ variable: String, orUnderHome fallback: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let base = environment[variable], base.hasPrefix("/") { return base + "/workbench" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return home + "/" + fallback + "/workbench"
  }

  /// The face gallery when none is named (the setting gallery.location,
  /// `--gallery`, `$WORKBENCH_GALLERY`): `$XDG_DATA_HOME/workbench/gallery.sqlite`
  /// (default `~/.local/share/workbench/gallery.sqlite`), a user's data that
  /// outlives upgrades and removal of the package.
  public static func defaultGallery(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    userFolder("XDG_DATA_HOME", orUnderHome: ".local/share", environment: environment) + "/gallery.sqlite"
  }

  public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(WorkbenchError) -> WorkbenchHome
  {
    // argv[0] is only "workbench" when started through PATH; the kernel
    // knows the real file.
    let selfPath =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments.first ?? "."
    return try locate(
      executable: selfPath, currentFolder: FileManager.default.currentDirectoryPath, environment: environment)
  }

  /// The home of the executable at `executable`: $WORKBENCH_HOME, else an
  /// installed tree around it, else the nearest checkout above it, else the
  /// current folder when it is a checkout.
  public static func locate(
    executable: String, currentFolder: String, environment: [String: String]
  ) throws(WorkbenchError) -> WorkbenchHome {
    if let explicit = environment["WORKBENCH_HOME"], !explicit.isEmpty {
      guard let home = recognise(explicit, environment: environment) else {
        throw WorkbenchError(
          .usage, "WORKBENCH_HOME=\(explicit) has no configs/ and plugins/ folders",
          help: "point WORKBENCH_HOME at the workbench folder (the one with configs/ and plugins/)")
      }
      return home
    }
    let binFolder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
    let prefix = binFolder.deletingLastPathComponent().path
    let installed = WorkbenchHome(
      root: prefix + "/share/workbench", layout: .installed(prefix: prefix), environment: environment)
    if installed.isComplete { return installed }
    var folder = binFolder
    for _ in 0..<8 {
      let home = WorkbenchHome(root: folder.path, environment: environment)
      if home.isComplete { return home }
      let parent = folder.deletingLastPathComponent()
      if parent.path == folder.path { break }
      folder = parent
    }
    let current = WorkbenchHome(root: currentFolder, environment: environment)
    guard current.isComplete else {
      throw WorkbenchError(
        .usage, "cannot find the workbench folder (with configs/ and plugins/)",
        help: "run from the workbench folder or set WORKBENCH_HOME to it")
    }
    return current
  }

  /// A data folder named by hand: an installed tree's `share/workbench` or a checkout.
  private static func recognise(_ folder: String, environment: [String: String]) -> WorkbenchHome? {
    let url = URL(fileURLWithPath: folder).standardizedFileURL
    if url.lastPathComponent == "workbench", url.deletingLastPathComponent().lastPathComponent == "share" {
      let prefix = url.deletingLastPathComponent().deletingLastPathComponent().path
      let installed = WorkbenchHome(root: url.path, layout: .installed(prefix: prefix), environment: environment)
      if installed.isComplete, !FileManager.default.fileExists(atPath: url.path + "/Package.swift") {
        return installed
      }
    }
    let home = WorkbenchHome(root: folder, environment: environment)
    return home.isComplete ? home : nil
  }

  private var isComplete: Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: configs, isDirectory: &isDirectory) && isDirectory.boolValue
      && FileManager.default.fileExists(atPath: plugins + "/wb/init.lua")
  }

  /// How to show a path in messages: relative to the current folder when
  /// it lies inside it.
  public static func display(_ path: String) -> String {
    let current = FileManager.default.currentDirectoryPath
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    if absolute == current { return "." }
    if absolute.hasPrefix(current + "/") { return String(absolute.dropFirst(current.count + 1)) }
    return absolute
  }

  /// A folder of the user's own (settings, gallery, cache) as they would
  /// type it: `~/.config/workbench` under their home, else the whole path,
  /// never relative to the current folder.
  public static func displayUserPath(
    _ path: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
    guard let home = environment["HOME"], home.hasPrefix("/"), home != "/" else { return absolute }
    let base = URL(fileURLWithPath: home).standardizedFileURL.path
    if absolute == base { return "~" }
    return absolute.hasPrefix(base + "/") ? "~" + absolute.dropFirst(base.count) : absolute
  }
}
