import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import TestSupport
import Testing

/// The whole loop against a server each test starts on 127.0.0.1 (a free
/// port) and that stops at the end of the test.
@Suite struct LicenseActivationTests {
  @Test func activationStoresALicenseThatVerifies() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withServer { server, port in
      let outcome = try await client.activator(try client.config(port: port)).activate()
      guard case .activated(let license, let replaced) = outcome else {
        Issue.record("not activated: \(outcome)")
        return
      }
      #expect(replaced == nil)
      #expect(license.product == "workbench")
      #expect(license.eid == "ACME-1")
      #expect(license.binding == .machine(machineA))
      #expect(license.features == ["card", "face"])
      #expect(license.daysLeft(at: Date()) == 30)
      let stored = try verifier.verify(
        path: client.licensePath, product: "workbench", eid: "ACME-1", fingerprint: machineA)
      #expect(stored == license)
      #expect(await server.requestCount == 1)
      #expect(await server.activationCount(eid: "ACME-1") == 1)
    }
  }

  @Test func aSecondRunReusesTheLicenseWithoutAskingTheServer() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withServer { server, port in
      let activator = client.activator(try client.config(port: port))
      let first = try await activator.activate()
      let stored = FileManager.default.contents(atPath: client.licensePath)
      let second = try await activator.activate()
      guard case .alreadyActivated(let license) = second else {
        Issue.record("the server was asked again: \(second)")
        return
      }
      #expect(license == first.license)
      #expect(FileManager.default.contents(atPath: client.licensePath) == stored)
      #expect(await server.requestCount == 1)

      // --force asks again; the same machine takes no second slot.
      let forced = try await activator.activate(force: true)
      guard case .activated = forced else {
        Issue.record("not activated again: \(forced)")
        return
      }
      #expect(forced.license.id != first.license.id)
      #expect(await server.requestCount == 2)
      #expect(await server.activationCount(eid: "ACME-1") == 1)
    }
  }

  @Test func anUnknownEIDIsRefused() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withServer { server, port in
      let error = try #require(await activationError(client.activator(try client.config(port: port, eid: "NOPE-9"))))
      #expect(error.kind == .refused)
      #expect(error.refusalReason == .unknownEID)
      #expect(error.error.status == .license)
      let message = error.error.description
      #expect(message.contains("the activation server http://127.0.0.1:\(port) refused to activate EID 'NOPE-9'"))
      #expect(message.contains("EID 'NOPE-9' is not allowed on this server (unknown_eid)"))
      #expect(message.contains("(key 'EID')"))
      #expect(message.contains("help: check EID in"))
      #expect(!FileManager.default.fileExists(atPath: client.licensePath))
      #expect(await server.activationCount(eid: "NOPE-9") == 0)
    }
  }

  @Test func anotherProductIsRefused() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withServer { _, port in
      let error = try #require(
        await activationError(client.activator(try client.config(port: port, product: "kiosk"))))
      #expect(error.kind == .refused)
      #expect(error.refusalReason == .wrongProduct)
      #expect(error.error.description.contains("this server issues licenses for product 'workbench', not 'kiosk'"))
      #expect(error.error.description.contains("(key 'ProductID')"))
    }
  }

  @Test func theLimitHoldsForOtherMachinesButNotForTheSameOne() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    let other = try ClientFixture()
    defer { other.folder.remove() }
    try await withServer { server, port in
      _ = try await client.activator(try client.config(port: port)).activate()
      let error = try #require(
        await activationError(other.activator(try other.config(port: port), machine: machineB)))
      #expect(error.kind == .refused)
      #expect(error.refusalReason == .limitReached)
      #expect(error.error.description.contains("EID 'ACME-1' is activated on 1 of 1 machine; no activation is left"))
      #expect(error.error.description.contains("ask whoever runs the server for more"))
      #expect(!FileManager.default.fileExists(atPath: other.licensePath))

      // The first machine again (its license file lost): allowed, in its own slot.
      try FileManager.default.removeItem(atPath: client.licensePath)
      let again = try await client.activator(try client.config(port: port)).activate()
      #expect(again.license.binding == .machine(machineA))
      #expect(await server.activationCount(eid: "ACME-1") == 1)
      #expect(await server.requestCount == 3)
    }
  }

  @Test func theStateFileKeepsTheActivationsAcrossARestart() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    let state = client.folder.file("activations.json")
    let configuration = serverConfiguration(allowed: [AllowedEID(eid: "ACME-1", limit: 1)], statePath: state)
    try await withServer(configuration) { _, port in
      _ = try await client.activator(try client.config(port: port)).activate()
    }
    let text = try #require(FileManager.default.contents(atPath: state).map { String(decoding: $0, as: UTF8.self) })
    #expect(text.hasPrefix(#"{"workbench_activations":1,"activations":[{"eid":"ACME-1","product":"workbench","#))
    #expect(text.contains(machineA.value))
    let attributes = try FileManager.default.attributesOfItem(atPath: state)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)

    try await withServer(configuration) { server, port in
      #expect(await server.activationCount(eid: "ACME-1") == 1)
      let error = try #require(
        await activationError(client.activator(try client.config(port: port), machine: machineB)))
      #expect(error.refusalReason == .limitReached)
      let again = try await client.activator(try client.config(port: port)).activate(force: true)
      #expect(again.license.binding == .machine(machineA))
    }
  }

  @Test func containerModeTakesASlotForEachActivation() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    let configuration = serverConfiguration(allowed: [AllowedEID(eid: "ACME-1", limit: 2)])
    try await withServer(configuration) { server, port in
      let activator = client.activator(try client.config(port: port, containerMode: true))
      let first = try await activator.activate()
      #expect(first.license.binding == .container)
      _ = try await activator.activate(force: true)
      #expect(await server.activationCount(eid: "ACME-1") == 2)
      let error = try #require(await activationError(activator, force: true))
      #expect(error.refusalReason == .limitReached)
    }
  }

  @Test func anUnreachableServer() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    let port = try unusedPort()
    let error = try #require(await activationError(client.activator(try client.config(port: port))))
    // Unreachable, not a timeout: a refused connection is reported as such,
    // without waiting for ConnectionTimeout (120 s here).
    #expect(error.kind == .unreachable)
    #expect(error.error.status == .license)
    #expect(
      error.error.description.contains(
        "cannot reach the activation server http://127.0.0.1:\(port): connection refused"))
    #expect(error.error.description.contains("`workbench license serve` starts one"))
    #expect(!FileManager.default.fileExists(atPath: client.licensePath))
  }

  @Test func aServerThatNeverAnswersTimesOut() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    let silent = try SilentServer()
    defer { silent.stop() }
    let error = try #require(await activationError(client.activator(try client.config(port: silent.port, timeout: 1))))
    #expect(error.kind == .timeout)
    #expect(error.error.status == .license)
    #expect(
      error.error.description.contains(
        "the activation server http://127.0.0.1:\(silent.port) did not answer within 1 s (ConnectionTimeout)"))
    #expect(error.error.description.contains("(key 'ConnectionTimeout')"))
    #expect(silent.connectionCount == 1)
  }

  @Test func anAnswerThatIsNotALicense() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withStubServer(status: .ok, body: "hello") { port in
      let error = try #require(await activationError(client.activator(try client.config(port: port))))
      #expect(error.kind == .badResponse)
      #expect(error.error.status == .license)
      #expect(
        error.error.description.contains(
          "the activation server http://127.0.0.1:\(port) answered with something that is not a license "
            + "for this machine: not a license file: not JSON"))
      #expect(!FileManager.default.fileExists(atPath: client.licensePath))
    }
    try await withStubServer(status: .notFound, body: "") { port in
      let error = try #require(await activationError(client.activator(try client.config(port: port))))
      #expect(error.kind == .badResponse)
      #expect(error.error.description.contains("answered 404 Not Found"))
      #expect(error.error.description.contains("must be the address of a workbench activation server"))
    }
  }

  @Test func aLicenseSignedWithAnotherKeyIsABadResponseAndLeavesTheOldFile() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    // An expired license of this machine is there; it stays when activation fails.
    let expired = try LicenseIssuer(privateKey: serverKey).issue(
      product: "workbench", eid: "ACME-1", binding: .machine(machineA), days: 30, features: ["card"],
      now: Date().addingTimeInterval(-400 * 86_400))
    try expired.write(to: URL(fileURLWithPath: client.licensePath))
    try await withServer(serverConfiguration(key: otherKey)) { _, port in
      let error = try #require(await activationError(client.activator(try client.config(port: port))))
      #expect(error.kind == .badResponse)
      #expect(error.error.description.contains("the license's signature does not verify"))
      #expect(error.error.description.contains("check that --public-key is the public key"))
    }
    #expect(FileManager.default.contents(atPath: client.licensePath) == expired)
  }

  @Test func aChangedExpiredOrForeignLicenseDoesNotHoldAndIsReplacedOnActivation() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    let issuer = LicenseIssuer(privateKey: serverKey)
    let expired = try issuer.issue(
      product: "workbench", eid: "ACME-1", binding: .machine(machineA), days: 30, features: ["card"],
      now: Date().addingTimeInterval(-400 * 86_400))
    let foreign = try issuer.issue(
      product: "kiosk", eid: "ACME-1", binding: .machine(machineA), days: 30, features: ["card"])
    try await withServer { server, port in
      let activator = client.activator(try client.config(port: port))
      let activated = try await activator.activate()
      let good = try #require(FileManager.default.contents(atPath: client.licensePath))
      let cases: [(Data, LicenseFailure.Kind)] = [
        (try tampered(good), .tampered), (expired, .expired), (foreign, .wrongProduct),
      ]
      for (data, kind) in cases {
        try data.write(to: URL(fileURLWithPath: client.licensePath))
        let inspection = activator.installed()
        #expect(inspection.failures.map(\.kind) == [kind])
        #expect(inspection.error?.status == .license)
        #expect(throws: WorkbenchError.self) {
          try verifier.verify(path: client.licensePath, product: "workbench", fingerprint: machineA)
        }
        // Activation does not keep it: it asks the server for a new one.
        let outcome = try await activator.activate()
        guard case .activated(let license, let replaced) = outcome else {
          Issue.record("\(kind): not activated again: \(outcome)")
          continue
        }
        #expect(replaced?.failures.map(\.kind) == [kind])
        #expect(license.id != activated.license.id)
        #expect(activator.installed().verifies)
      }
      #expect(await server.requestCount == 4)
      #expect(await server.activationCount(eid: "ACME-1") == 1)
    }
  }

  @Test func aMissingLicenseFolderIsReportedBeforeAsking() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withServer { server, port in
      var config = try client.config(port: port)
      config.filename = "missing/license.dat"
      let error = try #require(await activationError(client.activator(config)))
      #expect(error.kind == .storage)
      #expect(error.error.description.contains("but the folder"))
      #expect(error.error.description.contains("(key 'Filename')"))
      #expect(await server.requestCount == 0)
    }
  }
}
