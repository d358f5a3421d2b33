import JSONCore

/// The page of `workbench eval`: how a liveness flow did over a labelled
/// corpus, in the measures of ISO/IEC 30107-3 (APCER per species and its
/// maximum, BPCER, APNRR, BPNRR) with their intervals, the DET curve of a
/// score, the points of a sweep of settings and every session.
///
/// Like the session report it is one self-contained file in the same look:
/// the style and the script are inline, the charts inline SVG, nothing is
/// fetched. Every table reads without the script; the script only filters
/// the sessions and switches between the points of a sweep. The same input
/// always gives the same bytes.
public enum EvaluationReport {
  public struct Options: Sendable {
    /// The page's heading and the title of its window.
    public var title: String
    /// Session id → the relative address of that session's own report page.
    /// Empty when the run kept no events; then no session is a link.
    public var sessionLinks: [String: String]

    public init(title: String, sessionLinks: [String: String] = [:]) {
      self.title = title
      self.sessionLinks = sessionLinks
    }
  }

  /// The page for a run's `summary.json` and the records of its
  /// `sessions.jsonl` (one per session and point of the sweep), as UTF-8 text.
  /// Missing keys and null rates are shown as missing, never guessed.
  public static func html(summary: JSONObject, sessions: [JSONObject], options: Options) -> String {
    let evaluation = Evaluation(summary: summary)
    let table = SessionTable(records: sessions, evaluation: evaluation)
    return EvaluationPage(evaluation: evaluation, sessions: table, options: options).html()
  }
}
