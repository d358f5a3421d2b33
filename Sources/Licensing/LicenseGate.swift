import Diagnostics
import Foundation

/// The check a run passes before it opens a camera or reads an input: the
/// license stored at `Filename` of the licensing configuration verifies
/// offline against the trusted public key, for the configuration's product
/// and EID, on this machine, now, with every feature the run needs.
public struct LicenseGate: Sendable {
  /// Names the licensing configuration instead of the default one.
  public static let configEnvironment = "WORKBENCH_LICENSE_CONFIG"
  /// Names the trusted public key instead of the one beside the configuration.
  public static let publicKeyEnvironment = "WORKBENCH_LICENSE_PUBLIC_KEY"
  /// The trusted public key's file, beside the licensing configuration.
  public static let publicKeyFileName = "license-public.key.json"
  /// The configuration files a settings folder may hold, in the order they are looked for.
  public static let configFileNames = ["license.conf", "vllicense.plist"]

  /// license.conf or vllicense.plist.
  public var configPath: String
  public var publicKeyPath: String

  public init(configPath: String, publicKeyPath: String) {
    self.configPath = configPath
    self.publicKeyPath = publicKeyPath
  }

  /// The configuration and key a run uses: the options when given, else the
  /// environment's, else the first configuration of `folders` that exists
  /// (the settings folder's before the bundled one) and the key beside it.
  public static func locate(
    configOption: String?, publicKeyOption: String?, folders: [String],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> LicenseGate {
    var config = configOption ?? environment[configEnvironment].flatMap { $0.isEmpty ? nil : $0 }
    if config == nil {
      search: for folder in folders {
        for name in configFileNames {
          let path = (folder.hasSuffix("/") ? folder : folder + "/") + name
          if FileManager.default.fileExists(atPath: path) {
            config = path
            break search
          }
        }
      }
    }
    let configPath = config ?? ((folders.last ?? ".") + "/" + configFileNames[0])
    let key =
      publicKeyOption ?? environment[publicKeyEnvironment].flatMap { $0.isEmpty ? nil : $0 }
      ?? defaultPublicKeyPath(besides: configPath)
    return LicenseGate(configPath: configPath, publicKeyPath: key)
  }

  /// `license-public.key.json` in the folder of the configuration.
  public static func defaultPublicKeyPath(besides configPath: String) -> String {
    let folder = (configPath as NSString).deletingLastPathComponent
    return folder.isEmpty ? publicKeyFileName : folder + "/" + publicKeyFileName
  }

  /// The license, when it holds for `features`; otherwise every reason,
  /// exit status 3, each with what to do.
  public func check(
    features: [String], fingerprint: MachineFingerprint = .current(), now: Date = Date()
  ) throws(WorkbenchError) -> License {
    let config = try LicenseConfigLoader.load(path: configPath)
    let key: LicensePublicKey
    do {
      key = try LicensePublicKey.read(path: publicKeyPath)
    } catch {
      let missing = !FileManager.default.fileExists(atPath: publicKeyPath)
      throw WorkbenchError(
        .license,
        error.diagnostics.map { diagnostic in
          var diagnostic = diagnostic
          if missing {
            diagnostic.message = "no public key to check the license with"
            diagnostic.help =
              "put the public key of whoever issues your licenses here (the public.key.json that "
              + "`workbench license keygen` made), or name it with --license-key or \(LicenseGate.publicKeyEnvironment)"
          }
          return diagnostic
        })
    }
    let verifier = LicenseVerifier(publicKeys: [key])
    let inspection = verifier.inspect(
      path: config.licensePath, product: config.productID, eid: config.eid, fingerprint: fingerprint, now: now,
      requiredFeatures: features)
    guard inspection.error != nil else {
      if let license = inspection.license { return license }
      throw WorkbenchError(.license, "the license cannot be read", at: SourceLocation(file: config.licensePath))
    }
    throw WorkbenchError(
      .license,
      inspection.failures.map { failure in
        var diagnostic = failure.diagnostic
        if failure.kind == .missing {
          // The verifier's advice names `license show --license`; a run reads Filename.
          diagnostic.help =
            "get it from \(config.server): workbench license activate --config \(configPath); or put the license "
            + "issued for this machine (fingerprint \(fingerprint)) there, as Filename in \(configPath) says"
        } else if let advice = advice(failure.kind, config: config) {
          diagnostic.help = [diagnostic.help, advice].compactMap { $0 }.joined(separator: "; ")
        }
        return diagnostic
      })
  }

  /// What a run adds to the verifier's advice: how to get a license that holds.
  private func advice(_ kind: LicenseFailure.Kind, config: LicenseConfig) -> String? {
    let activate = "workbench license activate --config \(configPath)"
    switch kind {
    case .tampered, .malformed, .expired, .wrongMachine, .wrongProduct, .wrongEID:
      return "to get a new one from \(config.server), run: \(activate) --force"
    case .featureNotGranted:
      return "ask whoever issues your licenses for a license with that feature, then run: \(activate) --force"
    case .missing, .unreadable, .notYetValid:
      return nil
    }
  }
}
