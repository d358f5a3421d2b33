import ArgumentParser
import Diagnostics
import FaceEstimation
import FaceRecognition
import Foundation
import Gallery
import JSONCore
import Settings

struct GalleryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gallery",
    abstract: "Enroll people's faces, and verify (1:1) or identify (1:N) a face against them.",
    discussion: """
      A gallery keeps users (an id, a name, free-form details), groups of users, and the \
      descriptors of their faces: in one SQLite file (--gallery FILE) or in a PostgreSQL \
      database that several machines share (--gallery postgres://…). Every command prints \
      one JSON object. Exit codes: 0 done (for verify, identify and match: a match), 1 no \
      match, 2 usage error or missing model, 4 an image that is missing, unreadable, or \
      does not show exactly one face, 5 a gallery error such as user_not_found \
      (docs/gallery.md).

      Examples:
        workbench gallery --gallery people.sqlite group create staff
        workbench gallery --gallery people.sqlite enroll --user obama --group staff obama.jpg
        workbench gallery --gallery people.sqlite verify --user obama biden.jpg
        workbench gallery --gallery people.sqlite identify --group staff --top 3 photo.jpg
        workbench gallery match obama.jpg obama2.jpg
      """,
    subcommands: [
      GalleryGroupCommand.self, GalleryUserCommand.self, GalleryEnrollCommand.self, GalleryFaceCommand.self,
      GalleryVerifyCommand.self, GalleryIdentifyCommand.self, GalleryMatchCommand.self, GalleryExportCommand.self,
      GalleryImportCommand.self,
    ])

  // Declared here too, so that `--gallery` may come before the subcommand.
  @OptionGroup var options: GalleryOptions
}

/// Where the gallery is, and the match threshold.
struct GalleryOptions: ParsableArguments {
  static let variable = "WORKBENCH_GALLERY"

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The gallery: a SQLite file, or postgres://user@host:port/database (default: $\(variable), else "
        + "$XDG_DATA_HOME/workbench/gallery.sqlite).",
      valueName: "file|url"))
  var gallery: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Same person when the distance is under this (default \(Gallery.defaultThreshold), dlib's usual).",
      valueName: "distance"))
  var threshold: Float = Gallery.defaultThreshold

  func validate() throws {
    guard threshold > 0, threshold < 2 else {
      throw ValidationError("--threshold must be more than 0 and less than 2, such as 0.6")
    }
  }

  /// The gallery; `create` makes a new one where there is none; `readOnly`
  /// for the commands that only read it.
  func open(create: Bool, readOnly: Bool = false) throws(GalleryFailure) -> Gallery {
    let named = gallery ?? ProcessInfo.processInfo.environment[Self.variable] ?? ""
    let location = named.isEmpty ? WorkbenchHome.defaultGallery() : named
    if named.isEmpty {
      // The user's own gallery: made on first enrollment, with its folder.
      guard create || FileManager.default.fileExists(atPath: location) else {
        throw GalleryFailure(
          .galleryUnavailable, "no gallery named, and none at \(location) yet",
          help: "enroll someone to start it (workbench gallery enroll --user NAME IMAGE), "
            + "or give --gallery FILE or set $\(Self.variable)")
      }
      try GalleryFailure.makeFolder(of: location, otherwise: "give --gallery FILE")
    }
    do {
      return try Gallery.open(location, create: create, readOnly: readOnly, threshold: threshold)
    } catch {
      throw GalleryFailure(error)
    }
  }

  /// The gallery with the photo reader (face estimator and recognizer).
  func openForPhotos(needsGallery: Bool = true, create: Bool = false, readOnly: Bool = false)
    throws(GalleryFailure) -> PhotoGallery
  {
    let gallery = needsGallery ? try open(create: create, readOnly: readOnly) : nil
    do {
      let home = try WorkbenchHome.locate()
      let recognizer = try FaceRecognizer(models: FaceRecognitionModels.resolve(home: home.root))
      let faces = try StillFaces(face: FaceEstimators.options(home: home), recognizer: recognizer)
      return PhotoGallery(gallery: gallery, faces: faces, threshold: threshold)
    } catch let error as FaceRecognitionError {
      throw GalleryFailure(error)
    } catch {
      throw GalleryFailure(.modelUnavailable, "\(error)")
    }
  }
}

/// Prints the answer, or the failure (its JSON on standard output, the
/// message on standard error), and ends with the exit code that goes with it.
func galleryAnswer(_ body: () throws(GalleryFailure) -> (JSONObject, match: Bool?)) throws {
  let answer: JSONObject
  let match: Bool?
  do {
    (answer, match) = try body()
  } catch {
    standardOutput(JSONValue.object(error.json).jsonText)
    throw fail(error.workbenchError)
  }
  standardOutput(JSONValue.object(answer).jsonText)
  if match == false { throw ExitCode(ExitStatus.failed.rawValue) }
}

/// Details given on the command line: a JSON object.
func galleryDetails(_ text: String?) throws(GalleryFailure) -> JSONObject? {
  guard let text else { return nil }
  guard let object = (try? JSONParser.parse(text))?.objectValue else {
    throw GalleryFailure(
      .invalidName, "--details must be a JSON object, such as '{\"desk\": 3}', not \(text)")
  }
  return object
}
