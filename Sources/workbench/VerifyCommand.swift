import ArgumentParser
import Diagnostics
import Foundation
import Integrity
import Licensing

struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check signed artifacts of a run, or files signed with workbench sign.",
    discussion: """
      A run with --artifacts DIR and the setting integrity.signing_key writes DIR/signature.json: \
      the SHA-256 of every artifact (and of the --record recording and its timestamps), the \
      run's timestamps (start, each capture, stop) and its result, signed with Ed25519. \
      `workbench sign FILE` writes FILE.sig.json beside a file. verify checks the signature with \
      the public key, then every file it covers. Give the folder, a signature file, or a signed \
      file (its FILE.sig.json is found beside it). Exits 0 when everything verifies, 1 when a \
      signature or a file does not, 2 when there is no signature or the key cannot be read.

      Examples:
        workbench run examples/hkid-2018.lua --input card.avi --record out/card.avi \\
          --artifacts out --set integrity.signing_key=keys/private.key.json
        workbench verify out --public-key keys/public.key.json
        workbench sign photo.jpg --key keys/private.key.json
        workbench verify photo.jpg --public-key keys/public.key.json
      """)

  @Argument(
    help: ArgumentHelp(
      "The --artifacts folder or its signature.json, a FILE.sig.json, or a file signed with workbench sign.",
      valueName: "path"))
  var paths: [String]

  @Option(name: .long, help: ArgumentHelp("The public key of the key that signed.", valueName: "file"))
  var publicKey: String

  func validate() throws {
    if paths.isEmpty { throw ValidationError("give what to verify: a folder, a signature file or a signed file") }
  }

  func run() throws {
    let key: LicensePublicKey
    do {
      key = try LicensePublicKey.read(path: publicKey)
    } catch {
      // A key that cannot be read is exit 2 here, as a missing signature is.
      throw fail(WorkbenchError(.usage, error.diagnostics))
    }
    var failed = false
    var missing = false
    for path in paths {
      if paths.count > 1 { standardOutput("signature   \(path)") }
      let verification: ArtifactSignature.Verification
      do {
        verification = try ArtifactSignature.verify(path: path, publicKey: key)
      } catch {
        DiagnosticPrinter.print(error)
        missing = true
        continue
      }
      if let manifest = verification.manifest, manifest.isRun {
        standardOutput(
          "flow        \(manifest.flow ?? "") (result \(manifest.resultCode ?? 0), \(manifest.resultReason ?? ""))")
        standardOutput(
          "timestamps  "
            + manifest.timestamps.map { "\($0.name) \(String(format: "%.3f", $0.t)) s" }.joined(separator: " | "))
      }
      for file in verification.manifest?.files ?? [] {
        standardOutput("file        \(file.path)  \(file.sha256.prefix(16))…")
      }
      if verification.verifies {
        standardOutput("verifies    yes")
        continue
      }
      standardOutput("verifies    no")
      DiagnosticPrinter.print(WorkbenchError(.failed, verification.problems))
      failed = true
    }
    // Something that does not verify outweighs something that is not signed.
    if failed { throw ExitCode(ExitStatus.failed.rawValue) }
    if missing { throw ExitCode(ExitStatus.usage.rawValue) }
  }
}
