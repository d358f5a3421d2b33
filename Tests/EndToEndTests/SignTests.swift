import Foundation
import JSONCore
import TestSupport
import Testing

/// `workbench sign FILE…` signs files outside a run (FILE.sig.json beside
/// each), and `workbench verify` checks them.
@Suite struct SignTests {
  private let key = TestLicense.files.privateKey
  private let publicKey = TestLicense.files.publicKey

  /// Two fixture images copied into `folder`.
  private func images(in folder: TemporaryFolder) throws -> [String] {
    try ["0001", "0040"].map { name in
      let path = folder.file("\(name).jpg")
      try FileManager.default.copyItem(
        atPath: packageRoot + "/Tests/Fixtures/frames/\(name).jpg", toPath: path)
      return path
    }
  }

  @Test func signedImagesVerifyAndOneChangedByteIsFoundInTheFileThatChanged() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try images(in: folder)
    let sign = try workbench(["sign"] + files + ["--key", key], folder: folder)
    #expect(sign.status == 0, "\(sign)")
    #expect(sign.stdout.contains("signed      \(files[0]) → \(files[0]).sig.json"), "\(sign)")
    #expect(folder.listing.filter { $0.hasSuffix(".sig.json") } == ["0001.jpg.sig.json", "0040.jpg.sig.json"])
    // Nothing temporary is left beside them.
    #expect(folder.listing.filter { $0.hasSuffix(".tmp") } == [])

    // The file itself, its signature, or both at once.
    for paths in [[files[0]], [files[1] + ".sig.json"], files] {
      let good = try workbench(["verify"] + paths + ["--public-key", publicKey], folder: folder)
      #expect(good.status == 0, "\(good)")
      #expect(good.stdout.contains("verifies    yes"), "\(good)")
      #expect(!good.stdout.contains("verifies    no"), "\(good)")
    }

    var bytes = [UInt8](try #require(FileManager.default.contents(atPath: files[1])))
    let original = bytes
    bytes[bytes.count / 2] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: files[1]))
    let changed = try workbench(["verify"] + files + ["--public-key", publicKey], folder: folder)
    #expect(changed.status == 1, "\(changed)")
    #expect(changed.stderr.contains("error: \(files[1]): changed since it was signed"), "\(changed)")
    #expect(!changed.stderr.contains(files[0] + ":"), "\(changed)")
    try Data(original).write(to: URL(fileURLWithPath: files[1]))
    #expect(try workbench(["verify", files[1], "--public-key", publicKey], folder: folder).status == 0)
  }

  @Test func anotherKeyDoesNotVerify() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try images(in: folder)[0]
    #expect(try workbench(["sign", file, "--key", key], folder: folder).status == 0)
    let other = try TestLicense.make(in: try folder.subfolder("other"), features: [])
    let wrong = try workbench(["verify", file, "--public-key", other.publicKey], folder: folder)
    #expect(wrong.status == 1, "\(wrong)")
    #expect(
      wrong.stderr.contains("error: \(file).sig.json: the signature does not verify with public key"), "\(wrong)")
  }

  @Test func aMissingFileIsExit2WithItsPathAndNothingIsSigned() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try images(in: folder)[0]
    let missing = folder.file("gone.jpg")
    let sign = try workbench(["sign", file, missing, "--key", key], folder: folder)
    #expect(sign.status == 2, "\(sign)")
    #expect(sign.stderr.contains("error: \(missing): no such file"), "\(sign)")
    // Every input is checked before anything is written.
    #expect(!FileManager.default.fileExists(atPath: file + ".sig.json"))

    let verify = try workbench(["verify", missing, "--public-key", publicKey], folder: folder)
    #expect(verify.status == 2, "\(verify)")
    #expect(verify.stderr.contains("error: \(missing): no such file, and no signature for it"), "\(verify)")
    let unsigned = try workbench(["verify", file, "--public-key", publicKey], folder: folder)
    #expect(unsigned.status == 2, "\(unsigned)")
    #expect(unsigned.stderr.contains("error: \(file): no signature here"), "\(unsigned)")
  }

  @Test func keysThatCannotBeReadAreExit2NamingTheKeyFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try images(in: folder)[0]
    let noKey = folder.file("none.key.json")
    let missingKey = try workbench(["sign", file, "--key", noKey], folder: folder)
    #expect(missingKey.status == 2, "\(missingKey)")
    #expect(missingKey.stderr.contains("error: \(noKey): cannot read the private key"), "\(missingKey)")
    let publicInstead = try workbench(["sign", file, "--key", publicKey], folder: folder)
    #expect(publicInstead.status == 2, "\(publicInstead)")
    #expect(publicInstead.stderr.contains("this is the public key"), "\(publicInstead)")
    #expect(!FileManager.default.fileExists(atPath: file + ".sig.json"))

    #expect(try workbench(["sign", file, "--key", key], folder: folder).status == 0)
    let noPublic = try workbench(["verify", file, "--public-key", noKey], folder: folder)
    #expect(noPublic.status == 2, "\(noPublic)")
    #expect(noPublic.stderr.contains("error: \(noKey): cannot read the public key"), "\(noPublic)")
  }

  @Test func withoutKeyTheSettingNamesIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try images(in: folder)[0]
    let none = try workbench(["sign", file], folder: folder)
    #expect(none.status == 2, "\(none)")
    #expect(none.stderr.contains("the setting integrity.signing_key is empty"), "\(none)")
    let config = try folder.write("signing.json", #"{ "integrity.signing_key": "\#(key)" }"#)
    let fromSetting = try workbench(["sign", file, "--config", config], folder: folder)
    #expect(fromSetting.status == 0, "\(fromSetting)")
    #expect(try workbench(["verify", file, "--public-key", publicKey], folder: folder).status == 0)
  }
}
