import Diagnostics
import Foundation
import JSONCore
import Settings

/// How an evaluation went, for `run.json`: times, what was measured and
/// what came from the cache. Kept out of `summary.json`, which holds
/// results alone so that it is the same however they were reached.
struct RunFacts {
  var started: Date
  var finishedAt: Date?
  var counts: CacheCounts
  var resumed: Int
  var interrupted: Bool
  var cache: String
  var shard: (index: Int, count: Int)?
  /// What the summary is made with besides the records: what `eval merge` reads.
  var header: SummaryHeader?

  init(
    started: Date, counts: CacheCounts, resumed: Int, interrupted: Bool, cache: String,
    shard: (index: Int, count: Int)?
  ) {
    self.started = started
    self.counts = counts
    self.resumed = resumed
    self.interrupted = interrupted
    self.cache = cache
    self.shard = shard
  }

  func write(to path: String, finished: Bool) throws(WorkbenchError) {
    let formatter = ISO8601DateFormatter()
    var object = JSONObject([
      ("workbench_eval_run", .integer(1)), ("finished", .bool(finished)),
      ("started_at", .string(formatter.string(from: started))),
    ])
    if let finishedAt {
      object["finished_at"] = .string(formatter.string(from: finishedAt))
      object["seconds"] = .number(finishedAt.timeIntervalSince(started).roundedToMicroseconds)
    }
    object["measured"] = .integer(Int64(counts.measured))
    object["replayed_from_cache"] = .integer(Int64(counts.replayed))
    object["resumed"] = .integer(Int64(resumed))
    object["frames"] = .integer(Int64(counts.frames))
    object["measured_inputs"] = .array(counts.measuredInputs.map(JSONValue.string))
    object["cache"] = .string(WorkbenchHome.display(cache))
    if let shard { object["shard"] = .string("\(shard.index)/\(shard.count)") }
    if let header { object["evaluation"] = header.jsonValue }
    try Evaluation.writeFile(path, JSONValue.object(object).prettyText)
  }
}
