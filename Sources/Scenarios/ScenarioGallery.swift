import Diagnostics
import Foundation
import Gallery

/// The gallery a scenario runs against: a new SQLite file in a temporary
/// folder, filled from the scenario's gallery export, so that runs (and
/// parallel jobs) never share one or see each other's enrollments.
enum ScenarioGallery {
  /// The temporary folder (to remove after the run) and the gallery in it.
  static func make(from export: String) throws(WorkbenchError) -> (folder: String, location: String) {
    guard let data = FileManager.default.contents(atPath: export) else {
      throw WorkbenchError(
        .usage, "the scenario's gallery export is not there", at: SourceLocation(file: export),
        help: "make one with 'workbench gallery --gallery FILE export \(export)'")
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "workbench-gallery-\(UUID().uuidString)"
    ).path
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw WorkbenchError(.usage, "cannot make a temporary folder for the scenario's gallery: \(error)")
    }
    let location = folder + "/gallery.sqlite"
    do throws(GalleryFailure) {
      let store: SQLiteGallery
      do { store = try SQLiteGallery(path: location) } catch { throw GalleryFailure(error) }
      let text = String(decoding: data, as: UTF8.self)
      _ = try GalleryTransfer.import(
        text.split(separator: "\n", omittingEmptySubsequences: false), into: store, file: export, skipExisting: false)
    } catch {
      try? FileManager.default.removeItem(atPath: folder)
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: export), help: error.help)
    }
    return (folder, location)
  }
}
