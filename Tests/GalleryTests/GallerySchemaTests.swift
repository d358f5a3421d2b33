import Testing

@testable import Gallery

/// The format check both backends run on opening a gallery. PostgreSQL's
/// copy needs a server to reach; the check it calls is tested here.
@Suite struct GallerySchemaTests {
  @Test func aGalleryOfThisFormatPasses() throws {
    try GallerySchema.checkFormat(schema: String(GallerySchema.version), descriptor: GalleryFormat.descriptorModel)
  }

  @Test func anotherFormatVersionIsRefusedWithHelp() {
    #expect {
      try GallerySchema.checkFormat(schema: "99", descriptor: GalleryFormat.descriptorModel)
    } throws: {
      let error = $0 as? GalleryError
      return error?.kind == .unavailable
        && error?.message == "the gallery's format is version 99, and this workbench reads \(GallerySchema.version)"
        && error?.help == "open it with the workbench that wrote it, or export it there and import it here"
    }
  }

  @Test func anotherDescriptorModelIsRefusedWithHelp() {
    #expect {
      try GallerySchema.checkFormat(schema: String(GallerySchema.version), descriptor: nil)
    } throws: {
      let error = $0 as? GalleryError
      return error?.kind == .unavailable
        && error?.message == "the gallery's faces were described by '?', not \(GalleryFormat.descriptorModel)"
        && error?.help == "descriptors of different models cannot be compared: enroll the faces again in a new gallery"
    }
  }

  @Test func eachDialectGetsItsOwnWords() {
    let sqlite = GallerySchema.statements(.sqlite).joined(separator: "\n")
    let postgres = GallerySchema.statements(.postgres).joined(separator: "\n")
    #expect(GallerySchema.statements(.sqlite).count == GallerySchema.statements(.postgres).count)
    for word in ["DOUBLE PRECISION", "BYTEA", "BIGSERIAL", "ON CONFLICT"] {
      #expect(!sqlite.contains(word), "\(word)")
      #expect(postgres.contains(word), "\(word)")
    }
    for word in ["REAL", "BLOB", "AUTOINCREMENT", "OR IGNORE"] {
      #expect(sqlite.contains(word), "\(word)")
      #expect(!postgres.contains(word), "\(word)")
    }
  }
}
