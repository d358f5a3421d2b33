// The allocation check of scripts/test: what the hot path allocates a frame,
// exit 1 over its limits (docs/estimators.md). An executable of its own so
// that the test command builds, in release, only what a run's hot path links,
// not the benchmarks' servers and clients.
import BenchSupport
import Foundation

do {
  try runAllocationCheck()
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(1)
}
