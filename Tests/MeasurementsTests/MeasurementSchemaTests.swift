import Measurements
import Testing

private func id(_ result: Result<Int, MeasurementShapeError>, sourceLocation: Testing.SourceLocation = #_sourceLocation)
  throws -> Int
{
  switch result {
  case .success(let id): return id
  case .failure(let error):
    Issue.record("unexpected shape error: \(error)", sourceLocation: sourceLocation)
    throw error
  }
}

private func shapeError(_ result: Result<Int, MeasurementShapeError>) -> MeasurementShapeError? {
  if case .failure(let error) = result { return error }
  return nil
}

@Suite struct MeasurementSchemaTests {
  @Test func nodesAreCreatedOnceWithIncreasingIds() throws {
    let schema = MeasurementSchema()
    #expect(schema.count == 0)
    let face = try id(schema.node(parent: -1, key: .name("face"), isTable: true))
    let yaw = try id(schema.node(parent: face, key: .name("yaw"), isTable: false))
    let count = try id(schema.node(parent: face, key: .name("count"), isTable: false))
    #expect([face, yaw, count] == [0, 1, 2])
    #expect(try id(schema.node(parent: face, key: .name("yaw"), isTable: false)) == yaw)
    #expect(try id(schema.node(parent: -1, key: .name("face"), isTable: true)) == face)
    #expect(schema.count == 3)
    #expect(schema.nodes[yaw].parent == face)
    #expect(schema.nodes[yaw].key == .name("yaw"))
    #expect(!schema.nodes[yaw].isTable)
    #expect(schema.nodes[yaw].path == "face.yaw")
    #expect(schema.nodes[face].parent == -1)
    #expect(schema.nodes[face].isTable)
  }

  @Test func theSameNameUnderAnotherParentIsAnotherNode() throws {
    let schema = MeasurementSchema()
    let left = try id(schema.node(parent: -1, key: .name("left"), isTable: true))
    let right = try id(schema.node(parent: -1, key: .name("right"), isTable: true))
    let leftX = try id(schema.node(parent: left, key: .name("x"), isTable: false))
    let rightX = try id(schema.node(parent: right, key: .name("x"), isTable: false))
    #expect(leftX != rightX)
    #expect(schema.nodes[leftX].path == "left.x")
    #expect(schema.nodes[rightX].path == "right.x")
  }

  @Test func nameAndIndexKeysAreDifferent() throws {
    let schema = MeasurementSchema()
    let list = try id(schema.node(parent: -1, key: .name("list"), isTable: true))
    let byIndex = try id(schema.node(parent: list, key: .index(1), isTable: false))
    let byName = try id(schema.node(parent: list, key: .name("1"), isTable: false))
    #expect(byIndex != byName)
    #expect(schema.id(parent: list, key: .index(1)) == byIndex)
    #expect(schema.id(parent: list, key: .name("1")) == byName)
    #expect(MeasurementKey.index(7).description == "7")
    #expect(MeasurementKey.name("yaw").description == "yaw")
  }

  @Test func pathsCreateTablesOnTheWay() throws {
    let schema = MeasurementSchema()
    let x = try id(schema.node(path: "card.corners.1.x"))
    #expect(schema.count == 4)
    #expect(schema.nodes.map(\.path) == ["card", "card.corners", "card.corners.1", "card.corners.1.x"])
    #expect(schema.nodes.map(\.isTable) == [true, true, true, false])
    #expect(schema.nodes[2].key == .index(1))
    #expect(schema.nodes[3].parent == 2)
    #expect(x == 3)
    // Existing parts are reused.
    let y = try id(schema.node(path: "card.corners.1.y"))
    #expect(y == 4)
    #expect(schema.nodes[y].parent == 2)
    #expect(try id(schema.node(path: "card.corners.1.x")) == x)
    #expect(schema.count == 5)
  }

  @Test func aPathCanEndInATable() throws {
    let schema = MeasurementSchema()
    let face = try id(schema.node(path: "face", isTable: true))
    #expect(schema.nodes[face].isTable)
    let yaw = try id(schema.node(path: "face.yaw"))
    #expect(schema.nodes[yaw].parent == face)
  }

  @Test func lookupFindsWithoutCreating() throws {
    let schema = MeasurementSchema()
    _ = try id(schema.node(path: "face.yaw"))
    _ = try id(schema.node(path: "card.corners.2.x"))
    #expect(schema.lookup(path: "face.yaw") == 1)
    #expect(schema.lookup(path: "face") == 0)
    #expect(schema.lookup(path: "card.corners.2.x") == schema.count - 1)
    #expect(
      schema.lookup(path: "card.corners.2") == schema.id(parent: schema.lookup(path: "card.corners")!, key: .index(2)))
    let before = schema.count
    #expect(schema.lookup(path: "face.pitch") == nil)
    #expect(schema.lookup(path: "nothing.here") == nil)
    #expect(schema.lookup(path: "") == nil)
    #expect(schema.count == before)
  }

  @Test func aValueCannotBecomeATable() throws {
    let schema = MeasurementSchema()
    let face = try id(schema.node(parent: -1, key: .name("face"), isTable: false))
    let error = try #require(shapeError(schema.node(parent: -1, key: .name("face"), isTable: true)))
    #expect(error.path == "face")
    #expect(!error.wasTable)
    #expect(error.description == "'face' was a single value and is now a table of measurements")
    #expect(schema.count == 1)
    #expect(!schema.nodes[face].isTable)
  }

  @Test func aTableCannotBecomeAValue() throws {
    let schema = MeasurementSchema()
    _ = try id(schema.node(path: "face.eyes.left"))
    let error = try #require(shapeError(schema.node(path: "face.eyes")))
    #expect(error.path == "face.eyes")
    #expect(error.wasTable)
    #expect(error.description == "'face.eyes' was a table of measurements and is now a single value")
  }

  @Test func aConflictInTheMiddleOfAPathFails() throws {
    let schema = MeasurementSchema()
    _ = try id(schema.node(path: "face"))
    let error = try #require(shapeError(schema.node(path: "face.yaw")))
    #expect(error.path == "face")
    #expect(!error.wasTable)
    #expect(schema.count == 1)
  }

  @Test func onAddIsCalledForEveryNewNodeInOrder() throws {
    let schema = MeasurementSchema()
    var added: [(Int, MeasurementSchema.Node)] = []
    schema.onAdd = { added.append(($0, $1)) }
    _ = try id(schema.node(path: "face.yaw"))
    _ = try id(schema.node(path: "face.yaw"))
    _ = try id(schema.node(path: "face.count"))
    _ = try id(schema.node(parent: -1, key: .name("card"), isTable: true))
    _ = shapeError(schema.node(path: "card"))
    #expect(added.map(\.0) == [0, 1, 2, 3])
    #expect(added.map(\.1.path) == ["face", "face.yaw", "face.count", "card"])
    #expect(added.map(\.1) == schema.nodes)
    // Parents are always announced before their children.
    for (id, node) in added { #expect(node.parent < id) }
  }
}

@Suite struct MeasurementFrameTests {
  @Test func nodesPastTheEndAreAbsent() {
    let frame = MeasurementFrame(t: 1.5, index: 3, values: [.integer(1)])
    #expect(frame.t == 1.5)
    #expect(frame.index == 3)
    #expect(frame[0] == .integer(1))
    #expect(frame[1] == .absent)
    #expect(frame[100] == .absent)
  }

  @Test func settingANodePastTheEndFillsWithAbsent() {
    var frame = MeasurementFrame(t: 0, index: 0)
    frame[3] = .number(2.5)
    #expect(frame.values == [.absent, .absent, .absent, .number(2.5)])
    frame[1] = .string("x")
    #expect(frame.values == [.absent, .string("x"), .absent, .number(2.5)])
  }
}
