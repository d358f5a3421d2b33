import Foundation

/// Whether two paths name the same file, through `..`, `./` and symbolic
/// links, also for a file that does not exist yet (then its folder is
/// resolved).
public enum FileIdentity {
  public static func canonical(_ path: String) -> String {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    if FileManager.default.fileExists(atPath: url.path) { return url.resolvingSymlinksInPath().path }
    let folder = url.deletingLastPathComponent().resolvingSymlinksInPath()
    return folder.appendingPathComponent(url.lastPathComponent).path
  }

  public static func same(_ first: String, _ second: String) -> Bool { canonical(first) == canonical(second) }
}
