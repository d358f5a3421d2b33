import ArgumentParser
import Diagnostics
import Flows
import Foundation
import Integrity
import Licensing
import Logging
import RunComposition
import Session

struct SignCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sign",
    abstract: "Sign images (or any files) outside a run, so that a change to them can be found.",
    discussion: """
      As the HKID card SDK's signatureWithImg signs an image, sign hashes each FILE (SHA-256 of \
      its bytes) and signs the hash with an Ed25519 private key: the key of --key, else the \
      setting integrity.signing_key (the key a run signs its artifacts with; workbench license \
      keygen makes a pair). Each FILE gets a signature of its own beside it, FILE.sig.json, \
      written under a temporary name and renamed into place. `workbench verify FILE` checks it. \
      Every FILE and the key are checked before anything is written: a missing or unreadable \
      one is exit 2, and no signature is written.

      Examples:
        workbench sign out/first.jpg out/first.card.jpg --key keys/private.key.json
        workbench verify out/first.jpg out/first.card.jpg --public-key keys/public.key.json
        workbench sign photo.jpg --config signing.json
      """)

  @Argument(help: ArgumentHelp("The files to sign.", valueName: "file"))
  var files: [String]

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The Ed25519 private key file (default: the setting integrity.signing_key).", valueName: "file"))
  var key: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "A JSON settings file that may set integrity.signing_key (repeatable; later wins).", valueName: "file"))
  var config: [String] = []

  @Option(
    name: .customLong("settings-dir"),
    help: ArgumentHelp("A folder whose settings.json replaces the bundled one of configs/.", valueName: "folder"))
  var settingsDirectory: String?

  func validate() throws {
    if files.isEmpty { throw ValidationError("give the files to sign, such as: workbench sign photo.jpg --key KEY") }
  }

  func run() throws {
    do {
      let privateKey = try readKey()
      var unique: [String] = []
      for file in files where !unique.contains(file) { unique.append(file) }
      try checkReadable(unique)
      for file in unique {
        let signature = try ArtifactSignature.sign(file: file, key: privateKey)
        standardOutput("signed      \(file) → \(signature)")
      }
      standardOutput("public key  \(privateKey.publicKey.id)")
    } catch {
      throw fail(error)
    }
  }

  /// The key of --key, else of the setting; every problem is exit 2.
  private func readKey() throws(WorkbenchError) -> LicensePrivateKey {
    var path = key
    if path == nil {
      var options = RunSettings.flowOptions("")
      options.configFiles = config
      options.settingsDirectory = settingsDirectory
      let settings = try EffectiveSettings.resolve(flow: nil, options: options, logger: Logger(label: "workbench"))
      path = settings.string(RunOutputSettings.signingKey).flatMap { $0.isEmpty ? nil : $0 }
    }
    guard let path else {
      throw WorkbenchError(
        .usage, "no key to sign with: --key is not given and the setting integrity.signing_key is empty",
        help: "give --key keys/private.key.json (workbench license keygen --out keys makes a pair)")
    }
    do {
      return try LicensePrivateKey.read(path: path)
    } catch {
      throw WorkbenchError(.usage, error.diagnostics)
    }
  }

  /// Every file must be a readable file; all problems are reported at once.
  private func checkReadable(_ paths: [String]) throws(WorkbenchError) {
    var problems: [Diagnostic] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
        problems.append(Diagnostic("no such file", at: SourceLocation(file: path), help: "check the path"))
      } else if isDirectory.boolValue {
        problems.append(
          Diagnostic("is a folder", at: SourceLocation(file: path), help: "give the files in it, such as \(path)/*.jpg")
        )
      } else if !FileManager.default.isReadableFile(atPath: path) {
        problems.append(
          Diagnostic("cannot be read", at: SourceLocation(file: path), help: "check the file's permissions"))
      }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
  }
}
