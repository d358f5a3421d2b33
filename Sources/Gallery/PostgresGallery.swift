import FaceRecognition
import Foundation
import JSONCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// A gallery in a PostgreSQL database, shared by every workbench that
/// names it (`--gallery postgres://user:password@host:port/database`):
/// kiosks and QA runners enroll into and search one gallery. The tables
/// are those of the SQLite file (``GallerySchema``); every change is one
/// transaction that also moves the revision on, so every process's search
/// index notices it.
/// Calls block the calling thread (never an event loop's) until the server
/// answers.
public final class PostgresGallery: GalleryStore {
  public let location: String
  private let connection: PostgresConnection
  private let group: MultiThreadedEventLoopGroup
  private let logger: Logger

  /// Connects to the database of `url` and creates the tables when they are not there.
  public init(url: String, logger: Logger = Logger(label: "workbench.gallery")) throws(GalleryError) {
    let parsed = try PostgresLocation(url)
    location = parsed.display
    self.logger = logger
    group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let tls: PostgresConnection.Configuration.TLS
    do {
      tls = try parsed.security.connectionTLS()
    } catch {
      try? group.syncShutdownGracefully()
      throw error
    }
    let configuration = PostgresConnection.Configuration(
      host: parsed.host, port: parsed.port, username: parsed.user, password: parsed.password,
      database: parsed.database, tls: tls)
    do {
      connection = try PostgresConnection.connect(
        on: group.next(), configuration: configuration, id: 1, logger: logger
      ).wait()
    } catch {
      try? group.syncShutdownGracefully()
      throw parsed.security.connectionFailure(error, display: parsed.display, reason: Self.reason(error))
    }
    do {
      try transaction("create the tables", revision: false) { run in
        // Two processes starting at once must not both create the tables.
        _ = try run("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
        for statement in GallerySchema.statements(.postgres) { _ = try run(PostgresQuery(unsafeSQL: statement)) }
        let rows = try run("SELECT key, value FROM gallery_meta WHERE key IN ('schema', 'descriptor')")
        var meta: [String: String] = [:]
        for row in rows {
          let cells = row.makeRandomAccess()
          meta[try cells["key"].decode(String.self)] = try cells["value"].decode(String.self)
        }
        try GallerySchema.checkFormat(schema: meta["schema"], descriptor: meta["descriptor"])
      }
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  private var closed = false
  private func close() {
    guard !closed else { return }
    closed = true
    try? connection.close().wait()
    try? group.syncShutdownGracefully()
  }

  static let lockKey: Int64 = 0x776F_726B_6265_6E63  // "workbenc"

  // MARK: running queries

  private typealias Run = (PostgresQuery) throws -> [PostgresRow]

  private func query(_ query: PostgresQuery) throws -> [PostgresRow] {
    try connection.query(query, logger: logger).wait().rows
  }

  /// Runs `body` in one transaction; a change also moves the revision on.
  /// Any error rolls it back. `duplicate` is the error of a unique key
  /// taken by another process between the check and the insert.
  @discardableResult
  private func transaction<T>(
    _ doing: String, revision: Bool = true, removes: Bool = false, duplicate: GalleryError? = nil,
    _ body: (Run) throws -> T
  ) throws(GalleryError) -> T {
    do {
      _ = try query("BEGIN")
    } catch {
      throw failure(error, doing: doing)
    }
    do {
      let result = try body { try self.query($0) }
      if revision {
        _ = try query("UPDATE gallery_meta SET value = (value::bigint + 1)::text WHERE key = 'revision'")
      }
      if removes {
        // A gallery made before this counter has no row yet.
        _ = try query(
          """
          INSERT INTO gallery_meta (key, value) VALUES ('removals', '1')
          ON CONFLICT (key) DO UPDATE SET value = (gallery_meta.value::bigint + 1)::text
          """)
      }
      _ = try query("COMMIT")
      return result
    } catch {
      _ = try? query("ROLLBACK")
      if let duplicate, Self.isUniqueViolation(error) { throw duplicate }
      throw failure(error, doing: doing)
    }
  }

  private func read<T>(_ doing: String, _ body: (Run) throws -> T) throws(GalleryError) -> T {
    try transaction(doing, revision: false, body)
  }

  private func failure(_ error: any Error, doing: String) -> GalleryError {
    if let gallery = error as? GalleryError { return gallery }
    return GalleryError(.unavailable, "\(location): could not \(doing): \(Self.reason(error))")
  }

  static func reason(_ error: any Error) -> String {
    if let psql = error as? PSQLError {
      if let message = psql.serverInfo?[.message] { return message }
      return "\(psql.code)"
    }
    return "\(error)"
  }

  static func isUniqueViolation(_ error: any Error) -> Bool {
    (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
  }

  private static var now: Double { Date().timeIntervalSince1970 }

  private static func exists(_ run: Run, _ table: String, _ id: String) throws -> Bool {
    try !run(PostgresQuery(unsafeSQL: "SELECT 1 FROM \(table) WHERE id = $1", binds: binds(id))).isEmpty
  }

  private static func binds(_ values: String...) -> PostgresBindings {
    var bindings = PostgresBindings()
    for value in values { bindings.append(value) }
    return bindings
  }

  // MARK: groups

  public func createGroup(_ id: String, name: String) throws(GalleryError) {
    try GalleryNames.checkGroup(id, name: name)
    let exists = GalleryError(.groupExists, "the group '\(id)' already exists")
    try transaction("create the group", duplicate: exists) { run in
      guard try !Self.exists(run, "groups", id) else { throw exists }
      _ = try run("INSERT INTO groups (id, name, created_at) VALUES (\(id), \(name), \(Self.now))")
    }
  }

  public func removeGroup(_ id: String) throws(GalleryError) {
    try transaction("remove the group", removes: true) { run in
      guard try !run("DELETE FROM groups WHERE id = \(id) RETURNING id").isEmpty else {
        throw GalleryError.groupNotFound(id)
      }
    }
  }

  public func groups() throws(GalleryError) -> [GalleryGroup] {
    try read("list the groups") { run in
      try run(
        """
        SELECT g.id, g.name, (SELECT COUNT(*) FROM memberships m WHERE m.group_id = g.id) AS users
        FROM groups g ORDER BY g.id
        """
      ).map { row in
        let cells = row.makeRandomAccess()
        return GalleryGroup(
          id: try cells["id"].decode(String.self), name: try cells["name"].decode(String.self),
          userCount: Int(try cells["users"].decode(Int64.self)))
      }
    }
  }

  // MARK: users

  public func enroll(_ enrollment: Enrollment) throws(GalleryError) -> [GalleryFace] {
    let user = enrollment.user
    try GalleryFormat.checkEnrollment(enrollment)
    return try transaction("enroll the user", duplicate: GalleryError.userExists(user.id)) { run in
      guard try !Self.exists(run, "users", user.id) else { throw GalleryError.userExists(user.id) }
      for group in user.groups where try !Self.exists(run, "groups", group) {
        throw GalleryError.groupNotFound(group)
      }
      let now = Self.now
      let details = JSONValue.object(user.details).jsonText
      _ = try run(
        """
        INSERT INTO users (id, name, details, created_at, updated_at)
        VALUES (\(user.id), \(user.name), \(details), \(now), \(now))
        """)
      for group in user.groups {
        _ = try run(
          "INSERT INTO memberships (group_id, user_id) VALUES (\(group), \(user.id)) ON CONFLICT DO NOTHING")
      }
      return try Self.insert(enrollment.faces, user: user.id, run: run, at: now)
    }
  }

  public func editUser(
    _ id: String, name: String?, details: JSONObject?, joining: [String], leaving: [String]
  ) throws(GalleryError) {
    try GalleryNames.checkEdit(name: name, details: details)
    try transaction("edit the user", removes: true) { run in
      guard try Self.exists(run, "users", id) else { throw GalleryError.userNotFound(id) }
      if let name { _ = try run("UPDATE users SET name = \(name), updated_at = \(Self.now) WHERE id = \(id)") }
      if let details {
        let text = JSONValue.object(details).jsonText
        _ = try run("UPDATE users SET details = \(text), updated_at = \(Self.now) WHERE id = \(id)")
      }
      for group in joining + leaving where try !Self.exists(run, "groups", group) {
        throw GalleryError.groupNotFound(group)
      }
      for group in joining {
        _ = try run("INSERT INTO memberships (group_id, user_id) VALUES (\(group), \(id)) ON CONFLICT DO NOTHING")
      }
      for group in leaving {
        _ = try run("DELETE FROM memberships WHERE group_id = \(group) AND user_id = \(id)")
      }
    }
  }

  public func removeUser(_ id: String) throws(GalleryError) {
    try transaction("remove the user", removes: true) { run in
      guard try !run("DELETE FROM users WHERE id = \(id) RETURNING id").isEmpty else {
        throw GalleryError.userNotFound(id)
      }
    }
  }

  public func user(_ id: String) throws(GalleryError) -> GalleryUser {
    try read("read the user") { run in
      guard let user = try Self.users(run, where: "u.id = $1", binds: Self.binds(id)).first else {
        throw GalleryError.userNotFound(id)
      }
      return user
    }
  }

  public func users(inGroup group: String?) throws(GalleryError) -> [GalleryUser] {
    try read("list the users") { run in
      guard let group else { return try Self.users(run, where: "TRUE", binds: PostgresBindings()) }
      guard try Self.exists(run, "groups", group) else { throw GalleryError.groupNotFound(group) }
      return try Self.users(
        run, where: "u.id IN (SELECT user_id FROM memberships WHERE group_id = $1)", binds: Self.binds(group))
    }
  }

  private static func users(_ run: Run, where condition: String, binds: PostgresBindings) throws -> [GalleryUser] {
    try run(
      PostgresQuery(
        unsafeSQL: """
          SELECT u.id, u.name, u.details, u.created_at,
            (SELECT COUNT(*) FROM faces f WHERE f.user_id = u.id) AS faces,
            COALESCE((SELECT string_agg(group_id, E'\\n' ORDER BY group_id) FROM memberships m
              WHERE m.user_id = u.id), '') AS groups
          FROM users u WHERE \(condition) ORDER BY u.id
          """, binds: binds)
    ).map { row in
      let cells = row.makeRandomAccess()
      let groups = try cells["groups"].decode(String.self)
      return GalleryUser(
        id: try cells["id"].decode(String.self), name: try cells["name"].decode(String.self),
        details: GalleryFormat.details(try cells["details"].decode(String.self)),
        groups: groups.split(separator: "\n").map(String.init), faceCount: Int(try cells["faces"].decode(Int64.self)),
        createdAt: try cells["created_at"].decode(Double.self))
    }
  }

  // MARK: faces

  public func addFaces(_ faces: [NewFace], toUser user: String) throws(GalleryError) -> [GalleryFace] {
    try GalleryFormat.checkFaceCount(faces.count)
    return try transaction("add the faces") { run in
      guard try Self.exists(run, "users", user) else { throw GalleryError.userNotFound(user) }
      return try Self.insert(faces, user: user, run: run, at: Self.now)
    }
  }

  private static func insert(_ faces: [NewFace], user: String, run: Run, at time: Double) throws -> [GalleryFace] {
    var added: [GalleryFace] = []
    for face in faces {
      let bytes = Data(face.descriptor.bytes)
      let chip = face.chip.map { Data($0) }
      let rows = try run(
        """
        INSERT INTO faces (user_id, descriptor, image_sha256, source, added_at, chip)
        VALUES (\(user), \(bytes), \(face.imageSHA256), \(face.source), \(time), \(chip)) RETURNING id
        """)
      let id = try rows.first?.makeRandomAccess()["id"].decode(Int64.self) ?? -1
      added.append(
        GalleryFace(id: id, userID: user, imageSHA256: face.imageSHA256, source: face.source, addedAt: time))
    }
    return added
  }

  public func removeFace(_ id: Int64) throws(GalleryError) {
    try transaction("remove the face", removes: true) { run in
      guard try !run("DELETE FROM faces WHERE id = \(id) RETURNING id").isEmpty else {
        throw GalleryError(.faceNotFound, "there is no face \(id)")
      }
    }
  }

  public func faces(ofUser user: String) throws(GalleryError) -> [GalleryFace] {
    try read("list the faces") { run in
      guard try Self.exists(run, "users", user) else { throw GalleryError.userNotFound(user) }
      return try run("SELECT id, image_sha256, source, added_at FROM faces WHERE user_id = \(user) ORDER BY id").map {
        row in
        let cells = row.makeRandomAccess()
        return GalleryFace(
          id: try cells["id"].decode(Int64.self), userID: user,
          imageSHA256: try cells["image_sha256"].decode(String.self),
          source: try cells["source"].decode(String.self), addedAt: try cells["added_at"].decode(Double.self))
      }
    }
  }

  public func chip(ofFace id: Int64) throws(GalleryError) -> [UInt8]? {
    try read("read the face") { run in
      guard let cells = try run("SELECT chip FROM faces WHERE id = \(id)").first?.makeRandomAccess() else {
        return nil
      }
      return try cells["chip"].decode(Data?.self).map { [UInt8]($0) }
    }
  }

  public func descriptors(user: String?, group: String?, after faceID: Int64?) throws(GalleryError)
    -> [StoredDescriptor]
  {
    try read("read the faces") { run in
      let rows: [PostgresRow]
      let above = faceID ?? Int64.min
      if let user {
        guard try Self.exists(run, "users", user) else { throw GalleryError.userNotFound(user) }
        rows = try run(
          "SELECT id, user_id, descriptor FROM faces WHERE user_id = \(user) AND id > \(above) ORDER BY id")
      } else if let group {
        guard try Self.exists(run, "groups", group) else { throw GalleryError.groupNotFound(group) }
        rows = try run(
          """
          SELECT id, user_id, descriptor FROM faces
          WHERE user_id IN (SELECT user_id FROM memberships WHERE group_id = \(group)) AND id > \(above) ORDER BY id
          """)
      } else {
        rows = try run("SELECT id, user_id, descriptor FROM faces WHERE id > \(above) ORDER BY id")
      }
      return try rows.compactMap { row in
        let cells = row.makeRandomAccess()
        guard let descriptor = FaceDescriptor(bytes: try cells["descriptor"].decode(Data.self)) else { return nil }
        return StoredDescriptor(
          faceID: try cells["id"].decode(Int64.self), userID: try cells["user_id"].decode(String.self),
          descriptor: descriptor)
      }
    }
  }

  public func faceCount(group: String?) throws(GalleryError) -> Int {
    try read("count the faces") { run in
      let rows: [PostgresRow]
      if let group {
        rows = try run(
          "SELECT count(*) AS n FROM faces WHERE user_id IN (SELECT user_id FROM memberships WHERE group_id = \(group))"
        )
      } else {
        rows = try run("SELECT count(*) AS n FROM faces")
      }
      return Int(try rows.first?.makeRandomAccess()["n"].decode(Int64.self) ?? 0)
    }
  }

  /// Whether the server says this connection is encrypted (`pg_stat_ssl`).
  public func connectionIsEncrypted() throws(GalleryError) -> Bool {
    try read("ask whether the connection is encrypted") { run in
      let rows = try run("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
      return try rows.first?.makeRandomAccess()["ssl"].decode(Bool.self) ?? false
    }
  }

  public func removals() throws(GalleryError) -> Int64 {
    try read("read the removals") { run in
      let rows = try run("SELECT value FROM gallery_meta WHERE key = 'removals'")
      return Int64(try rows.first?.makeRandomAccess()["value"].decode(String.self) ?? "0") ?? 0
    }
  }

  public func revision() throws(GalleryError) -> Int64 {
    try read("read the revision") { run in
      let rows = try run("SELECT value FROM gallery_meta WHERE key = 'revision'")
      return Int64(try rows.first?.makeRandomAccess()["value"].decode(String.self) ?? "0") ?? 0
    }
  }
}

/// The parts of a postgres:// URL.
struct PostgresLocation {
  var host: String
  var port: Int
  var user: String
  var password: String?
  var database: String?
  /// `sslmode` and `sslrootcert`, as libpq reads them.
  var security: PostgresSecurity
  /// The URL without its password, for messages.
  var display: String

  init(_ text: String) throws(GalleryError) {
    guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql",
      let host = url.host, !host.isEmpty
    else {
      throw GalleryError(
        .unavailable, "'\(text)' is not a PostgreSQL URL",
        help: "write it as postgres://user:password@host:5432/database")
    }
    self.host = host
    port = url.port ?? 5432
    user = url.user ?? "postgres"
    password = url.password
    let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
    database = path.isEmpty ? nil : path
    display = "postgres://\(user)@\(host):\(port)/\(database ?? "")"
    security = try PostgresSecurity(url.queryItems ?? [], display: display)
  }
}
