// What the benchmarks and the allocation check share: the package root they
// read fixtures from, clips made by the ffmpeg command, a monotonic clock.
import Diagnostics
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Nanoseconds on the monotonic clock.
public func benchNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Runs `ffmpeg ARGUMENTS OUT` quietly, overwriting OUT.
public func makeClip(_ ffmpeg: String, _ arguments: [String], _ out: String) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: ffmpeg)
  process.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments + [out]
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw WorkbenchError(.usage, "ffmpeg \(arguments.joined(separator: " ")) \(out) failed")
  }
}

public func executableOnPath(_ name: String) -> String? {
  for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
    let candidate = "\(folder)/\(name)"
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
  }
  return nil
}

/// The package root: above the executable's .build folder.
public func benchPackageRoot() -> String {
  var url = URL(
    fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0])
  while url.path != "/" {
    url.deleteLastPathComponent()
    if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
  }
  return FileManager.default.currentDirectoryPath
}
