import Diagnostics
import Foundation
import JSONCore
import SessionReport
import Settings

/// Writes the session report of a run from what it left: its events, the
/// measurements it saw (a trace), its settings and its captured images.
public enum RunReports {
  /// `folder/report.html`; returns its path.
  @discardableResult
  public static func write(
    folder: String, events: String, trace: String?, settings: ResolvedSettings?, imageFolders: [String] = ["."]
  ) throws(WorkbenchError) -> String {
    var input = try SessionReport.Input.load(
      events: events, trace: trace.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }, settings: nil)
    if let settings, case .array(let rows) = SettingsTable.json(settings) {
      input.settings = rows.compactMap { row in
        guard let key = row["key"]?.stringValue, let value = row["value"] else { return nil }
        return SessionReport.Setting(key: key, value: value, source: row["source"]?.stringValue ?? "")
      }
    }
    input.imageFolders = imageFolders
    return try SessionReport.write(input, to: folder)
  }
}
