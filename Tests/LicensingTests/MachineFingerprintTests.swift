import Foundation
import Licensing
import TestSupport
import Testing

@Suite struct MachineFingerprintTests {
  @Test func isTheStartOfTheSHA256OfTheIdentity() {
    // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    #expect(MachineFingerprint(identity: "abc").value == "ba7816bf8f01cfea414140de5dae2223")
    // Surrounding whitespace (the newline of /etc/machine-id) does not count.
    #expect(MachineFingerprint(identity: "abc\n") == MachineFingerprint(identity: "abc"))
    #expect(MachineFingerprint(identity: "abd") != MachineFingerprint(identity: "abc"))
  }

  @Test func comesFromTheFirstIdentityFileThatHasOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let empty = try folder.write("empty-machine-id", "\n")
    let dbus = try folder.write("dbus-machine-id", "4c4c4544004c4a1080395ac04f4d3832\n")
    let missing = folder.file("no-machine-id")
    let found = MachineFingerprint.currentWithSource(identityFiles: [missing, empty, dbus]) { "host" }
    #expect(found.fingerprint == MachineFingerprint(identity: "4c4c4544004c4a1080395ac04f4d3832"))
    #expect(found.source == dbus)
    #expect(MachineFingerprint.current(identityFiles: [dbus], hostname: { "host" }) == found.fingerprint)
  }

  @Test func fallsBackToTheHostName() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let found = MachineFingerprint.currentWithSource(identityFiles: [folder.file("none")]) { "build-07" }
    #expect(found.fingerprint == MachineFingerprint(identity: "build-07"))
    #expect(found.source == "the host name")
    #expect(MachineFingerprint.current(identityFiles: []) { "other" } != found.fingerprint)
  }

  @Test func thisMachinesFingerprintIsStable() {
    let first = MachineFingerprint.current()
    #expect(first.value.count == 32)
    #expect(first.value.allSatisfy { "0123456789abcdef".contains($0) })
    #expect(MachineFingerprint.current() == first)
  }

  @Test func writtenFingerprintsAreChecked() {
    #expect(MachineFingerprint("0123456789ABCDEF0123456789abcdef")?.value == "0123456789abcdef0123456789abcdef")
    #expect(MachineFingerprint("0123456789abcdef") == nil)
    #expect(MachineFingerprint("0123456789abcdef0123456789abcdeg") == nil)
    #expect(MachineFingerprint("0123456789abcdef0123456789abcdef0") == nil)
    #expect(MachineFingerprint("") == nil)
  }
}
