// Benchmarks of workbench, run by scripts/bench (release build, one core).
//
//   workbench-bench            every group but soak
//   workbench-bench flow       one group: flow, imaging, quality, face, card, focal, qa, eval, liveness, recognition, server, video, floor, allocations, preview or soak
import BenchSupport
import Foundation

let groups: [(name: String, run: () throws -> Void)] = [
  ("flow", runFlowBenchmarks),
  ("imaging", runImagingBenchmarks),
  ("quality", runQualityBenchmarks),
  ("face", runFaceBenchmarks),
  ("card", runCardBenchmarks),
  ("focal", runFocalLengthBenchmarks),
  ("qa", runQABenchmarks),
  ("eval", runEvalBenchmarks),
  ("liveness", runLivenessBenchmarks),
  ("recognition", runRecognitionBenchmarks),
  ("server", runServerBenchmarks),
  ("video", runVideoBenchmarks),
  ("floor", runFloorBenchmarks),
  ("allocations", runAllocationCheck),
  ("preview", runPreviewBenchmarks),
  ("soak", runSoakBenchmarks),
]
/// Groups that run only when named: the soak takes over two hours.
let namedOnly: Set = ["soak"]

let wanted = Set(CommandLine.arguments.dropFirst())
for group in groups where wanted.isEmpty ? !namedOnly.contains(group.name) : wanted.contains(group.name) {
  try group.run()
  print()
}
