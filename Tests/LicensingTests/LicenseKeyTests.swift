import Diagnostics
import Foundation
import Licensing
import TestSupport
import Testing

@Suite struct LicenseKeyTests {
  @Test func keyFilesRoundTrip() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let pair = LicenseKeyPair.generate()
    let paths = try pair.write(toFolder: folder.path + "/keys")
    #expect(paths.privateKeyPath == folder.path + "/keys/private.key.json")
    #expect(paths.publicKeyPath == folder.path + "/keys/public.key.json")
    let privateKey = try LicensePrivateKey.read(path: paths.privateKeyPath)
    let publicKey = try LicensePublicKey.read(path: paths.publicKeyPath)
    #expect(privateKey.rawRepresentation == pair.privateKey.rawRepresentation)
    #expect(publicKey == pair.publicKey)
    #expect(privateKey.publicKey == publicKey)
    let message = Data("signed".utf8)
    #expect(publicKey.isValidSignature(privateKey.signature(for: message), for: message))
    #expect(LicenseKeyPair.generate().publicKey != publicKey)
  }

  @Test func keyFilesHaveTheDocumentedForm() throws {
    let text = String(decoding: testPrivateKey.publicKey.fileData, as: UTF8.self)
    #expect(text.hasPrefix(#"{"workbench_license_key":"ed25519-public","key":""#))
    #expect(text.hasSuffix("\"}\n"))
    let privateText = String(decoding: testPrivateKey.fileData, as: UTF8.self)
    #expect(
      privateText
        == #"{"workbench_license_key":"ed25519-private","key":"BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="}"# + "\n")
    // Printing a private key never shows it.
    #expect(!"\(testPrivateKey)".contains("BwcH"))
  }

  @Test func thePrivateKeyIsReadableOnlyByItsOwner() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let paths = try LicenseKeyPair.generate().write(toFolder: folder.path)
    let privateMode = try FileManager.default.attributesOfItem(atPath: paths.privateKeyPath)[.posixPermissions]
    let publicMode = try FileManager.default.attributesOfItem(atPath: paths.publicKeyPath)[.posixPermissions]
    #expect((privateMode as? NSNumber)?.intValue == 0o600)
    #expect((publicMode as? NSNumber)?.intValue == 0o644)
    let madeFolder = try LicenseKeyPair.generate().write(toFolder: folder.path + "/new/keys")
    let folderMode = try FileManager.default.attributesOfItem(
      atPath: (madeFolder.privateKeyPath as NSString).deletingLastPathComponent)[.posixPermissions]
    #expect((folderMode as? NSNumber)?.intValue == 0o700)
  }

  @Test func keygenNeverOverwritesAKey() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let first = LicenseKeyPair.generate()
    let paths = try first.write(toFolder: folder.path)
    // Only the public key is left: still refused, and nothing is written.
    try FileManager.default.removeItem(atPath: paths.privateKeyPath)
    #expect {
      try LicenseKeyPair.generate().write(toFolder: folder.path)
    } throws: { error in
      let error = try #require(error as? WorkbenchError)
      return error.status == .usage && error.diagnostics.first?.location?.file == paths.publicKeyPath
        && error.diagnostics.first?.message == "already exists; not overwritten"
    }
    #expect(!FileManager.default.fileExists(atPath: paths.privateKeyPath))
    #expect(try LicensePublicKey.read(path: paths.publicKeyPath) == first.publicKey)
    #expect(folder.listing == ["public.key.json"])
  }

  @Test func atomicWritesReplaceOnlyWhenAsked() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("license.dat", "old")
    #expect(throws: WorkbenchError.self) {
      try LicenseFiles.write(Data("new".utf8), to: path, replacing: false)
    }
    #expect(fileText(path) == "old")
    try LicenseFiles.write(Data("new".utf8), to: path, replacing: true)
    #expect(fileText(path) == "new")
    #expect(folder.listing == ["license.dat"])
    #expect(throws: WorkbenchError.self) {
      try LicenseFiles.write(Data(), to: folder.path + "/missing/license.dat", replacing: true)
    }
  }

  @Test(arguments: [
    ("{", "not a license key file: not JSON"),
    (#"{"key":"AA=="}"#, #"not a license key file: no "workbench_license_key" field"#),
    (#"{"workbench_license_key":"rsa-public","key":"AA=="}"#, "unknown key kind 'rsa-public'"),
    (#"{"workbench_license_key":"ed25519-private","key":"AA=="}"#, "this is the private key"),
    (#"{"workbench_license_key":"ed25519-public","key":"not base64!"}"#, "the key is missing or not base64"),
    (#"{"workbench_license_key":"ed25519-public","key":"AAAA"}"#, "the key is not 32 bytes"),
  ])
  func badPublicKeyFilesAreLicenseErrors(text: String, message: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("public.key.json", text)
    #expect {
      try LicensePublicKey.read(path: path)
    } throws: { error in
      let error = try #require(error as? WorkbenchError)
      return error.status == .license && error.diagnostics.first?.message.hasPrefix(message) == true
        && error.diagnostics.first?.location?.file == path && error.diagnostics.first?.help != nil
    }
  }

  @Test func aPublicKeyIsNotASigningKey() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("private.key.json")
    try testPrivateKey.publicKey.fileData.write(to: URL(fileURLWithPath: path))
    #expect {
      try LicensePrivateKey.read(path: path)
    } throws: { error in
      (error as? WorkbenchError)?.diagnostics.first?.message
        == "this is the public key; give the private key (private.key.json) here"
    }
    #expect {
      try LicensePrivateKey.read(path: folder.file("none.json"))
    } throws: { error in
      (error as? WorkbenchError)?.diagnostics.first?.message == "cannot read the private key: no such file"
    }
  }
}

func fileText(_ path: String) -> String? {
  FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}
