import Diagnostics
import Flows
import Testing

@Suite struct FlowDescriptionTests {
  @Test(
    "a Lua position is read as file and line",
    arguments: [
      ("flows/a.lua:12: ", "flows/a.lua", 12), ("a.lua:3:", "a.lua", 3), ("C:/x.lua:7: ", "C:/x.lua", 7),
      ("hkid:2018.lua:40: ", "hkid:2018.lua", 40),
    ])
  func aPositionIsReadAsFileAndLine(position: String, file: String, line: Int) {
    #expect(FlowDescription.location(position) == SourceLocation(file: file, line: line))
  }

  @Test(
    "what is not a Lua position is not read as one",
    arguments: ["", ":", "a.lua", "a.lua:", "a.lua:x: ", ":12: ", "a.lua:12", "a.lua:12:  ", "a.lua::"])
  func whatIsNotAPositionIsNotReadAsOne(position: String) {
    #expect(FlowDescription.location(position) == nil)
  }
}
