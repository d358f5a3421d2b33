import FaceRecognition
import Foundation
import Gallery
import JSONCore
import Testing

/// Descriptors made up for tests: `person` picks a point, `variant` moves it
/// a little (another photo of the same person), by a fixed rule.
func descriptor(person: Int, variant: Int = 0) -> FaceDescriptor {
  var state = UInt64(person &* 7919 &+ 17)
  func next() -> Float {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000
  }
  var values = (0..<128).map { _ in next() * 0.15 }
  state = UInt64(person &* 104_729 &+ variant &* 31 &+ 5)
  if variant > 0 { values = values.map { $0 + next() * 0.02 } }
  return FaceDescriptor(values: values)!
}

func face(person: Int, variant: Int = 0) -> NewFace {
  NewFace(
    descriptor: descriptor(person: person, variant: variant), imageSHA256: String(repeating: "ab", count: 32),
    source: "person\(person)-\(variant).jpg")
}

func user(_ id: String, groups: [String] = []) -> GalleryUser {
  GalleryUser(id: id, name: id.capitalized, details: JSONObject([("desk", .integer(3))]), groups: groups)
}

/// What every gallery backend must do, run against each (a new, empty
/// gallery from `make` for every check).
enum GalleryContract {
  static func kind(_ body: () throws -> Void) -> GalleryError.Kind? {
    do {
      try body()
      return nil
    } catch {
      return (error as? GalleryError)?.kind
    }
  }

  static func groups(_ store: any GalleryStore) throws {
    try store.createGroup("staff", name: "Staff")
    try store.createGroup("visitors", name: "Visitors")
    #expect(kind { try store.createGroup("staff", name: "Again") } == .groupExists)
    #expect(try store.groups().map(\.id) == ["staff", "visitors"])
    try store.removeGroup("visitors")
    #expect(kind { try store.removeGroup("visitors") } == .groupNotFound)
    #expect(try store.groups() == [GalleryGroup(id: "staff", name: "Staff", userCount: 0)])
    #expect(kind { try store.createGroup("", name: "") } == .invalidName)
    #expect(kind { try store.createGroup("a\u{7}b", name: "") } == .invalidName)
  }

  static func enrollment(_ store: any GalleryStore) throws {
    try store.createGroup("staff", name: "Staff")
    let added = try store.enroll(
      Enrollment(user: user("alice", groups: ["staff"]), faces: [face(person: 1), face(person: 1, variant: 1)]))
    #expect(added.count == 2 && added[0].id != added[1].id && added.allSatisfy { $0.userID == "alice" })
    let alice = try store.user("alice")
    #expect(alice.name == "Alice" && alice.groups == ["staff"] && alice.faceCount == 2)
    #expect(alice.details["desk"] == .integer(3))
    #expect(try store.faces(ofUser: "alice").map(\.source) == ["person1-0.jpg", "person1-1.jpg"])

    #expect(kind { _ = try store.enroll(Enrollment(user: user("alice"), faces: [face(person: 2)])) } == .userExists)
    // A failed enrollment leaves nothing behind: not the user, not a face.
    #expect(
      kind { _ = try store.enroll(Enrollment(user: user("bob", groups: ["nobody"]), faces: [face(person: 2)])) }
        == .groupNotFound)
    #expect(kind { _ = try store.user("bob") } == .userNotFound)
    #expect(try store.descriptors(user: nil, group: nil).count == 2)
    let six = (0..<6).map { face(person: 3, variant: $0) }
    #expect(kind { _ = try store.enroll(Enrollment(user: user("carol"), faces: six)) } == .tooManyFaces)
    // A user may start without faces (`gallery user add`).
    #expect(try store.enroll(Enrollment(user: user("carol"), faces: [])).isEmpty)
    #expect(try store.user("carol").faceCount == 0)
    #expect(kind { _ = try store.addFaces([face(person: 2)], toUser: "nobody") } == .userNotFound)
  }

  static func editing(_ store: any GalleryStore) throws {
    try store.createGroup("staff", name: "Staff")
    try store.createGroup("night", name: "Night shift")
    _ = try store.enroll(Enrollment(user: user("alice", groups: ["staff"]), faces: [face(person: 1)]))
    try store.editUser(
      "alice", name: "Alice Liddell", details: JSONObject([("desk", .integer(4))]), joining: ["night"],
      leaving: ["staff"])
    var alice = try store.user("alice")
    #expect(alice.name == "Alice Liddell" && alice.details["desk"] == .integer(4) && alice.groups == ["night"])
    #expect(
      kind { try store.editUser("alice", name: nil, details: nil, joining: ["nobody"], leaving: []) } == .groupNotFound)
    #expect(try store.user("alice").groups == ["night"])
    #expect(kind { try store.editUser("bob", name: "Bob", details: nil, joining: [], leaving: []) } == .userNotFound)
    let added = try store.addFaces([face(person: 1, variant: 2)], toUser: "alice")
    #expect(try store.user("alice").faceCount == 2)
    try store.removeFace(added[0].id)
    #expect(kind { try store.removeFace(added[0].id) } == .faceNotFound)
    alice = try store.user("alice")
    #expect(alice.faceCount == 1)
    #expect(try store.users(inGroup: "night").map(\.id) == ["alice"])
    #expect(try store.users(inGroup: "staff").isEmpty)
    #expect(kind { _ = try store.users(inGroup: "nobody") } == .groupNotFound)
    // Removing a group keeps its users; removing a user takes their faces.
    try store.removeGroup("night")
    #expect(try store.user("alice").groups.isEmpty)
    try store.removeUser("alice")
    #expect(kind { try store.removeUser("alice") } == .userNotFound)
    #expect(try store.descriptors(user: nil, group: nil).isEmpty)
  }

  static func revisions(_ store: any GalleryStore) throws {
    let start = try store.revision()
    try store.createGroup("staff", name: "Staff")
    let afterGroup = try store.revision()
    #expect(afterGroup > start)
    #expect(kind { try store.createGroup("staff", name: "Staff") } == .groupExists)
    #expect(try store.revision() == afterGroup)  // a refused change is no change
    _ = try store.enroll(Enrollment(user: user("alice"), faces: [face(person: 1)]))
    #expect(try store.revision() > afterGroup)
  }

  /// 1:1 and 1:N on made-up people; the index follows changes made
  /// through `other`, a second connection to the same gallery.
  static func search(_ store: any GalleryStore, other: any GalleryStore) throws {
    try store.createGroup("staff", name: "Staff")
    for person in 1...20 {
      _ = try store.enroll(
        Enrollment(user: user("p\(person)", groups: person <= 10 ? ["staff"] : []), faces: [face(person: person)]))
    }
    let gallery = Gallery(store: store)
    let probe = descriptor(person: 7, variant: 3)
    let same = try gallery.verify(probe, user: "p7")
    #expect(same.isMatch && same.distance < 0.3)
    let other7 = try gallery.verify(probe, user: "p8")
    #expect(!other7.isMatch && other7.distance > 1)
    #expect(kind { _ = try gallery.verify(probe, user: "nobody") } == .userNotFound)

    let top = try gallery.identify(probe, group: "staff", top: 3)
    #expect(top.map(\.userID).first == "p7" && top.count == 3)
    #expect(zip(top, top.dropFirst()).allSatisfy { $0.distance <= $1.distance })
    // p15 is not staff: searched in staff, the nearest is not a match.
    let outsider = try gallery.identify(descriptor(person: 15, variant: 1), group: "staff", top: 1)
    #expect(outsider.first.map { $0.userID != "p15" && $0.distance > 1 } == true)
    #expect(try gallery.identify(descriptor(person: 15, variant: 1), group: nil, top: 1).first?.userID == "p15")
    #expect(kind { _ = try gallery.identify(probe, group: "nobody", top: 1) } == .groupNotFound)

    let staff = try gallery.index(group: "staff")
    #expect(staff.wholeLoads == 1 && staff.appends == 0 && staff.count == 10)

    // Another process enrolls someone: the next search finds them, with
    // their face appended to the index, not the index read again.
    _ = try other.enroll(Enrollment(user: user("newcomer", groups: ["staff"]), faces: [face(person: 99)]))
    #expect(
      try gallery.identify(descriptor(person: 99, variant: 1), group: "staff", top: 1).first?.userID == "newcomer")
    #expect(staff.wholeLoads == 1 && staff.appends == 1 && staff.count == 11)
    _ = try other.addFaces([face(person: 99, variant: 2)], toUser: "newcomer")
    #expect(try gallery.identify(probe, group: "staff", top: 12).count == 11)
    #expect(staff.wholeLoads == 1 && staff.appends == 2 && staff.count == 12)
    // A removal loads it whole.
    try other.removeUser("p7")
    #expect(try gallery.identify(probe, group: "staff", top: 1).first?.userID != "p7")
    #expect(staff.wholeLoads == 2 && staff.count == 11)
    // What was appended searches as a fresh index does.
    _ = try other.enroll(Enrollment(user: user("late", groups: ["staff"]), faces: [face(person: 42)]))
    let fresh = Gallery(store: other)
    for person in [1, 42, 99] {
      let query = descriptor(person: person, variant: 4)
      #expect(
        try gallery.identify(query, group: "staff", top: 5) == (try fresh.identify(query, group: "staff", top: 5)))
    }
    #expect(staff.wholeLoads == 2 && staff.appends == 1)
  }
}
