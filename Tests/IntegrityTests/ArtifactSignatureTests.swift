import Diagnostics
import Foundation
import JSONCore
import Licensing
import TestSupport
import Testing

@testable import Integrity

/// Signing a run's artifacts and single files, and checking the signature
/// file, with keys made by the tests.
@Suite struct ArtifactSignatureTests {
  let key = LicenseKeyPair.generate()

  /// A folder with a recording and a captured image, signed as a run signs them.
  func signedRun() throws -> (folder: TemporaryFolder, signature: String) {
    let folder = try TemporaryFolder(prefix: "integrity-tests")
    let recording = try folder.write("session.avi", "RIFF....AVI frames")
    let image = try folder.write("captures/portrait.jpg", "\u{FF}\u{D8} a picture")
    let signature = try ArtifactSignature.sign(
      files: [recording, image], folder: folder.path, flow: "hkid", resultCode: 0, resultReason: "passed",
      timestamps: [("start", 0), ("portrait", 1.25), ("stop", 3.5)], key: key.privateKey)
    return (folder, signature)
  }

  /// The signature file's JSON object, for a test to change.
  func document(_ path: String) throws -> JSONObject {
    try #require(try JSONParser.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path)))).objectValue)
  }

  func write(_ document: JSONObject, to path: String) throws {
    try Data(JSONValue.object(document).jsonText.utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test func aSignedRunVerifiesAndItsManifestIsWhatWasSigned() throws {
    let (folder, signature) = try signedRun()
    defer { folder.remove() }
    #expect(signature == folder.file(ArtifactSignature.fileName))
    let verification = try ArtifactSignature.verify(path: folder.path, publicKey: key.publicKey)
    #expect(verification.verifies, "\(verification.problems)")
    let manifest = try #require(verification.manifest)
    #expect(manifest.isRun)
    #expect(manifest.flow == "hkid" && manifest.resultCode == 0 && manifest.resultReason == "passed")
    #expect(manifest.timestamps.map(\.name) == ["start", "portrait", "stop"])
    #expect(manifest.timestamps.map(\.t) == [0, 1.25, 3.5])
    // Named relative to the signature's folder, so that the folder can move.
    #expect(manifest.files.map(\.path) == ["session.avi", "captures/portrait.jpg"])
    let recordingHash = try ArtifactSignature.sha256(of: folder.file("session.avi"))
    #expect(manifest.files[0].sha256 == recordingHash && recordingHash.count == 64)
  }

  @Test func theFileHoldsTheFormatThePayloadItsSignatureAndTheKeysId() throws {
    let (folder, signature) = try signedRun()
    defer { folder.remove() }
    let object = try document(signature)
    #expect(object.keys.sorted() == ["payload", "public_key", "signature", "workbench_signature"])
    #expect(object["workbench_signature"] == .integer(ArtifactSignature.formatVersion))
    #expect(object["public_key"]?.stringValue == key.publicKey.id)
    let payload = try #require(object["payload"]?.stringValue.flatMap { Data(base64Encoded: $0) })
    let signed = try #require(object["signature"]?.stringValue.flatMap { Data(base64Encoded: $0) })
    #expect(key.publicKey.isValidSignature(signed, for: payload))
    // Canonical JSON: keys sorted at every level, no spaces.
    let text = String(decoding: payload, as: UTF8.self)
    #expect(text.hasPrefix(#"{"files":[{"path":"session.avi","sha256":""#), "\(text)")
    #expect(
      text.hasSuffix(
        #""flow":"hkid","result":{"code":0,"reason":"passed"},"timestamps":[{"name":"start","t":0},{"name":"portrait","t":1.25},{"name":"stop","t":3.5}]}"#
      ), "\(text)")
  }

  @Test func theManifestSurvivesItsPayload() throws {
    let run = ArtifactSignature.Manifest(
      flow: "f", resultCode: -4, resultReason: "camera_lost", timestamps: [("start", 0.5)],
      files: [("a.jpg", String(repeating: "0", count: 64))])
    #expect(ArtifactSignature.Manifest(payload: run.payload) == run)
    let file = ArtifactSignature.Manifest(files: [("photo.jpg", String(repeating: "f", count: 64))])
    let back = try #require(ArtifactSignature.Manifest(payload: file.payload))
    #expect(back == file && !back.isRun)
    // A run's fields only in part is not a manifest.
    #expect(ArtifactSignature.Manifest(payload: Data(#"{"files":[],"flow":"f"}"#.utf8)) == nil)
    #expect(ArtifactSignature.Manifest(payload: Data(#"{"files":[{"path":"a"}]}"#.utf8)) == nil)
  }

  @Test func aChangedFileAndAMissingOneAreEachNamed() throws {
    let (folder, _) = try signedRun()
    defer { folder.remove() }
    try folder.write("session.avi", "RIFF....AVI frameZ")
    try FileManager.default.removeItem(atPath: folder.file("captures/portrait.jpg"))
    let verification = try ArtifactSignature.verify(path: folder.path, publicKey: key.publicKey)
    #expect(!verification.verifies)
    #expect(verification.manifest != nil)
    let problems = verification.problems.map { ($0.location?.file ?? "", $0.message) }
    #expect(problems.count == 2)
    #expect(problems[0].0 == folder.file("session.avi") && problems[0].1.hasPrefix("changed since it was signed"))
    #expect(problems[1] == (folder.file("captures/portrait.jpg"), "missing: the signature covers this file"))
  }

  @Test func anotherKeyDoesNotVerifyAndNothingOfThePayloadIsTrusted() throws {
    let (folder, _) = try signedRun()
    defer { folder.remove() }
    let other = LicenseKeyPair.generate()
    let verification = try ArtifactSignature.verify(path: folder.path, publicKey: other.publicKey)
    #expect(!verification.verifies)
    #expect(verification.manifest == nil)
    #expect(verification.problems.count == 1)
    #expect(
      verification.problems.first?.message.contains("does not verify with public key \(other.publicKey.id)") == true)
  }

  @Test func aPayloadChangedAfterSigningDoesNotVerify() throws {
    let (folder, signature) = try signedRun()
    defer { folder.remove() }
    var object = try document(signature)
    let payload = try #require(object["payload"]?.stringValue.flatMap { Data(base64Encoded: $0) })
    let forged = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "passed", with: "failed")
    object["payload"] = .string(Data(forged.utf8).base64EncodedString())
    try write(object, to: signature)
    let verification = try ArtifactSignature.verify(path: folder.path, publicKey: key.publicKey)
    #expect(!verification.verifies && verification.manifest == nil)
    #expect(verification.problems.first?.message.contains("does not verify") == true)
  }

  @Test(arguments: [
    #"{"workbench_signature":2,"payload":"e30=","signature":"AA==","public_key":"x"}"#,
    #"{"workbench_signature":1,"payload":"not base64!","signature":"AA==","public_key":"x"}"#,
    #"{"workbench_signature":1}"#, "[1, 2, 3]", "not json",
  ])
  func aFileThatIsNotASignatureSaysSo(text: String) throws {
    let folder = try TemporaryFolder(prefix: "integrity-tests")
    defer { folder.remove() }
    let path = try folder.write(ArtifactSignature.fileName, text)
    let verification = try ArtifactSignature.verify(path: path, publicKey: key.publicKey)
    #expect(!verification.verifies && verification.manifest == nil)
    #expect(verification.problems.map(\.message) == ["not a workbench signature file (format 1)"])
  }

  @Test func aSingleFileIsSignedBesideItself() throws {
    let folder = try TemporaryFolder(prefix: "integrity-tests")
    defer { folder.remove() }
    let photo = try folder.write("photo.jpg", "a photo")
    let signature = try ArtifactSignature.sign(file: photo, key: key.privateKey)
    #expect(signature == photo + ArtifactSignature.fileSuffix)
    // The file, its signature, or a copy of the signature under another name all find it.
    #expect(try ArtifactSignature.signatureFile(for: photo) == signature)
    #expect(try ArtifactSignature.signatureFile(for: signature) == signature)
    let renamed = folder.file("renamed.json")
    try FileManager.default.copyItem(atPath: signature, toPath: renamed)
    #expect(try ArtifactSignature.signatureFile(for: renamed) == renamed)
    let verification = try ArtifactSignature.verify(path: photo, publicKey: key.publicKey)
    #expect(verification.verifies)
    let manifest = try #require(verification.manifest)
    #expect(!manifest.isRun && manifest.timestamps.isEmpty)
    #expect(manifest.files.map(\.path) == ["photo.jpg"])
  }

  @Test func withoutASignatureTheErrorSaysWhereItLooked() throws {
    let folder = try TemporaryFolder(prefix: "integrity-tests")
    defer { folder.remove() }
    let unsigned = try folder.write("unsigned.jpg", "x")
    let inFolder = try #require(throws: WorkbenchError.self) { try ArtifactSignature.signatureFile(for: folder.path) }
    #expect(inFolder.diagnostics.first?.message == "no signature here")
    #expect(inFolder.diagnostics.first?.location?.file == folder.file(ArtifactSignature.fileName))
    let beside = try #require(throws: WorkbenchError.self) { try ArtifactSignature.signatureFile(for: unsigned) }
    #expect(beside.diagnostics.first?.message == "no signature here: there is no unsigned.jpg.sig.json beside it")
    let nothing = try #require(throws: WorkbenchError.self) {
      try ArtifactSignature.signatureFile(for: folder.file("gone.jpg"))
    }
    #expect(nothing.diagnostics.first?.message == "no such file, and no signature for it (gone.jpg.sig.json)")
  }

  @Test func pathsAreNamedRelativeToTheSignaturesFolder() {
    #expect(ArtifactSignature.relativePath(of: "/a/b/c.jpg", from: "/a/b") == "c.jpg")
    #expect(ArtifactSignature.relativePath(of: "/a/session.avi", from: "/a/b") == "../session.avi")
    #expect(ArtifactSignature.relativePath(of: "/a/b/./x/../d/e.jpg", from: "/a/b/") == "d/e.jpg")
    #expect(ArtifactSignature.relativePath(of: "/x/y.jpg", from: "/a/b") == "../../x/y.jpg")
  }
}
