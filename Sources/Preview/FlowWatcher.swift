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

  struct Stamp: Equatable {
    var size: Int64
    var modified: Double
  }

  public init(controls: ControlMailbox) {
    self.controls = controls
  }

  /// The files a run of `flow` (loaded with `options`) depends on; the
  /// flow's folder's other Lua files too, since a module a broken flow
  /// was about to require is not known until it loads.
  public static func files(of flow: LoadedFlow?, options: FlowOptions) -> [String] {
    var files = [options.flowPath] + options.configFiles
    if let flow { files += flow.requiredFiles }
    let folder = URL(fileURLWithPath: options.flowPath).deletingLastPathComponent().path
    var folders = [(folder, ".lua"), (folder + "/messages", ".json")]
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

  /// Watches `files` from now on (their present state is the baseline).
  public func watch(_ files: [String]) {
    let stamped = Dictionary(files.map { ($0, Self.stamp($0)) }, uniquingKeysWith: { first, _ in first })
    lock.withLock {
      self.files = files
      stamps = stamped.compactMapValues { $0 }
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
      modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
  }
}
