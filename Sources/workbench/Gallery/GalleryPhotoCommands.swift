import ArgumentParser
import Gallery
import JSONCore

struct GalleryEnrollCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "enroll",
    abstract: "Add a new user with one to 5 photos of their face (REGISTER).",
    discussion: "Each photo must show one face (people far behind aside). user_exists when the id is taken.")
  @OptionGroup var options: GalleryOptions
  @Option(name: .long, help: ArgumentHelp("The new user's id.", valueName: "id")) var user: String
  @Option(name: .long, help: ArgumentHelp("A display name (default: the id).", valueName: "name")) var name: String?
  @Option(name: .long, help: ArgumentHelp("Free-form details, a JSON object.", valueName: "json")) var details: String?
  @Option(name: .customLong("group"), help: ArgumentHelp("A group to put the user in (repeatable).", valueName: "id"))
  var groups: [String] = []
  @Argument(help: ArgumentHelp("Photos of the user's face (JPEG, PNG or BMP).", valueName: "image"))
  var images: [String] = []

  func run() throws {
    try galleryAnswer { () throws(GalleryFailure) in
      let user = GalleryUser(
        id: user, name: name ?? user, details: try galleryDetails(details) ?? JSONObject(), groups: groups)
      // Checked before the gallery is opened: a refused enrollment makes no gallery file.
      try GalleryFailure.run { () throws(GalleryError) in try GalleryNames.check(user) }
      return (try options.openForPhotos(create: true).enroll(user, images: images), nil)
    }
  }
}

struct GalleryFaceCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "face", abstract: "Add faces to a user (FACE_ADD), or remove one.",
    subcommands: [Add.self, Remove.self])

  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add one to 5 photos of an existing user's face.")
    @OptionGroup var options: GalleryOptions
    @Option(name: .long, help: ArgumentHelp("The user's id.", valueName: "id")) var user: String
    @Argument(help: ArgumentHelp("Photos of the user's face.", valueName: "image")) var images: [String] = []

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        (try options.openForPhotos().addFaces(user: user, images: images), nil)
      }
    }
  }

  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove one face by its id (`user show` lists them).")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The face's id.", valueName: "id")) var id: Int64

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let store = try options.open(create: false).store
        try GalleryFailure.run { () throws(GalleryError) in try store.removeFace(id) }
        return (JSONObject([("removed", .integer(id))]), nil)
      }
    }
  }
}

struct GalleryVerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Is the person in the photo this user? (1:1, VERIFICATION) Exit 0 on a match, 1 on none.")
  @OptionGroup var options: GalleryOptions
  @Option(name: .long, help: ArgumentHelp("The user to compare with.", valueName: "id")) var user: String
  @Argument(help: ArgumentHelp("A photo of one face.", valueName: "image")) var image: String?

  func run() throws {
    try galleryAnswer { () throws(GalleryFailure) in
      let (answer, match) = try options.openForPhotos(readOnly: true).verify(
        user: user, image: try requiredImage(image))
      return (answer, match)
    }
  }
}

struct GalleryIdentifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "identify",
    abstract: "Who is the person in the photo? (1:N in a group, RECOGNITION) Exit 0 on a match, 1 on none.")
  @OptionGroup var options: GalleryOptions
  @Option(name: .long, help: ArgumentHelp("The group to search (default: every user).", valueName: "id"))
  var group: String?
  @Option(name: .long, help: ArgumentHelp("How many nearest users to list.", valueName: "k")) var top: Int = 1
  @Argument(help: ArgumentHelp("A photo of one face.", valueName: "image")) var image: String?

  func validate() throws {
    guard (1...100).contains(top) else { throw ValidationError("--top must be 1 to 100, not \(top)") }
  }

  func run() throws {
    try galleryAnswer { () throws(GalleryFailure) in
      let (answer, match) = try options.openForPhotos(readOnly: true).identify(
        group: group, image: try requiredImage(image), top: top)
      return (answer, match)
    }
  }
}

struct GalleryMatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "match",
    abstract: "Are two photos of the same person? No gallery needed. Exit 0 on a match, 1 on none.")
  @OptionGroup var options: GalleryOptions
  @Argument(help: ArgumentHelp("Two photos, one face each.", valueName: "image")) var images: [String] = []

  func run() throws {
    try galleryAnswer { () throws(GalleryFailure) in
      guard images.count == 2 else {
        throw GalleryFailure(
          images.count < 2 ? .missingImage : .invalidName, "match compares two photos, and \(images.count) were given",
          help: "workbench gallery match FIRST.jpg SECOND.jpg")
      }
      let (answer, match) = try options.openForPhotos(needsGallery: false).match(images[0], images[1])
      return (answer, match)
    }
  }
}

/// The one photo a command needs, or missing_image.
func requiredImage(_ image: String?) throws(GalleryFailure) -> String {
  guard let image, !image.isEmpty else {
    throw GalleryFailure(.missingImage, "no image given", help: "give a photo of one face")
  }
  return image
}
