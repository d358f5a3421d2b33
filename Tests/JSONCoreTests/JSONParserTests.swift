import JSONCore
import Testing

/// Parses `text` and returns the syntax error it must raise.
private func syntaxError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> JSONSyntaxError?
{
  do {
    let value = try JSONParser.parse(text)
    Issue.record("expected a syntax error, parsed \(value)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

@Suite struct JSONParserValueTests {
  @Test func literals() throws {
    #expect(try JSONParser.parse("null") == .null)
    #expect(try JSONParser.parse("true") == .bool(true))
    #expect(try JSONParser.parse("false") == .bool(false))
  }

  @Test func strings() throws {
    #expect(try JSONParser.parse(#""""#) == .string(""))
    #expect(try JSONParser.parse(#""hello, world""#) == .string("hello, world"))
    #expect(try JSONParser.parse(#""請直視鏡頭""#) == .string("請直視鏡頭"))
  }

  @Test func integersStayIntegers() throws {
    #expect(try JSONParser.parse("0") == .integer(0))
    #expect(try JSONParser.parse("-0") == .integer(0))
    #expect(try JSONParser.parse("42") == .integer(42))
    #expect(try JSONParser.parse("-17") == .integer(-17))
    #expect(try JSONParser.parse("9223372036854775807") == .integer(Int64.max))
    #expect(try JSONParser.parse("-9223372036854775808") == .integer(Int64.min))
  }

  @Test func fractionsAndExponentsAreNumbers() throws {
    #expect(try JSONParser.parse("1.0") == .number(1.0))
    #expect(try JSONParser.parse("0.25") == .number(0.25))
    #expect(try JSONParser.parse("-2.5") == .number(-2.5))
    #expect(try JSONParser.parse("1e2") == .number(100))
    #expect(try JSONParser.parse("1E-2") == .number(0.01))
    #expect(try JSONParser.parse("2.5e+3") == .number(2500))
  }

  @Test func integersBeyondInt64BecomeNumbers() throws {
    #expect(try JSONParser.parse("9223372036854775808") == .number(9.223372036854775808e18))
    #expect(try JSONParser.parse("-9223372036854775809") == .number(-9.223372036854775809e18))
  }

  @Test func arrays() throws {
    #expect(try JSONParser.parse("[]") == .array([]))
    #expect(try JSONParser.parse("[ ]") == .array([]))
    #expect(
      try JSONParser.parse(#"[1, 2.5, "x", true, null, [], {}]"#)
        == .array([.integer(1), .number(2.5), .string("x"), .bool(true), .null, .array([]), .object(JSONObject())]))
  }

  @Test func objects() throws {
    #expect(try JSONParser.parse("{}") == .object(JSONObject()))
    let value = try JSONParser.parse(#"{"face": {"yaw": -3.5, "count": 1}, "ok": true}"#)
    #expect(value["face"]?["yaw"] == .number(-3.5))
    #expect(value["face"]?["count"] == .integer(1))
    #expect(value["ok"] == .bool(true))
    #expect(value["missing"] == nil)
  }

  @Test func objectKeysKeepDocumentOrder() throws {
    let value = try JSONParser.parse(#"{"zeta": 1, "alpha": 2, "mid": 3, "beta": {"y": 1, "x": 2}}"#)
    let object = try #require(value.objectValue)
    #expect(object.keys == ["zeta", "alpha", "mid", "beta"])
    #expect(object["beta"]?.objectValue?.keys == ["y", "x"])
    // Order matters for equality: the same pairs in another order are another value.
    #expect(try JSONParser.parse(#"{"a":1,"b":2}"#) != JSONParser.parse(#"{"b":2,"a":1}"#))
  }

  /// An object with many keys keeps a key index: reads, replacements and
  /// removals must find the same entries the ordered scan would.
  @Test func aLargeObjectFindsReplacesAndRemovesItsKeys() throws {
    let count = 50_000
    let text = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
    var object = try #require(JSONParser.parse(text).objectValue)
    #expect(object.count == count)
    #expect(object.keys.first == "k0" && object.keys.last == "k\(count - 1)")
    #expect(object["k0"] == .integer(0) && object["k31337"] == .integer(31337) && object["k\(count)"] == nil)
    object["k17"] = "seventeen"
    #expect(object["k17"] == "seventeen" && object.keys[17] == "k17" && object.count == count)
    object["k17"] = nil
    #expect(object["k17"] == nil && object["k18"] == .integer(18) && object.keys[17] == "k18")
    object["k17"] = 17
    #expect(object.keys.last == "k17" && object["k17"] == .integer(17) && object["k49999"] == .integer(49999))
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(#"{"a":1,"#) }
    let duplicate = "{" + (0..<40).map { "\"k\($0)\":1" }.joined(separator: ",") + ",\"k3\":2}"
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(duplicate) }
  }

  @Test func anObjectBuiltKeyByKeyPastTheIndexSizeStaysInOrder() {
    var object = JSONObject()
    for key in (0..<40).reversed() { object["k\(key)"] = .integer(Int64(key)) }
    for key in stride(from: 0, to: 40, by: 3) { object["k\(key)"] = nil }
    #expect(object.count == 26)
    #expect(object.keys.first == "k38" && object.keys.last == "k1")
    #expect(object["k38"] == .integer(38) && object["k39"] == nil && object["k3"] == nil && object["k1"] == .integer(1))
    #expect(object == JSONObject(object.entries.map { ($0.key, $0.value) }))
  }

  @Test func whitespaceAroundAndInsideIsAllowed() throws {
    #expect(try JSONParser.parse(" \t\r\n [ 1 ,\n 2 ] \n\n") == .array([.integer(1), .integer(2)]))
    #expect(try JSONParser.parse("{ \"a\" : 1 }") == ["a": 1])
  }

  @Test func simpleEscapes() throws {
    #expect(
      try JSONParser.parse(#""q\"b\\s\/b\bf\fn\nr\rt\t""#)
        == .string("q\"b\\s/b\u{08}f\u{0C}n\nr\rt\t"))
  }

  @Test func unicodeEscapes() throws {
    #expect(try JSONParser.parse(#""\u0041\u00e9\u00E9""#) == .string("Aéé"))
    #expect(try JSONParser.parse(#""\u8acb""#) == .string("請"))
    #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
  }

  @Test func surrogatePairsCombineIntoOneScalar() throws {
    let value = try JSONParser.parse(#""smile \ud83d\ude00!""#)
    #expect(value == .string("smile 😀!"))
    #expect(value.stringValue?.unicodeScalars.map(\.value) == [0x73, 0x6D, 0x69, 0x6C, 0x65, 0x20, 0x1F600, 0x21])
    #expect(try JSONParser.parse(#""\uD834\uDD1E""#) == .string("𝄞"))
  }

  @Test func escapedAndPlainTextMix() throws {
    #expect(try JSONParser.parse(#""before \n after 請""#) == .string("before \n after 請"))
  }
}

@Suite struct JSONParserErrorTests {
  @Test func duplicateKeysAreRejected() throws {
    let error = try #require(syntaxError(#"{"a": 1, "b": 2, "a": 3}"#))
    #expect(error.message.contains("duplicate key \"a\""))
    #expect(error.line == 1)
    // Reported right after the second "a".
    #expect(error.column == 21)
  }

  @Test func duplicateKeysInNestedObjectsAreRejected() throws {
    let error = try #require(syntaxError("{\"outer\": {\n  \"k\": 1,\n  \"k\": 2}}"))
    #expect(error.message.contains("duplicate key \"k\""))
    #expect(error.line == 3)
  }

  @Test func sameKeyInSiblingObjectsIsFine() throws {
    let value = try JSONParser.parse(#"[{"a": 1}, {"a": 2}]"#)
    #expect(value == [["a": 1], ["a": 2]])
  }

  @Test func errorPositionIsLineAndColumn() throws {
    let error = try #require(syntaxError("[1,\n  2,\n  x]"))
    #expect(error.line == 3)
    #expect(error.column == 3)
    #expect(error.message.contains("unexpected character 'x'"))
    #expect(error.description == "line 3, column 3: \(error.message)")
  }

  @Test func errorOnFirstLine() throws {
    let error = try #require(syntaxError(#"{"a" 1}"#))
    #expect(error.line == 1)
    #expect(error.column == 6)
    #expect(error.message.contains("expected ':'"))
  }

  @Test func windowsLineEndsCountAsOneLine() throws {
    let error = try #require(syntaxError("{\r\n\"a\": 1,\r\n\"b\": ?}"))
    #expect(error.line == 3)
    #expect(error.column == 6)
  }

  @Test func trailingGarbageIsRejected() throws {
    let error = try #require(syntaxError("{\"a\": 1}  x"))
    #expect(error.message.contains("unexpected text after the JSON value"))
    #expect(error.line == 1)
    #expect(error.column == 11)

    let second = try #require(syntaxError("1\n2"))
    #expect(second.line == 2)
    #expect(second.column == 1)

    #expect(syntaxError("[] []") != nil)
    #expect(syntaxError("truex") != nil)
  }

  @Test func emptyInputIsAnError() throws {
    let error = try #require(syntaxError(""))
    #expect(error.message.contains("unexpected end of input"))
    #expect(try #require(syntaxError("   \n ")).line == 2)
  }

  @Test(arguments: [
    "[1,]", "[1 2]", "{\"a\":1,}", "{,}", "{\"a\"}", "{a:1}", "{'a':1}", "[", "{", "{\"a\":", "]", "nul", "tru",
    "falsy", "undefined", "NaN", "Infinity", "-Infinity",
  ])
  func malformedDocuments(text: String) {
    #expect(syntaxError(text) != nil)
  }

  @Test(arguments: ["01", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "1.2.3", "--1"])
  func malformedNumbers(text: String) {
    #expect(syntaxError(text) != nil)
  }

  @Test func numbersOutOfRangeAreRejected() throws {
    let error = try #require(syntaxError("[1e400]"))
    #expect(error.message.contains("out of range"))
  }

  @Test func badEscapes() throws {
    #expect(try #require(syntaxError(#""\x""#)).message.contains("invalid escape"))
    #expect(try #require(syntaxError(#""\u12""#)).message.contains("\\u"))
    #expect(try #require(syntaxError(#""\u12g4""#)).message.contains("hex digit"))
  }

  @Test func unpairedSurrogatesAreRejected() throws {
    #expect(try #require(syntaxError(#""\ud83d""#)).message.contains("unpaired surrogate"))
    #expect(try #require(syntaxError(#""\ud83d x""#)).message.contains("unpaired surrogate"))
    #expect(try #require(syntaxError(#""\ude00""#)).message.contains("unpaired surrogate"))
    #expect(try #require(syntaxError(#""\ud83d\u0041""#)).message.contains("low surrogate"))
  }

  @Test func unterminatedStrings() throws {
    let error = try #require(syntaxError(#""abc"#))
    #expect(error.message.contains("unterminated string"))
    #expect(syntaxError(#""abc\"#) != nil)
    #expect(syntaxError(#""a\n"#) != nil)
  }

  @Test func rawControlCharactersInStringsAreRejected() throws {
    let error = try #require(syntaxError("\"a\nb\""))
    #expect(error.message.contains("control character"))
    #expect(syntaxError("\"a\\n\tb\"") != nil)
  }

  @Test func nestingUpToTheLimitIsAccepted() throws {
    let depth = 256
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    var value = try JSONParser.parse(text)
    var levels = 0
    while case .array(let inner) = value {
      levels += 1
      value = inner.first ?? .null
    }
    #expect(levels == depth)

    let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
    #expect(throws: Never.self) { try JSONParser.parse(objects) }
  }

  @Test func nestingBeyondTheLimitIsAnError() throws {
    let text = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
    let error = try #require(syntaxError(text))
    #expect(error.message.contains("nesting deeper than 256"))
    #expect(error.column == 257)

    let mixed = String(repeating: "[{\"k\":", count: 200) + "0" + String(repeating: "}]", count: 200)
    #expect(try #require(syntaxError(mixed)).message.contains("nesting"))
  }

  @Test func veryDeepInputDoesNotCrash() throws {
    let text = String(repeating: "[", count: 100_000)
    #expect(try #require(syntaxError(text)).message.contains("nesting"))
  }

  @Test func parseFromBytesMatchesParseFromText() throws {
    let text = #"{"k": [1, 2.5, "請"]}"#
    #expect(try JSONParser.parse(bytes: Array(text.utf8)) == JSONParser.parse(text))
  }
}

@Suite struct JSONValueTests {
  @Test func accessors() throws {
    let value: JSONValue = ["s": "text", "i": 3, "d": 2.5, "b": true, "a": [1, 2], "n": nil]
    #expect(value["s"]?.stringValue == "text")
    #expect(value["i"]?.integerValue == 3)
    #expect(value["i"]?.doubleValue == 3)
    #expect(value["d"]?.doubleValue == 2.5)
    #expect(value["d"]?.integerValue == nil)
    #expect(value["b"]?.boolValue == true)
    #expect(value["a"]?.arrayValue == [1, 2])
    #expect(value["n"] == .null)
    #expect(value["s"]?.integerValue == nil)
    #expect(JSONValue.number(4.0).integerValue == 4)
    #expect(JSONValue.number(1e19).integerValue == nil)
    #expect(value.objectValue?.count == 6)
  }

  @Test func kindNames() {
    #expect(JSONValue.null.kindName == "null")
    #expect(JSONValue.bool(true).kindName == "boolean")
    #expect(JSONValue.integer(1).kindName == "integer")
    #expect(JSONValue.number(1.5).kindName == "number")
    #expect(JSONValue.string("").kindName == "string")
    #expect(JSONValue.array([]).kindName == "array")
    #expect(JSONValue.object(JSONObject()).kindName == "object")
  }

  @Test func objectSubscriptReplacesInPlaceAndRemoves() {
    var object = JSONObject([("a", 1), ("b", 2), ("c", 3)])
    object["b"] = "two"
    #expect(object.keys == ["a", "b", "c"])
    #expect(object["b"] == "two")
    object["a"] = nil
    #expect(object.keys == ["b", "c"])
    object["a"] = 10
    #expect(object.keys == ["b", "c", "a"])
    object["missing"] = nil
    #expect(object.count == 3)
  }

  @Test func objectInitializerKeepsTheLastValueOfARepeatedKey() {
    let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
    #expect(object.keys == ["a", "b"])
    #expect(object["a"] == 3)
  }

  @Test func integerAndNumberAreDifferentValues() {
    #expect(JSONValue.integer(1) != JSONValue.number(1))
  }
}

@Suite struct JSONParserEncodingTests {
  @Test func aByteOrderMarkAtTheStartIsSkipped() throws {
    let value = try JSONParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"t": 0}"#.utf8))
    #expect(value == .object(JSONObject([("t", .integer(0))])))
    // Anywhere else it is text, and out of a string an error.
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bytes: Array(" ".utf8) + [0xEF, 0xBB, 0xBF, 0x31]) }
  }

  @Test(
    arguments: [
      [0xFF], [0xC3], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
    ] as [[UInt8]])
  func aStringThatIsNotUTF8IsAnErrorAtTheString(_ bad: [UInt8]) {
    for escaped in [false, true] {
      // With an escape before the bytes, the string is read by the slow path.
      let prefix = Array((escaped ? #"{"name": "\u00e9a"# : #"{"name": "a"#).utf8)
      do {
        let value = try JSONParser.parse(bytes: prefix + bad + Array(#""}"#.utf8))
        Issue.record("\(bad) was read as \(value)")
      } catch {
        #expect(error.message.contains("not valid UTF-8"), "\(error.message)")
        #expect(error.column == 10, "the column of the string's quote")
      }
    }
  }

  @Test func validUTF8BeyondASCIIIsRead() throws {
    let text = "{\"name\": \"Zoë 請 😀\", \"e\": \"\\u00e9 é\"}"
    let value = try JSONParser.parse(bytes: Array(text.utf8))
    #expect(value["name"] == .string("Zoë 請 😀"))
    #expect(value["e"] == .string("é é"))
  }
}
