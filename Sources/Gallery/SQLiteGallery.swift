import FaceRecognition
import Foundation
import GRDB
import JSONCore

/// A gallery in one SQLite file (WAL journal, so readers in other processes
/// never block a writer and a killed writer loses only its own unfinished
/// transaction).
public final class SQLiteGallery: GalleryStore {
  public let location: String
  let database: DatabaseQueue

  /// Opens the gallery at `path`, creating the file and its tables when
  /// `create` is true and the file is not there. `readOnly` is for the
  /// commands that only read: they also read a gallery file no one may
  /// write (mode 0444, or not writable by this user), which the others refuse.
  public init(path: String, create: Bool = true, readOnly: Bool = false) throws(GalleryError) {
    location = path
    let exists = FileManager.default.fileExists(atPath: path)
    if !exists && !create {
      throw GalleryError(
        .unavailable, "\(path): there is no gallery here",
        help: "enroll someone or create a group to start one: workbench gallery --gallery \(path) group create NAME")
    }
    let locked = exists && Self.isLocked(path)
    if locked && !readOnly {
      throw GalleryError(
        .unavailable, "\(path): the gallery file is read-only, so it cannot be changed",
        help: "make it writable to change it (chmod u+w); the commands that only read it work as it is")
    }
    var configuration = Configuration()
    // Other processes (kiosks, QA runners) may be writing: wait for them.
    configuration.busyMode = .timeout(10)
    configuration.foreignKeysEnabled = true
    do {
      if readOnly {
        configuration.readonly = true
        // A file no one may write is opened immutable: SQLite then takes no
        // lock and makes no -wal or -shm file beside it (which, made with
        // the file's own mode, would be left behind read-only).
        database = try DatabaseQueue(path: locked ? Self.immutableURI(path) : path, configuration: configuration)
        try database.read { db in try Self.checkFormat(db) }
      } else {
        configuration.journalMode = .wal
        database = try DatabaseQueue(path: path, configuration: configuration)
        try database.write { db in try Self.createTables(db) }
      }
    } catch {
      throw Self.failure(error, path: path, doing: "open")
    }
  }

  /// Whether the file at `path` may not be written: no write permission for
  /// anyone (which holds for root too), or none for this user.
  static func isLocked(_ path: String) -> Bool {
    var status = stat()
    guard stat(path, &status) == 0 else { return false }
    return status.st_mode & 0o222 == 0 || access(path, W_OK) != 0
  }

  /// `file:/absolute/path?immutable=1`, the path percent-encoded (SQLite reads URIs on Debian's build).
  static func immutableURI(_ path: String) -> String {
    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "/-._~")
    return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
  }

  private static func createTables(_ db: Database) throws {
    for statement in GallerySchema.statements(.sqlite) { try db.execute(sql: statement) }
    try checkFormat(db)
  }

  private static func checkFormat(_ db: Database) throws {
    try GallerySchema.checkFormat(
      schema: try String.fetchOne(db, sql: "SELECT value FROM gallery_meta WHERE key = 'schema'"),
      descriptor: try String.fetchOne(db, sql: "SELECT value FROM gallery_meta WHERE key = 'descriptor'"))
  }

  /// Runs `body` in one write transaction that also moves the revision on
  /// (and the removals, for a change that `removes`).
  private func change<T>(_ doing: String, removes: Bool = false, _ body: (Database) throws -> T) throws(GalleryError)
    -> T
  {
    do {
      return try database.write { db in
        let result = try body(db)
        try db.execute(
          sql: "UPDATE gallery_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'revision'")
        if removes {
          // A gallery made before this counter has no row yet.
          try db.execute(
            sql: """
              INSERT INTO gallery_meta (key, value) VALUES ('removals', '1')
              ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
              """)
        }
        return result
      }
    } catch {
      throw Self.failure(error, path: location, doing: doing)
    }
  }

  private func read<T>(_ doing: String, _ body: (Database) throws -> T) throws(GalleryError) -> T {
    do {
      return try database.read(body)
    } catch {
      throw Self.failure(error, path: location, doing: doing)
    }
  }

  private static func failure(_ error: any Error, path: String, doing: String) -> GalleryError {
    if let gallery = error as? GalleryError { return gallery }
    if let database = error as? DatabaseError {
      let message = database.message ?? "\(database.resultCode)"
      return GalleryError(
        .unavailable, "\(path): could not \(doing): \(message)",
        help: database.resultCode == .SQLITE_NOTADB
          ? "this file is not a gallery; give another --gallery" : "check the file and its folder")
    }
    return GalleryError(.unavailable, "\(path): could not \(doing): \(error)")
  }

  private static var now: Double { Date().timeIntervalSince1970 }

  // MARK: groups

  public func createGroup(_ id: String, name: String) throws(GalleryError) {
    try GalleryNames.checkGroup(id, name: name)
    try change("create the group") { db in
      guard try !Self.groupExists(db, id) else {
        throw GalleryError(.groupExists, "the group '\(id)' already exists")
      }
      try db.execute(
        sql: "INSERT INTO groups (id, name, created_at) VALUES (?, ?, ?)", arguments: [id, name, Self.now])
    }
  }

  public func removeGroup(_ id: String) throws(GalleryError) {
    try change("remove the group", removes: true) { db in
      try db.execute(sql: "DELETE FROM groups WHERE id = ?", arguments: [id])
      guard db.changesCount > 0 else { throw GalleryError.groupNotFound(id) }
    }
  }

  public func groups() throws(GalleryError) -> [GalleryGroup] {
    try read("list the groups") { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT g.id, g.name, (SELECT COUNT(*) FROM memberships m WHERE m.group_id = g.id) AS users
          FROM groups g ORDER BY g.id
          """
      ).map { GalleryGroup(id: $0["id"], name: $0["name"], userCount: $0["users"]) }
    }
  }

  private static func groupExists(_ db: Database, _ id: String) throws -> Bool {
    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM groups WHERE id = ?)", arguments: [id]) ?? false
  }

  private static func userExists(_ db: Database, _ id: String) throws -> Bool {
    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [id]) ?? false
  }

  // MARK: users

  public func enroll(_ enrollment: Enrollment) throws(GalleryError) -> [GalleryFace] {
    let user = enrollment.user
    try GalleryFormat.checkEnrollment(enrollment)
    return try change("enroll the user") { db in
      guard try !Self.userExists(db, user.id) else { throw GalleryError.userExists(user.id) }
      for group in user.groups where try !Self.groupExists(db, group) { throw GalleryError.groupNotFound(group) }
      let now = Self.now
      try db.execute(
        sql: "INSERT INTO users (id, name, details, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        arguments: [user.id, user.name, JSONValue.object(user.details).jsonText, now, now])
      for group in user.groups {
        try db.execute(
          sql: "INSERT OR IGNORE INTO memberships (group_id, user_id) VALUES (?, ?)", arguments: [group, user.id])
      }
      return try Self.insert(enrollment.faces, user: user.id, db: db, at: now)
    }
  }

  public func editUser(
    _ id: String, name: String?, details: JSONObject?, joining: [String], leaving: [String]
  ) throws(GalleryError) {
    try GalleryNames.checkEdit(name: name, details: details)
    try change("edit the user", removes: true) { db in
      guard try Self.userExists(db, id) else { throw GalleryError.userNotFound(id) }
      if let name {
        try db.execute(
          sql: "UPDATE users SET name = ?, updated_at = ? WHERE id = ?", arguments: [name, Self.now, id])
      }
      if let details {
        try db.execute(
          sql: "UPDATE users SET details = ?, updated_at = ? WHERE id = ?",
          arguments: [JSONValue.object(details).jsonText, Self.now, id])
      }
      for group in joining + leaving where try !Self.groupExists(db, group) {
        throw GalleryError.groupNotFound(group)
      }
      for group in joining {
        try db.execute(
          sql: "INSERT OR IGNORE INTO memberships (group_id, user_id) VALUES (?, ?)", arguments: [group, id])
      }
      for group in leaving {
        try db.execute(sql: "DELETE FROM memberships WHERE group_id = ? AND user_id = ?", arguments: [group, id])
      }
    }
  }

  public func removeUser(_ id: String) throws(GalleryError) {
    try change("remove the user", removes: true) { db in
      try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id])
      guard db.changesCount > 0 else { throw GalleryError.userNotFound(id) }
    }
  }

  public func user(_ id: String) throws(GalleryError) -> GalleryUser {
    try read("read the user") { db in
      guard let user = try Self.users(db, where: "u.id = ?", arguments: [id]).first else {
        throw GalleryError.userNotFound(id)
      }
      return user
    }
  }

  public func users(inGroup group: String?) throws(GalleryError) -> [GalleryUser] {
    try read("list the users") { db in
      guard let group else { return try Self.users(db, where: "1", arguments: []) }
      guard try Self.groupExists(db, group) else { throw GalleryError.groupNotFound(group) }
      return try Self.users(
        db, where: "u.id IN (SELECT user_id FROM memberships WHERE group_id = ?)", arguments: [group])
    }
  }

  private static func users(_ db: Database, where condition: String, arguments: StatementArguments) throws
    -> [GalleryUser]
  {
    try Row.fetchAll(
      db,
      sql: """
        SELECT u.id, u.name, u.details, u.created_at,
          (SELECT COUNT(*) FROM faces f WHERE f.user_id = u.id) AS faces,
          (SELECT group_concat(group_id, char(10)) FROM
            (SELECT group_id FROM memberships m WHERE m.user_id = u.id ORDER BY group_id)) AS groups
        FROM users u WHERE \(condition) ORDER BY u.id
        """, arguments: arguments
    ).map { row in
      let groups: String? = row["groups"]
      return GalleryUser(
        id: row["id"], name: row["name"], details: GalleryFormat.details(row["details"]),
        groups: groups.map { $0.split(separator: "\n").map(String.init) } ?? [], faceCount: row["faces"],
        createdAt: row["created_at"])
    }
  }

  // MARK: faces

  public func addFaces(_ faces: [NewFace], toUser user: String) throws(GalleryError) -> [GalleryFace] {
    try GalleryFormat.checkFaceCount(faces.count)
    return try change("add the faces") { db in
      guard try Self.userExists(db, user) else { throw GalleryError.userNotFound(user) }
      return try Self.insert(faces, user: user, db: db, at: Self.now)
    }
  }

  private static func insert(_ faces: [NewFace], user: String, db: Database, at time: Double) throws -> [GalleryFace] {
    var added: [GalleryFace] = []
    for face in faces {
      try db.execute(
        sql: "INSERT INTO faces (user_id, descriptor, image_sha256, source, added_at, chip) VALUES (?, ?, ?, ?, ?, ?)",
        arguments: [user, Data(face.descriptor.bytes), face.imageSHA256, face.source, time, face.chip.map { Data($0) }])
      added.append(
        GalleryFace(
          id: db.lastInsertedRowID, userID: user, imageSHA256: face.imageSHA256, source: face.source, addedAt: time))
    }
    return added
  }

  public func removeFace(_ id: Int64) throws(GalleryError) {
    try change("remove the face", removes: true) { db in
      try db.execute(sql: "DELETE FROM faces WHERE id = ?", arguments: [id])
      guard db.changesCount > 0 else { throw GalleryError(.faceNotFound, "there is no face \(id)") }
    }
  }

  public func faces(ofUser user: String) throws(GalleryError) -> [GalleryFace] {
    try read("list the faces") { db in
      guard try Self.userExists(db, user) else { throw GalleryError.userNotFound(user) }
      return try Row.fetchAll(
        db, sql: "SELECT id, image_sha256, source, added_at FROM faces WHERE user_id = ? ORDER BY id",
        arguments: [user]
      ).map {
        GalleryFace(
          id: $0["id"], userID: user, imageSHA256: $0["image_sha256"], source: $0["source"], addedAt: $0["added_at"])
      }
    }
  }

  public func chip(ofFace id: Int64) throws(GalleryError) -> [UInt8]? {
    try read("read the face") { db in
      let data = try Data.fetchOne(db, sql: "SELECT chip FROM faces WHERE id = ?", arguments: [id])
      return data.map { [UInt8]($0) }
    }
  }

  public func descriptors(user: String?, group: String?, after faceID: Int64?) throws(GalleryError)
    -> [StoredDescriptor]
  {
    try read("read the faces") { db in
      var sql = "SELECT id, user_id, descriptor FROM faces"
      var conditions: [String] = []
      var arguments: StatementArguments = []
      if let user {
        guard try Self.userExists(db, user) else { throw GalleryError.userNotFound(user) }
        conditions.append("user_id = ?")
        arguments += [user]
      } else if let group {
        guard try Self.groupExists(db, group) else { throw GalleryError.groupNotFound(group) }
        conditions.append("user_id IN (SELECT user_id FROM memberships WHERE group_id = ?)")
        arguments += [group]
      }
      if let faceID {
        conditions.append("id > ?")
        arguments += [faceID]
      }
      if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
      sql += " ORDER BY id"
      var result: [StoredDescriptor] = []
      let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
      while let row = try rows.next() {
        let bytes: Data = row["descriptor"]
        guard let descriptor = FaceDescriptor(bytes: bytes) else { continue }
        result.append(StoredDescriptor(faceID: row["id"], userID: row["user_id"], descriptor: descriptor))
      }
      return result
    }
  }

  public func faceCount(group: String?) throws(GalleryError) -> Int {
    try read("count the faces") { db in
      guard let group else { return try Int.fetchOne(db, sql: "SELECT count(*) FROM faces") ?? 0 }
      return try Int.fetchOne(
        db, sql: "SELECT count(*) FROM faces WHERE user_id IN (SELECT user_id FROM memberships WHERE group_id = ?)",
        arguments: [group]) ?? 0
    }
  }

  public func removals() throws(GalleryError) -> Int64 {
    try read("read the removals") { db in
      Int64(try String.fetchOne(db, sql: "SELECT value FROM gallery_meta WHERE key = 'removals'") ?? "0") ?? 0
    }
  }

  public func revision() throws(GalleryError) -> Int64 {
    try read("read the revision") { db in
      Int64(try String.fetchOne(db, sql: "SELECT value FROM gallery_meta WHERE key = 'revision'") ?? "0") ?? 0
    }
  }
}

extension SQLiteGallery {
  /// What SQLite's integrity check and the foreign key check find wrong;
  /// empty for a sound file.
  public func problems() throws(GalleryError) -> [String] {
    do {
      return try database.read { db in
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        let keys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { "foreign key: \($0)" }
        return integrity + keys
      }
    } catch {
      throw GalleryError(.unavailable, "\(location): could not check the file: \(error)")
    }
  }
}
