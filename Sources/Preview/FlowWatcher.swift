import Flows
import Foundation
import Session
import Settings

/// Watches the files a flow was loaded from (the flow, the Lua modules it
/// required, the message catalogs and settings files) and posts a reload
/// when one changes. It compares size and modification time a few times a
/// second: no file-system events, so it works on every file system,
/// network and container mounts included.
public final class FlowWatcher: @unchecked Sendable {
  static let interval = 0.25

  private let controls: ControlMailbox
  private let lock = NSLock()
  private var files: [String] = []
  private var stamps: [String: Stamp] = [:]
  private var stopping = false
  private var thread: Thread?

  /// What tells a changed file: a rewrite of the same size within the
  /// file system's time resolution still changes its inode (editors that
  /// write a new file and rename it) or its status-change time.
  struct Stamp: Equatable {
    var size: Int64
    var modified: Double
    var changed: Double
    var inode: UInt64
  }

  /// How deep under the flow's folder Lua modules are looked for, and how
  /// many files at most: a flow in a big folder is not scanned whole.
  static let moduleDepth = 3
  static let moduleLimit = 2000

  public init(controls: ControlMailbox) {
    self.controls = controls
  }

  /// The files a run of `flow` (loaded with `options`) depends on; the
  /// Lua files under the flow's folder too, since a module a broken flow
  /// was about to require is not known until it loads.
  public static func files(of flow: LoadedFlow?, options: FlowOptions) -> [String] {
    var files = [options.flowPath] + options.configFiles
    if let flow { files += flow.requiredFiles }
    let folder = URL(fileURLWithPath: options.flowPath).deletingLastPathComponent().path
    files += luaFiles(under: folder)
    var folders = [(folder + "/messages", ".json")]
    if let home = try? WorkbenchHome.locate() {
      folders += [(home.configs, ".json"), (home.configs + "/messages", ".json")]
    }
    if let settings = options.settingsDirectory {
      folders += [(settings, ".json"), (settings + "/messages", ".json")]
    }
    for (directory, suffix) in folders {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      files += names.filter { $0.hasSuffix(suffix) }.sorted().map { directory + "/" + $0 }
    }
    var seen = Set<String>()
    return files.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }
  }

  /// The `.lua` files under `folder`, a few levels deep, hidden folders left out.
  static func luaFiles(under folder: String) -> [String] {
    var found: [String] = []
    var level = [folder]
    for _ in 0..<moduleDepth {
      var next: [String] = []
      for directory in level {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        for name in names where !name.hasPrefix(".") {
          let path = directory + "/" + name
          if name.hasSuffix(".lua") {
            found.append(path)
          } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
              next.append(path)
            }
          }
          if found.count >= moduleLimit { return found }
        }
      }
      level = next
    }
    return found
  }

  /// Watches `files` from now on. A file it already watched keeps the state
  /// it was last seen in, so that a save made while the flow was loading
  /// still counts as a change; a new file's present state is its baseline.
  public func watch(_ files: [String]) {
    lock.withLock {
      var stamped: [String: Stamp] = [:]
      for file in files {
        if let known = stamps[file] {
          stamped[file] = known
        } else if let now = Self.stamp(file) {
          stamped[file] = now
        }
      }
      self.files = files
      stamps = stamped
    }
  }

  public func start() {
    let thread = Thread { [weak self] in self?.run() }
    thread.name = "workbench-watch"
    self.thread = thread
    thread.start()
  }

  public func stop() {
    lock.withLock { stopping = true }
  }

  private func run() {
    while !lock.withLock({ stopping }) {
      Thread.sleep(forTimeInterval: Self.interval)
      let (files, known) = lock.withLock { (self.files, self.stamps) }
      let changed = files.filter { Self.stamp($0) != known[$0] }
      guard !changed.isEmpty else { continue }
      // An editor that writes a new file and renames it shows the change in
      // two steps: wait for the file to settle before loading it.
      Thread.sleep(forTimeInterval: 0.1)
      let settled = Dictionary(
        files.compactMap { file in Self.stamp(file).map { (file, $0) } }, uniquingKeysWith: { first, _ in first })
      lock.withLock { if self.files == files { stamps = settled } }
      controls.post(.reload(changed: changed.map(WorkbenchHome.display)), from: "watch")
    }
  }

  static func stamp(_ path: String) -> Stamp? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Stamp(
      size: Int64(info.st_size),
      modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
      changed: Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9, inode: UInt64(info.st_ino))
  }
}
