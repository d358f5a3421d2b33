import FaceRecognition

/// The gallery's tables as both backends create them, and the check that a
/// gallery being opened has this format. The SQL is written once; the few
/// words SQLite and PostgreSQL spell differently come from ``Dialect``.
enum GallerySchema {
  /// The format of the tables; a gallery of another version is refused.
  static let version = 1

  /// How each database spells what the tables need.
  enum Dialect {
    case sqlite
    case postgres

    /// A time in seconds since 1970.
    var seconds: String {
      switch self {
      case .sqlite: return "REAL"
      case .postgres: return "DOUBLE PRECISION"
      }
    }

    var bytes: String {
      switch self {
      case .sqlite: return "BLOB"
      case .postgres: return "BYTEA"
      }
    }

    /// A 64-bit primary key the database numbers itself.
    var generatedKey: String {
      switch self {
      case .sqlite: return "INTEGER PRIMARY KEY AUTOINCREMENT"
      case .postgres: return "BIGSERIAL PRIMARY KEY"
      }
    }

    /// An insert that leaves a row whose key is already taken as it is.
    func insertUnlessPresent(into table: String, columns: String, values: String) -> String {
      switch self {
      case .sqlite: return "INSERT OR IGNORE INTO \(table) (\(columns)) VALUES (\(values))"
      case .postgres: return "INSERT INTO \(table) (\(columns)) VALUES (\(values)) ON CONFLICT DO NOTHING"
      }
    }
  }

  /// The statements, in order, that create the tables and indexes not
  /// there yet and the format's rows of a new gallery's gallery_meta; an
  /// existing gallery keeps its rows, for ``checkFormat(schema:descriptor:)``.
  static func statements(_ dialect: Dialect) -> [String] {
    let seconds = dialect.seconds
    let tables = [
      "CREATE TABLE IF NOT EXISTS gallery_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
      "CREATE TABLE IF NOT EXISTS groups (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at \(seconds) NOT NULL)",
      """
      CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, name TEXT NOT NULL, details TEXT NOT NULL,
        created_at \(seconds) NOT NULL, updated_at \(seconds) NOT NULL)
      """,
      """
      CREATE TABLE IF NOT EXISTS memberships (
        group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (group_id, user_id))
      """,
      "CREATE INDEX IF NOT EXISTS memberships_user ON memberships(user_id)",
      """
      CREATE TABLE IF NOT EXISTS faces (id \(dialect.generatedKey),
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        descriptor \(dialect.bytes) NOT NULL CHECK (length(descriptor) = \(FaceDescriptor.byteCount)),
        image_sha256 TEXT NOT NULL, source TEXT NOT NULL, added_at \(seconds) NOT NULL, chip \(dialect.bytes))
      """,
      "CREATE INDEX IF NOT EXISTS faces_user ON faces(user_id)",
    ]
    let meta = [("schema", String(version)), ("descriptor", GalleryFormat.descriptorModel), ("revision", "0")]
    return tables
      + meta.map { key, value in
        dialect.insertUnlessPresent(into: "gallery_meta", columns: "key, value", values: "'\(key)', '\(value)'")
      }
  }

  /// Refuses a gallery whose gallery_meta names another format version
  /// (`schema`) or another descriptor model (`descriptor`) than this
  /// workbench's; nil for a row that is not there.
  static func checkFormat(schema: String?, descriptor: String?) throws(GalleryError) {
    guard schema == String(version) else {
      throw GalleryError(
        .unavailable, "the gallery's format is version \(schema ?? "?"), and this workbench reads \(version)",
        help: "open it with the workbench that wrote it, or export it there and import it here")
    }
    guard descriptor == GalleryFormat.descriptorModel else {
      throw GalleryError(
        .unavailable,
        "the gallery's faces were described by '\(descriptor ?? "?")', not \(GalleryFormat.descriptorModel)",
        help: "descriptors of different models cannot be compared: enroll the faces again in a new gallery")
    }
  }
}
