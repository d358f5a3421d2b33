import JSONCore
import Testing

private func written(_ value: JSONValue) -> String { value.jsonText }

private func writtenNumber(_ number: Double) -> String {
  var writer = JSONWriter()
  writer.number(number)
  return writer.string
}

@Suite struct JSONWriterTests {
  @Test func scalars() {
    #expect(written(.null) == "null")
    #expect(written(.bool(true)) == "true")
    #expect(written(.bool(false)) == "false")
    #expect(written(.integer(0)) == "0")
    #expect(written(.integer(-42)) == "-42")
    #expect(written(.integer(Int64.max)) == "9223372036854775807")
    #expect(written(.integer(Int64.min)) == "-9223372036854775808")
    #expect(written(.string("plain")) == #""plain""#)
  }

  @Test func containersAreCompactAndKeepKeyOrder() {
    #expect(written(.array([])) == "[]")
    #expect(written(.object(JSONObject())) == "{}")
    let value: JSONValue = ["zeta": 1, "alpha": [true, nil, "x"], "mid": ["b": 2, "a": 1]]
    #expect(written(value) == #"{"zeta":1,"alpha":[true,null,"x"],"mid":{"b":2,"a":1}}"#)
  }

  @Test func stringEscaping() {
    #expect(written(.string("say \"hi\"")) == #""say \"hi\"""#)
    #expect(written(.string(#"back\slash"#)) == #""back\\slash""#)
    #expect(written(.string("line\nreturn\rtab\t")) == #""line\nreturn\rtab\t""#)
    #expect(written(.string("\u{0}\u{1}\u{8}\u{C}\u{1F}")) == #""\u0000\u0001\u0008\u000c\u001f""#)
    // Not escaped: the solidus, DEL, and every non-ASCII character (written as UTF-8).
    #expect(written(.string("a/b\u{7F}")) == "\"a/b\u{7F}\"")
    #expect(written(.string("請直視鏡頭 😀 é")) == "\"請直視鏡頭 😀 é\"")
  }

  @Test func keysAreEscapedLikeStrings() {
    let value: JSONValue = .object(JSONObject([("a\"b\n", 1)]))
    #expect(written(value) == #"{"a\"b\n":1}"#)
  }

  @Test func wholeDoublesAreWrittenWithoutFraction() {
    #expect(writtenNumber(0) == "0")
    #expect(writtenNumber(-0.0) == "0")
    #expect(writtenNumber(1) == "1")
    #expect(writtenNumber(3.0) == "3")
    #expect(writtenNumber(-2) == "-2")
    #expect(writtenNumber(60) == "60")
    #expect(writtenNumber(1e14) == "100000000000000")
    #expect(writtenNumber(999_999_999_999_999) == "999999999999999")
  }

  @Test func largeWholeDoublesUseAnExponent() throws {
    let text = writtenNumber(1e20)
    #expect(!text.contains("."))
    #expect(try JSONParser.parse(text) == .number(1e20))
    #expect(try JSONParser.parse(writtenNumber(1e15)).doubleValue == 1e15)
  }

  @Test func fractionsAreWrittenInTheirShortestForm() {
    #expect(writtenNumber(0.1) == "0.1")
    #expect(writtenNumber(0.25) == "0.25")
    #expect(writtenNumber(-1.5) == "-1.5")
    #expect(writtenNumber(0.1 + 0.2) == "0.30000000000000004")
    #expect(writtenNumber(1.0 / 3.0) == "0.3333333333333333")
    #expect(writtenNumber(0.033333) == "0.033333")
    #expect(writtenNumber(123456.789) == "123456.789")
  }

  @Test func tinyAndHugeFractionsRoundTrip() throws {
    for number in [
      Double.leastNonzeroMagnitude, 1e-7, 2.2250738585072014e-308, 1.7976931348623157e308, -3.5e-12, 6.02214076e23,
    ] {
      let text = writtenNumber(number)
      #expect(try JSONParser.parse(text) == .number(number), "\(number) written as \(text)")
      #expect(text.count <= 24)
    }
  }

  @Test func nonFiniteNumbersAreWrittenAsNull() {
    #expect(writtenNumber(.nan) == "null")
    #expect(writtenNumber(.infinity) == "null")
    #expect(writtenNumber(-.infinity) == "null")
    #expect(written(.array([.number(.nan), .number(1.5), .number(-.infinity)])) == "[null,1.5,null]")
    #expect(written(["x": .number(.infinity)]) == #"{"x":null}"#)
  }

  @Test func writerAppendsAndResets() {
    var writer = JSONWriter()
    writer.raw("{")
    writer.key("k")
    writer.value([1, "two"])
    writer.raw(UInt8(ascii: "}"))
    #expect(writer.string == #"{"k":[1,"two"]}"#)
    #expect(writer.bytes == Array(#"{"k":[1,"two"]}"#.utf8))
    writer.reset()
    #expect(writer.bytes.isEmpty)
    writer.bool(false)
    #expect(writer.string == "false")
  }

  @Test func sameValueAlwaysGivesTheSameBytes() {
    let value: JSONValue = ["t": 0.1, "list": [1, 2.5, "x"], "nested": ["a": nil]]
    #expect(written(value) == written(value))
    var one = JSONWriter()
    one.value(value)
    var two = JSONWriter(capacity: 1)
    two.value(value)
    #expect(one.bytes == two.bytes)
  }
}

@Suite struct JSONRoundTripTests {
  static let mix: JSONValue = [
    "null": nil,
    "yes": true,
    "no": false,
    "zero": 0,
    "negative": -7,
    "big": .integer(Int64.max),
    "small": .integer(Int64.min),
    "fraction": 0.1,
    "third": .number(1.0 / 3.0),
    "negative fraction": -273.15,
    "tiny": .number(Double.leastNonzeroMagnitude),
    "huge": 1.5e300,
    "exponent": 6.02214076e23,
    "text": "plain",
    "quotes": "she said \"hi\" \\ bye",
    "controls": "\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}",
    "unicode": "請直視鏡頭 😀 é 𝄞",
    "empty string": "",
    "": "empty key",
    "empty array": [],
    "empty object": [:],
    "array": [1, 2.5, "three", [4, [5.5]], ["six": 6]],
    "object": ["z": 1, "a": ["y": [true, nil], "b": 0.75]],
  ]

  @Test func parseOfWriteGivesTheSameValue() throws {
    let text = Self.mix.jsonText
    #expect(try JSONParser.parse(text) == Self.mix)
    #expect(!text.contains("\n"))
  }

  @Test func writeOfParseGivesTheSameText() throws {
    let text = Self.mix.jsonText
    #expect(try JSONParser.parse(text).jsonText == text)
  }

  @Test func wholeDoublesComeBackAsIntegers() throws {
    // The writer drops the fraction of a whole double, so it reads back as an integer.
    #expect(try JSONParser.parse(JSONValue.number(2.0).jsonText) == .integer(2))
    #expect(try JSONParser.parse(JSONValue.number(-60).jsonText) == .integer(-60))
  }

  @Test func randomDoublesRoundTripExactly() throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      // Any finite bit pattern: normal, subnormal, tiny and huge values of both signs.
      let signed = Double(bitPattern: generator.next())
      guard signed.isFinite else { continue }
      let parsed = try JSONParser.parse(JSONValue.number(signed).jsonText)
      #expect(parsed.doubleValue == signed, "\(signed)")
    }
  }
}
