import Foundation
import TestSupport
import Testing

/// scripts/slurm-cluster's one-node cluster runs what a sharded batch run
/// needs: an array whose tasks each write their own share, and a job that
/// starts only after every task succeeded and joins their files.
@Suite(
  .enabled(
    if: SlurmCluster.available || SlurmCluster.required,
    Comment(rawValue: (SlurmCluster.problem ?? "") + " (with CI=true this fails instead of being skipped)")))
struct SlurmClusterTests {
  @Test func anArrayOfShardsThenAJobAfterThemJoinsTheirFiles() throws {
    let cluster = try SlurmCluster.start()
    defer { cluster.stop() }
    let work = try TemporaryFolder(prefix: "workbench-slurm-work")
    defer { work.remove() }

    // Each task writes its index and what only that task knows (its own job id).
    let shards = try cluster.submitArray(
      tasks: 4, running: #"echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID" > shard-$SLURM_ARRAY_TASK_ID.txt"#,
      in: work.path)
    let merge = try cluster.submit(
      running: "cat shard-0.txt shard-1.txt shard-2.txt shard-3.txt > merged.txt", after: [shards], in: work.path)
    try cluster.waitUntilDone([shards, merge])

    let tasks = try cluster.records(of: shards)
    #expect(tasks.map(\.arrayTaskID) == [0, 1, 2, 3], "\(tasks)\n\(cluster.logTails())")
    #expect(tasks.allSatisfy { $0.state == "COMPLETED" && $0.exitCode == "0:0" }, "\(tasks)")
    #expect(tasks.allSatisfy { $0.arrayJobID == shards }, "\(tasks)")
    #expect(try cluster.records(of: merge).map(\.state) == ["COMPLETED"])
    let merged = try String(contentsOfFile: work.file("merged.txt"), encoding: .utf8)
    #expect(merged == (0..<4).map { "task \($0) of \(shards)\n" }.joined(), "\(work.listing)")
  }

  @Test func aJobAfterAFailedTaskNeverRuns() throws {
    let cluster = try SlurmCluster.start()
    defer { cluster.stop() }
    let work = try TemporaryFolder(prefix: "workbench-slurm-work")
    defer { work.remove() }

    let shards = try cluster.submitArray(
      tasks: 2, running: #"test "$SLURM_ARRAY_TASK_ID" = 0 && touch shard-0.txt"#, in: work.path)
    let merge = try cluster.submit(running: "touch merged.txt", after: [shards], in: work.path)
    try cluster.waitUntilDone([shards])

    #expect(try cluster.records(of: shards).map(\.state) == ["COMPLETED", "FAILED"])
    // The controller keeps a job whose afterok can never be met pending
    // (DependencyNeverSatisfied) rather than ending it.
    let waiting = try cluster.records(of: merge)
    #expect(waiting.map(\.state) == ["PENDING"], "\(waiting)")
    #expect(FileManager.default.fileExists(atPath: work.file("shard-0.txt")))
    #expect(!FileManager.default.fileExists(atPath: work.file("merged.txt")))
  }
}
