import Diagnostics
import Foundation
import JSONCore
import Settings

extension Evaluation {
  /// Joins the out folders of an evaluation's shards into `outFolder`: the
  /// sessions of all, and the summary and report made from them, which
  /// are those of the same evaluation run unsharded, byte for byte.
  public static func merge(_ folders: [String], into outFolder: String) -> EvaluationOutcome {
    do {
      return try mergeShards(folders, into: outFolder)
    } catch {
      return EvaluationOutcome(status: error.status, problems: error.diagnostics)
    }
  }

  private static func mergeShards(_ folders: [String], into outFolder: String) throws(WorkbenchError)
    -> EvaluationOutcome
  {
    guard !folders.isEmpty else {
      throw WorkbenchError(
        .usage, "give the out folders of the shards to merge", help: "workbench eval merge out/shard-* --out out/all")
    }
    var header: SummaryHeader?
    var records: [SessionRecord] = []
    var seen: [String: String] = [:]
    var problems: [Diagnostic] = []
    for folder in folders {
      let runPath = folder + "/" + runFile
      guard let data = FileManager.default.contents(atPath: runPath),
        let facts = try? JSONParser.parse(bytes: Array(data)),
        let shardHeader = facts["evaluation"].flatMap(SummaryHeader.init)
      else {
        problems.append(
          Diagnostic(
            "not the out folder of an evaluation (no readable \(runFile))", at: SourceLocation(file: folder),
            help: "give the folders that `workbench eval --shard I/N --out FOLDER` wrote"))
        continue
      }
      if facts["finished"]?.boolValue != true {
        problems.append(
          Diagnostic(
            "this shard did not finish", at: SourceLocation(file: folder),
            help: "run its `workbench eval ... --shard I/N` again with --resume, then merge"))
      }
      if let header, header.jsonValue != shardHeader.jsonValue {
        problems.append(
          Diagnostic(
            "this shard evaluated another flow, score, sweep or settings than \(WorkbenchHome.display(folders[0]))",
            at: SourceLocation(file: folder), help: "merge shards of one evaluation only"))
        continue
      }
      header = header ?? shardHeader
      for record in SessionLog.read(folder + "/" + sessionsFile) {
        let key = JSONValue.object(record.settings).jsonText + "\u{1F}" + record.id
        if let other = seen[key] {
          problems.append(
            Diagnostic(
              "the session \"\(record.id)\" is also in \(WorkbenchHome.display(other))",
              at: SourceLocation(file: folder),
              help: "shards of one evaluation never share a session; were two runs' folders given?"))
          continue
        }
        seen[key] = folder
        records.append(record)
      }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    guard let header else { throw WorkbenchError(.usage, "nothing to merge") }
    try makeFolder(outFolder)
    let ordered = SessionLog.ordered(records, points: header.pointSettings)
    try writeFile(outFolder + "/" + sessionsFile, ordered.map { $0.jsonValue.jsonText + "\n" }.joined())
    let summary = EvaluationSummary.make(header, records: ordered)
    try write(summary: summary, records: ordered, header: header, to: outFolder)
    var facts = JSONObject([("workbench_eval_run", .integer(1)), ("finished", .bool(true))])
    facts["merged"] = .array(folders.map { .string(WorkbenchHome.display($0)) })
    facts["evaluation"] = header.jsonValue
    try writeFile(outFolder + "/" + runFile, JSONValue.object(facts).prettyText)
    return EvaluationOutcome(status: .passed, summary: summary, sessionsRun: 0, measured: 0)
  }
}
