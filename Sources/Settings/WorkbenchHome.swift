import Diagnostics
import Foundation

/// The folder that holds `configs/` and `plugins/`: $WORKBENCH_HOME, else
/// the nearest folder above the executable that has both, else the current
/// folder.
public struct WorkbenchHome: Sendable {
  public var root: String

  public var configs: String { root + "/configs" }
  public var plugins: String { root + "/plugins" }
  public var messages: String { configs + "/messages" }
  public var settingsFile: String { configs + "/settings.json" }

  public init(root: String) { self.root = root }

  /// The command that installs the face backend and the recognition models
  /// into this folder (MediaPipe's library, its model, dlib's models).
  public static let faceBackendInstallCommand = "scripts/install-face-backend"

  public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(WorkbenchError) -> WorkbenchHome
  {
    if let explicit = environment["WORKBENCH_HOME"], !explicit.isEmpty {
      let home = WorkbenchHome(root: explicit)
      guard home.isComplete else {
        throw WorkbenchError(
          .usage, "WORKBENCH_HOME=\(explicit) has no configs/ and plugins/ folders",
          help: "point WORKBENCH_HOME at the workbench folder (the one with configs/ and plugins/)")
      }
      return home
    }
    // argv[0] is only "workbench" when started through PATH; the kernel
    // knows the real file.
    let selfPath =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments.first ?? "."
    let executable = URL(fileURLWithPath: selfPath).resolvingSymlinksInPath()
    var folder = executable.deletingLastPathComponent()
    for _ in 0..<8 {
      let home = WorkbenchHome(root: folder.path)
      if home.isComplete { return home }
      let parent = folder.deletingLastPathComponent()
      if parent.path == folder.path { break }
      folder = parent
    }
    let current = WorkbenchHome(root: FileManager.default.currentDirectoryPath)
    guard current.isComplete else {
      throw WorkbenchError(
        .usage, "cannot find the workbench folder (with configs/ and plugins/)",
        help: "run from the workbench folder or set WORKBENCH_HOME to it")
    }
    return current
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
}
