import ArgumentParser
import FileSystem
import Foundation
import Gallery
import JSONCore

struct GalleryGroupCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "group", abstract: "Create, remove and list groups.",
    subcommands: [Create.self, Remove.self, List.self])

  struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a group (group_exists when it is there).")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The group's id.", valueName: "id")) var id: String
    @Option(name: .long, help: ArgumentHelp("A display name (default: the id).", valueName: "name")) var name: String?

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        // Checked before the gallery is opened: a refused group makes no gallery file.
        try GalleryFailure.run { () throws(GalleryError) in try GalleryNames.checkGroup(id, name: name ?? id) }
        let store = try options.open(create: true).store
        try GalleryFailure.run { () throws(GalleryError) in try store.createGroup(id, name: name ?? id) }
        return (JSONObject([("created", .string(id))]), nil)
      }
    }
  }

  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a group; its users stay.")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The group's id.", valueName: "id")) var id: String

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let store = try options.open(create: false).store
        try GalleryFailure.run { () throws(GalleryError) in try store.removeGroup(id) }
        return (JSONObject([("removed", .string(id))]), nil)
      }
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the groups with their number of users.")
    @OptionGroup var options: GalleryOptions

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let store = try options.open(create: false, readOnly: true).store
        let groups = try GalleryFailure.run { () throws(GalleryError) in try store.groups() }
        return (JSONObject([("groups", .array(groups.map(GalleryJSON.group)))]), nil)
      }
    }
  }
}

struct GalleryUserCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "user", abstract: "Add, edit, remove, list and show users.",
    subcommands: [Add.self, Edit.self, Remove.self, List.self, Show.self])

  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Add a user without faces yet (user_exists when the id is taken).")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The user's id.", valueName: "id")) var id: String
    @Option(name: .long, help: ArgumentHelp("A display name (default: the id).", valueName: "name")) var name: String?
    @Option(name: .long, help: ArgumentHelp("Free-form details, a JSON object.", valueName: "json")) var details:
      String?
    @Option(name: .customLong("group"), help: ArgumentHelp("A group to put the user in (repeatable).", valueName: "id"))
    var groups: [String] = []

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let user = GalleryUser(
          id: id, name: name ?? id, details: try galleryDetails(details) ?? JSONObject(), groups: groups)
        try GalleryFailure.run { () throws(GalleryError) in try GalleryNames.check(user) }
        let store = try options.open(create: true).store
        _ = try GalleryFailure.run { () throws(GalleryError) in try store.enroll(Enrollment(user: user, faces: [])) }
        return (
          JSONObject([
            ("user", try GalleryFailure.run { () throws(GalleryError) in GalleryJSON.user(try store.user(id)) })
          ]), nil
        )
      }
    }
  }

  struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Change a user's name or details, or their groups.")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The user's id.", valueName: "id")) var id: String
    @Option(name: .long, help: ArgumentHelp("A new display name.", valueName: "name")) var name: String?
    @Option(name: .long, help: ArgumentHelp("New details, a JSON object (replaces them).", valueName: "json"))
    var details: String?
    @Option(name: .long, help: ArgumentHelp("Put the user in this group (repeatable).", valueName: "id"))
    var join: [String] = []
    @Option(name: .long, help: ArgumentHelp("Take the user out of this group (repeatable).", valueName: "id"))
    var leave: [String] = []

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let details = try galleryDetails(details)
        let store = try options.open(create: false).store
        let user = try GalleryFailure.run { () throws(GalleryError) in
          try store.editUser(id, name: name, details: details, joining: join, leaving: leave)
          return try store.user(id)
        }
        return (JSONObject([("user", GalleryJSON.user(user))]), nil)
      }
    }
  }

  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a user and their faces.")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The user's id.", valueName: "id")) var id: String

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let store = try options.open(create: false).store
        try GalleryFailure.run { () throws(GalleryError) in try store.removeUser(id) }
        return (JSONObject([("removed", .string(id))]), nil)
      }
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the users, or those of a group.")
    @OptionGroup var options: GalleryOptions
    @Option(name: .long, help: ArgumentHelp("Only this group's users.", valueName: "id")) var group: String?

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let store = try options.open(create: false, readOnly: true).store
        let users = try GalleryFailure.run { () throws(GalleryError) in try store.users(inGroup: group) }
        return (JSONObject([("users", .array(users.map { GalleryJSON.user($0) }))]), nil)
      }
    }
  }

  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a user with their faces.")
    @OptionGroup var options: GalleryOptions
    @Argument(help: ArgumentHelp("The user's id.", valueName: "id")) var id: String

    func run() throws {
      try galleryAnswer { () throws(GalleryFailure) in
        let store = try options.open(create: false, readOnly: true).store
        let shown = try GalleryFailure.run { () throws(GalleryError) in
          GalleryJSON.user(try store.user(id), faces: try store.faces(ofUser: id))
        }
        return (JSONObject([("user", shown)]), nil)
      }
    }
  }
}

struct GalleryExportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write every group, user and face descriptor as JSON Lines (a backup, or to move to another backend).")
  @OptionGroup var options: GalleryOptions
  @Argument(help: ArgumentHelp("The file to write (written whole, then renamed into place).", valueName: "file"))
  var file: String

  func run() throws {
    try galleryAnswer { () throws(GalleryFailure) in
      let store = try options.open(create: false, readOnly: true).store
      let lines = try GalleryFailure.run { () throws(GalleryError) in try GalleryTransfer.export(store) }
      do throws(AtomicFileError) {
        // A reader never sees a half-written export.
        try AtomicFile.write(
          Data((lines.joined(separator: "\n") + "\n").utf8), to: file, temporaryName: .suffix(".tmp"),
          permissions: .masked(0o666))
      } catch {
        throw GalleryFailure(.invalidImport, "\(file): could not write the export: \(error.reason)")
      }
      return (JSONObject([("exported", .string(file)), ("lines", .integer(Int64(lines.count)))]), nil)
    }
  }
}

struct GalleryImportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Add the groups and users of an export, each user in a transaction of its own.")
  @OptionGroup var options: GalleryOptions
  @Flag(name: .long, help: "Skip users whose id is taken (else: user_exists, and the import stops there).")
  var skipExisting = false
  @Argument(help: ArgumentHelp("A file `gallery export` wrote.", valueName: "file")) var file: String

  func run() throws {
    try galleryAnswer { () throws(GalleryFailure) in
      guard let data = FileManager.default.contents(atPath: file) else {
        throw GalleryFailure(.invalidImagePath, "\(file): there is no file here to import")
      }
      let text = String(decoding: data, as: UTF8.self)
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      // A file that is not an export makes no gallery file.
      try GalleryTransfer.checkHeader(lines, file: file)
      let store = try options.open(create: true).store
      let imported = try GalleryTransfer.import(lines, into: store, file: file, skipExisting: skipExisting)
      return (
        JSONObject([
          ("groups", .integer(Int64(imported.groups))), ("users", .integer(Int64(imported.users))),
          ("faces", .integer(Int64(imported.faces))), ("skipped", .integer(Int64(imported.skipped))),
        ]), nil
      )
    }
  }
}
