import Foundation
import Licensing
import TestSupport

/// A license that every run of the tests holds: signed by a key made for
/// this test process, in container mode, granting every feature. Runs find
/// it through WORKBENCH_LICENSE_CONFIG (``Launched`` sets it), so the tests
/// never depend on a license of the machine they run on.
enum TestLicense {
  struct Files: Sendable {
    var folder: String
    var config: String
    var privateKey: String
    var publicKey: String
  }

  static let files: Files = {
    do {
      let folder = try TemporaryFolder(prefix: "workbench-test-license")
      return try make(in: folder.path, features: LicenseFeature.known)
    } catch {
      fatalError("cannot make the test license: \(error)")
    }
  }()

  /// A key pair, license.conf (EID TEST-1, product workbench) and a
  /// license.dat that grants `features`, in `folder`; the public key is
  /// beside the configuration, where runs look for it.
  static func make(
    in folder: String, product: String = "workbench", features: [String], expiresIn days: Int = 30,
    issuedAgo: TimeInterval = 0, binding: LicenseBinding = .container
  ) throws -> Files {
    let keys = try LicenseKeyPair.generate().write(toFolder: folder + "/keys")
    let publicKey = folder + "/" + LicenseGate.publicKeyFileName
    try FileManager.default.copyItem(atPath: keys.publicKeyPath, toPath: publicKey)
    let config = folder + "/license.conf"
    try """
    <settings>
      <section name="Licensing::Settings">
        <param name="Server" type="Value::String" text="http://127.0.0.1:9"/>
        <param name="EID" type="Value::String" text="TEST-1"/>
        <param name="ProductID" type="Value::String" text="workbench"/>
        <param name="ContainerMode" type="Value::Int1" x="1"/>
      </section>
    </settings>

    """.write(toFile: config, atomically: true, encoding: .utf8)
    let license = try LicenseIssuer(privateKey: LicensePrivateKey.read(path: keys.privateKeyPath)).issue(
      product: product, eid: "TEST-1", binding: binding, days: days, features: features,
      now: Date().addingTimeInterval(-issuedAgo))
    try license.write(to: URL(fileURLWithPath: folder + "/license.dat"))
    return Files(folder: folder, config: config, privateKey: keys.privateKeyPath, publicKey: publicKey)
  }
}
