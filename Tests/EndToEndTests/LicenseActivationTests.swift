import Foundation
import Licensing
import TestSupport
import Testing

/// The integrator's loop with the real binary: `license serve` on a free
/// loopback port, `license activate` against it, `license show`, and the
/// licenses that must not hold (changed, expired, another product).
@Suite struct LicenseActivationEndToEndTests {
  /// Starts `workbench license serve` and returns it with its port.
  private func serve(_ folder: TemporaryFolder, _ extra: [String] = []) throws -> (Launched, Int) {
    try launchLicenseServer(
      [
        "--key", folder.file("keys/private.key.json"), "--product", "workbench", "--allow", "ACME-1:1", "--host",
        "127.0.0.1", "--port", "0", "--days", "30", "--state", folder.file("activations.json"),
      ] + extra, folder: folder)
  }

  private func writeConfig(_ folder: TemporaryFolder, port: Int) throws -> String {
    try folder.write(
      "license.conf",
      """
      <settings>
        <section name="Licensing::Settings">
          <param name="Server" type="Value::String" text="http://127.0.0.1:\(port)"/>
          <param name="EID" type="Value::String" text="ACME-1"/>
          <param name="ProductID" type="Value::String" text="workbench"/>
          <param name="Filename" type="Value::String" text="license.dat"/>
          <param name="ConnectionTimeout" type="Value::Int1" x="120"/>
        </section>
      </settings>

      """)
  }

  @Test func serveActivateShowAndRefuseChangedExpiredOrForeignLicenses() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let keygen = try workbench(["license", "keygen", "--out", folder.file("keys")], folder: folder)
    #expect(keygen.status == 0, "\(keygen)")
    let (server, port) = try serve(folder)
    defer { if server.isRunning { server.process.terminate() } }
    let config = try writeConfig(folder, port: port)
    let publicKey = folder.file("keys/public.key.json")
    let activate = ["license", "activate", "--config", config, "--public-key", publicKey]

    let activated = try workbench(activate, folder: folder)
    #expect(activated.status == 0, "\(activated)")
    #expect(
      activated.stdout.hasPrefix("activated at http://127.0.0.1:\(port): wrote \(folder.file("license.dat"))\n"),
      "\(activated)")
    #expect(activated.stdout.contains("(this machine)"), "\(activated)")
    #expect(activated.stdout.contains("(30 days left)"), "\(activated)")

    let again = try workbench(activate, folder: folder)
    #expect(again.status == 0, "\(again)")
    #expect(again.stdout.contains("already holds a license for this machine; the server was not asked"), "\(again)")

    let show = ["license", "show", "--license", folder.file("license.dat"), "--public-key", publicKey]
    let shown = try workbench(show + ["--product", "workbench"], folder: folder)
    #expect(shown.status == 0, "\(shown)")
    #expect(shown.stdout.hasSuffix("verifies      yes, on this machine\n"), "\(shown)")

    // The stored license lets a flow run; run reads it and never asks the server.
    let runFlow = [
      "run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--quiet",
      "--license-config", config, "--license-key", publicKey,
    ]
    let ran = try workbench(runFlow, folder: folder)
    #expect(ran.status == 0, "\(ran)")

    // Another product than the license is for.
    let foreign = try workbench(show + ["--product", "kiosk"], folder: folder)
    #expect(foreign.status == 3, "\(foreign)")
    #expect(foreign.stderr.contains("the license is for product 'workbench', not 'kiosk'"), "\(foreign)")
    let kioskConfig = try folder.write(
      "kiosk.conf",
      try #require(fileText(config)).replacingOccurrences(of: "text=\"workbench\"", with: "text=\"kiosk\""))
    let foreignRun = try workbench(
      ["run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--quiet"]
        + ["--license-config", kioskConfig, "--license-key", publicKey], folder: folder)
    #expect(foreignRun.status == 3, "\(foreignRun)")
    #expect(foreignRun.stderr.contains("the license is for product 'workbench', not 'kiosk'"), "\(foreignRun)")

    // One changed byte.
    let path = folder.file("license.dat")
    let good = try #require(FileManager.default.contents(atPath: path))
    var bytes = [UInt8](good)
    let index = try #require(good.range(of: Data(#""payload":""#.utf8))).upperBound
    bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let changed = try workbench(show, folder: folder)
    #expect(changed.status == 3, "\(changed)")
    #expect(changed.stderr.contains("the license's signature does not verify"), "\(changed)")
    let changedRun = try workbench(runFlow, folder: folder)
    #expect(changedRun.status == 3, "\(changedRun)")
    #expect(changedRun.stderr.contains("the license's signature does not verify"), "\(changedRun)")

    // Expired: issued through the API with a past date, by the server's key.
    let key = try LicensePrivateKey.read(path: folder.file("keys/private.key.json"))
    let expired = try LicenseIssuer(privateKey: key).issue(
      product: "workbench", eid: "ACME-1", binding: .machine(MachineFingerprint.current()), days: 30,
      features: ["card"], now: Date().addingTimeInterval(-60 * 86_400))
    try expired.write(to: URL(fileURLWithPath: path))
    let old = try workbench(show, folder: folder)
    #expect(old.status == 3, "\(old)")
    #expect(old.stderr.contains("the license expired on"), "\(old)")
    let expiredRun = try workbench(runFlow, folder: folder)
    #expect(expiredRun.status == 3, "\(expiredRun)")
    #expect(expiredRun.stderr.contains("the license expired on"), "\(expiredRun)")

    // Activation replaces a license that does not hold, in the same slot.
    let renewed = try workbench(activate, folder: folder)
    #expect(renewed.status == 0, "\(renewed)")
    #expect(renewed.stdout.hasPrefix("replaced \(path), which did not hold here (expired)\n"), "\(renewed)")
    #expect(try workbench(show, folder: folder).status == 0)

    // Stop the server (SIGTERM): it says so and exits 0.
    server.process.terminate()
    let stopped = server.wait(safetyLimit: 30)
    #expect(stopped.status == 0, "\(stopped)")
    #expect(!stopped.signaled, "\(stopped)")
    #expect(stopped.stdout.contains("allowed: ACME-1 (0 of 1 used)"), "\(stopped)")
    #expect(stopped.stdout.contains(" POST /v1/activate 200 issued license "), "\(stopped)")
    #expect(stopped.stdout.contains("(again, slot 1 of 1)"), "\(stopped)")
    #expect(stopped.stdout.hasSuffix("stopped after 2 requests\n"), "\(stopped)")

    // Nobody listens there any more: unreachable, exit 3.
    let unreachable = try workbench(activate + ["--force"], folder: folder)
    #expect(unreachable.status == 3, "\(unreachable)")
    #expect(
      unreachable.stderr.contains("cannot reach the activation server http://127.0.0.1:\(port): connection refused"),
      "\(unreachable)")
    // The server is gone, and the stored license still lets flows run.
    let offline = try workbench(runFlow, folder: folder)
    #expect(offline.status == 0, "\(offline)")
  }

  @Test func serveRefusesAServerWithoutEIDsAndActivateNamesARefusal() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect(try workbench(["license", "keygen", "--out", folder.file("keys")], folder: folder).status == 0)
    let noEIDs = try workbench(
      ["license", "serve", "--key", folder.file("keys/private.key.json"), "--product", "workbench"], folder: folder)
    #expect(noEIDs.status == 2, "\(noEIDs)")
    #expect(noEIDs.stderr.contains("--allow EID[:LIMIT]"), "\(noEIDs)")

    let (server, port) = try serve(folder, ["--allow", "OTHER-2"])
    defer { if server.isRunning { server.process.terminate() } }
    let config = try folder.write(
      "license.conf",
      try #require(fileText(try writeConfig(folder, port: port))).replacingOccurrences(of: "ACME-1", with: "NOPE-9"))
    let refused = try workbench(
      ["license", "activate", "--config", config, "--public-key", folder.file("keys/public.key.json")], folder: folder)
    #expect(refused.status == 3, "\(refused)")
    #expect(refused.stderr.contains("refused to activate EID 'NOPE-9'"), "\(refused)")
    #expect(refused.stderr.contains("(unknown_eid)"), "\(refused)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("license.dat")))
    server.process.terminate()
    #expect(server.wait(safetyLimit: 30).status == 0)
  }
}

/// Starts `workbench license serve ARGUMENTS` and returns it with its port,
/// read from its first line (within a bounded wait).
func launchLicenseServer(
  _ arguments: [String], folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (Launched, Int) {
  let server = try Launched(["license", "serve"] + arguments, folder: folder)
  let deadline = Date().addingTimeInterval(60)
  while Date() < deadline && server.isRunning {
    if let line = server.outputSoFar.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
      let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) })
    {
      return (server, port)
    }
    Thread.sleep(forTimeInterval: 0.05)
  }
  let outcome = server.isRunning ? nil : server.wait()
  if server.isRunning { server.process.terminate() }
  Issue.record(
    "license serve did not say where it listens: \(outcome.map(\.description) ?? "still running")",
    sourceLocation: sourceLocation)
  throw CancellationError()
}
