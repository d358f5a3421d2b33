import Diagnostics
import Foundation
import Licensing
import TestSupport
import Testing

@Suite struct LicenseConfigTests {
  @Test func shippedSamplesAreValidAndAgree() throws {
    let xml = try LicenseConfigLoader.load(path: packageRootPath + "/configs/license.conf")
    let plist = try LicenseConfigLoader.load(path: packageRootPath + "/configs/vllicense.plist")
    #expect(xml.format == .xml)
    #expect(plist.format == .propertyList)
    #expect(xml.server == "http://127.0.0.1:8740")
    for config in [xml, plist] {
      #expect(config.server == xml.server)
      #expect(config.eid == xml.eid)
      #expect(config.productID == xml.productID)
      #expect(config.filename == "license.dat")
      #expect(config.containerMode == false)
      #expect(config.connectionTimeout == 15)
      #expect(config.givenKeys == Set(LicenseConfig.keys))
    }
  }

  @Test func defaultsFillWhatIsNotGiven() throws {
    let config = try loadConfig("license.conf", conf(requiredParams))
    #expect(config.server == "http://127.0.0.1:8740")
    #expect(config.eid == "ACME-0001")
    #expect(config.productID == "workbench")
    #expect(config.filename == "license.dat")
    #expect(config.containerMode == false)
    #expect(config.connectionTimeout == 15)
    #expect(config.timeout == .seconds(15))
    #expect(config.givenKeys == ["Server", "EID", "ProductID"])
    #expect(config.licensePath == (config.path as NSString).deletingLastPathComponent + "/license.dat")
    #expect(config.render().contains("ConnectionTimeout  15 s  (default)"))
  }

  @Test func everyValueIsRead() throws {
    let config = try loadConfig(
      "license.conf",
      conf(
        requiredParams + """

              <param name="Filename" type="Value::String" text="site.lic"/>
              <param name="ContainerMode" type="Value::Int1" x="1"/>
              <param name="ConnectionTimeout" type="Value::Int1" x="0"/>
          """))
    #expect(config.filename == "site.lic")
    #expect(config.containerMode)
    #expect(config.connectionTimeout == 0)
    #expect(config.timeout == nil)
    #expect(config.licensePath.hasSuffix("/site.lic"))
    #expect(config.render().contains("0 (never time out)"))
  }

  @Test func limitsThemselvesAreAllowed() throws {
    let longest = String(repeating: "n", count: 64)
    let config = try loadConfig(
      "license.conf",
      conf(
        requiredParams + """

              <param name="Filename" type="Value::String" text="\(longest)"/>
              <param name="ConnectionTimeout" type="Value::Int1" x="300"/>
          """))
    #expect(config.filename == longest)
    #expect(config.connectionTimeout == 300)
  }

  /// One param of license.conf that breaks one rule, and what the problem says.
  struct Violation: Sendable, CustomStringConvertible {
    var param: String
    var key: String
    var fragments: [String]
    var description: String { param }
  }

  static let violations: [Violation] = [
    Violation(
      param: #"<param name="Server" type="Value::String" text="127.0.0.1:8740"/>"#, key: "Server",
      fragments: ["http:// or https:// URL", "'127.0.0.1:8740'"]),
    Violation(
      param: #"<param name="Server" type="Value::String" text="  "/>"#, key: "Server",
      fragments: ["is required", "empty"]),
    Violation(
      param: #"<param name="EID" type="Value::String" text=""/>"#, key: "EID", fragments: ["is required", "empty"]),
    Violation(
      param: #"<param name="ProductID" type="Value::Int1" x="3"/>"#, key: "ProductID",
      fragments: ["type=\"Value::Int1\"", "must be type=\"Value::String\""]),
    Violation(
      param: #"<param name="EID" type="Value::String" x="3"/>"#, key: "EID", fragments: ["has no text attribute"]),
    Violation(
      param: "<param name=\"Filename\" type=\"Value::String\" text=\"\(String(repeating: "f", count: 65))\"/>",
      key: "Filename", fragments: ["65 characters", "at most 64"]),
    Violation(
      param: #"<param name="Filename" type="Value::String" text=""/>"#, key: "Filename",
      fragments: ["must not be empty"]),
    Violation(
      param: #"<param name="ConnectionTimeout" type="Value::Int1" x="-1"/>"#, key: "ConnectionTimeout",
      fragments: ["must not be negative", "-1"]),
    Violation(
      param: #"<param name="ConnectionTimeout" type="Value::Int1" x="301"/>"#, key: "ConnectionTimeout",
      fragments: ["at most 300 seconds", "301"]),
    Violation(
      param: #"<param name="ConnectionTimeout" type="Value::Int1" x="fast"/>"#, key: "ConnectionTimeout",
      fragments: ["whole number", "'fast'"]),
    Violation(
      param: #"<param name="ConnectionTimeout" type="Value::String" text="15"/>"#, key: "ConnectionTimeout",
      fragments: ["must be type=\"Value::Int1\""]),
    Violation(
      param: #"<param name="ConnectionTimeout" type="Value::Int1"/>"#, key: "ConnectionTimeout",
      fragments: ["has no x attribute"]),
    Violation(
      param: #"<param name="ContainerMode" type="Value::Int1" x="2"/>"#, key: "ContainerMode",
      fragments: ["must be 0 or 1", "got 2"]),
    Violation(
      param: #"<param name="Timeout" type="Value::Int1" x="10"/>"#, key: "Timeout",
      fragments: ["unknown key 'Timeout'", "known: Server, EID, ProductID, Filename, ContainerMode, ConnectionTimeout"]),
  ]

  /// Each violation, in place of its key's valid param (Server, EID and
  /// ProductID are on lines 4 to 6) or after them on line 7, is one problem
  /// naming the file, the line, the key and the rule.
  @Test(arguments: violations)
  func eachRuleIsReported(_ violation: Violation) throws {
    var params = requiredParams.split(separator: "\n").map(String.init)
    let line: Int
    if let index = params.firstIndex(where: { $0.contains("name=\"\(violation.key)\"") }) {
      params[index] = "    " + violation.param
      line = 4 + index
    } else {
      params.append("    " + violation.param)
      line = 7
    }
    let problems = try configProblems("license.conf", conf(params.joined(separator: "\n")))
    let problem = try #require(problems.first)
    #expect(problems.count == 1, "\(problems)")
    #expect(problem.location == SourceLocation(file: "license.conf", line: line, key: violation.key))
    for fragment in violation.fragments {
      #expect(problem.message.contains(fragment), "\(problem.message)")
    }
  }

  @Test func missingRequiredKeysAreEachNamed() throws {
    let problems = try configProblems(
      "license.conf", conf(#"    <param name="Filename" type="Value::String" text="a.dat"/>"#))
    #expect(problems.map(\.location?.key) == ["Server", "EID", "ProductID"])
    #expect(problems.allSatisfy { $0.message.contains("is required") && $0.message.contains("missing") })
    #expect(problems.allSatisfy { $0.location?.line == 3 })
    #expect(problems[1].help == #"add <param name="EID" type="Value::String" text="YOUR-EID"/>"#)
  }

  @Test func everyProblemIsCollectedInLineOrder() throws {
    let problems = try configProblems(
      "license.conf",
      conf(
        """
            <param name="Server" type="Value::String" text="ftp://host"/>
            <param name="EID" type="Value::String" text=""/>
            <param name="Filename" type="Value::String" text="\(String(repeating: "x", count: 100))"/>
            <param name="ContainerMode" type="Value::Int1" x="7"/>
            <param name="ConnectionTimeout" type="Value::Int1" x="-5"/>
            <param name="Colour" type="Value::String" text="red"/>
        """))
    #expect(
      problems.map(\.location?.key) == [
        "ProductID", "Server", "EID", "Filename", "ContainerMode", "ConnectionTimeout", "Colour",
      ])
    #expect(problems.map(\.location?.line) == [3, 4, 5, 6, 7, 8, 9])
  }

  @Test func unknownKeysSuggestTheClosestKnownOne() throws {
    let problems = try configProblems(
      "license.conf",
      conf(
        requiredParams + """

              <param name="server" type="Value::String" text="http://a"/>
              <param name="ConectionTimeout" type="Value::Int1" x="5"/>
              <param name="Timeout" type="Value::Int1" x="5"/>
              <param name="Zebra" type="Value::Int1" x="5"/>
          """))
    #expect(problems.map(\.location?.key) == ["server", "ConectionTimeout", "Timeout", "Zebra"])
    #expect(problems[0].help?.hasPrefix("did you mean 'Server'?") == true)
    #expect(problems[1].help?.hasPrefix("did you mean 'ConnectionTimeout'?") == true)
    #expect(problems[2].help?.hasPrefix("did you mean 'ConnectionTimeout'?") == true)
    #expect(problems[3].help?.contains("did you mean") == false)
  }

  @Test func aKeyGivenTwiceIsAProblem() throws {
    let problems = try configProblems(
      "license.conf", conf(requiredParams + "\n" + #"    <param name="EID" type="Value::String" text="B"/>"#))
    #expect(problems.count == 1)
    #expect(problems.first?.location == SourceLocation(file: "license.conf", line: 7, key: "EID"))
    #expect(problems.first?.message == "'EID' is given again (first at line 5)")
  }

  @Test func otherSectionsAndElementsAreProblems() throws {
    let text = """
      <settings>
        <section name="Licensing::Settings">
          <param name="Server" type="Value::String" text="http://a"/>
          <param name="EID" type="Value::String" text="E"/>
          <param name="ProductID" type="Value::String" text="P"/>
          <value name="X"/>
          <param type="Value::String" text="no name"/>
        </section>
        <section name="Other::Settings"/>
      </settings>
      """
    let problems = try configProblems("license.conf", text)
    #expect(problems.map(\.location?.line) == [6, 7, 9])
    #expect(problems[0].message == "unexpected element <value>")
    #expect(problems[1].message == "a <param> without a name attribute")
    #expect(problems[2].message == "unknown section 'Other::Settings'")
  }

  @Test func malformedXMLNamesItsLine() throws {
    let text = """
      <settings>
        <section name="Licensing::Settings">
          <param name="Server" type="Value::String" text="http://a"/>
          <param name="EID" type="Value::String" text="E">
        </section>
      </settings>
      """
    let problems = try configProblems("license.conf", text)
    #expect(problems.count == 1)
    #expect(problems.first?.location == SourceLocation(file: "license.conf", line: 5))
    #expect(problems.first?.message.hasPrefix("not well-formed XML: a closing tag does not match") == true)

    let unquoted = try configProblems("license.conf", "<settings>\n\n  <section name=Licensing/>\n</settings>\n")
    #expect(unquoted.first?.location?.line == 3)
    #expect(unquoted.first?.message.contains("must start with a quote") == true)
  }

  @Test func emptyOrForeignFilesAreProblems() throws {
    #expect(try configProblems("license.conf", "  \n").first?.message == "the file is empty")
    let foreign = try configProblems("license.conf", "<config>\n</config>\n")
    #expect(foreign.first?.message.hasPrefix("the root element is <config>") == true)
    let noSection = try configProblems("license.conf", "<settings/>\n")
    #expect(noSection.first?.message == "no <section name=\"Licensing::Settings\">")
  }

  @Test func aMissingFileIsALicenseError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect {
      try LicenseConfigLoader.load(path: folder.file("license.conf"))
    } throws: { error in
      let error = try #require(error as? WorkbenchError)
      return error.status == .license && error.diagnostics.first?.message == "no such license configuration"
        && error.diagnostics.first?.help?.contains("configs/license.conf") == true
    }
    #expect {
      try LicenseConfigLoader.load(path: folder.path)
    } throws: { error in
      (error as? WorkbenchError)?.diagnostics.first?.message == "is a folder, not a file"
    }
  }
}

@Suite struct LicensePlistTests {
  static let allKeys = """
      <key>Server</key>
      <string>https://licenses.example.com</string>
      <key>EID</key>
      <string>ACME-0001</string>
      <key>ProductID</key>
      <string>workbench</string>
      <key>Filename</key>
      <string>vl.dat</string>
      <key>ContainerMode</key>
      <integer>1</integer>
      <key>ConnectionTimeout</key>
      <integer>30</integer>
    """

  @Test func thePlistGivesTheSameKeys() throws {
    let config = try loadConfig("vllicense.plist", plist(Self.allKeys))
    #expect(config.format == .propertyList)
    #expect(config.server == "https://licenses.example.com")
    #expect(config.eid == "ACME-0001")
    #expect(config.productID == "workbench")
    #expect(config.filename == "vl.dat")
    #expect(config.containerMode)
    #expect(config.connectionTimeout == 30)
  }

  @Test func defaultsAndBooleanContainerMode() throws {
    let config = try loadConfig(
      "vllicense.plist",
      plist(
        """
          <key>Server</key><string>http://a</string>
          <key>EID</key><string>E</string>
          <key>ProductID</key><string>P</string>
          <key>ContainerMode</key><true/>
        """))
    #expect(config.containerMode)
    #expect(config.filename == "license.dat")
    #expect(config.connectionTimeout == 15)
  }

  @Test func theFormatComesFromTheContentFirst() throws {
    // A plist named license.conf, and license.conf XML named .plist.
    #expect(try loadConfig("license.conf", plist(Self.allKeys)).format == .propertyList)
    #expect(try loadConfig("settings.plist", conf(requiredParams)).format == .xml)
  }

  @Test(arguments: ["license.conf", "vllicense.plist"])
  func elementsNestedAHundredThousandDeepAreRefusedNotACrash(name: String) throws {
    // The tree of such a document overflowed the stack when it was freed.
    let (open, close) = name == "license.conf" ? ("<settings>", "</settings>") : ("<plist><dict>", "</dict></plist>")
    let text = open + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + close
    do {
      _ = try LicenseConfigLoader.parse(data: Data(text.utf8), path: name)
      Issue.record("a 100,000-level document was accepted")
    } catch {
      #expect(error.status == .license)
      #expect(error.summary.contains("nested more than 64 levels deep"), "\(error.summary)")
      #expect(error.summary.contains(name), "\(error.summary)")
    }
    // As deep as a real file: still read.
    let shallow = conf(requiredParams)
    _ = try LicenseConfigLoader.parse(data: Data(shallow.utf8), path: "license.conf")
  }

  @Test func aBinaryPlistIsRead() throws {
    let values: [String: Any] = ["Server": "http://a", "EID": "E", "ProductID": "P", "ConnectionTimeout": 0]
    let data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
    let config = try LicenseConfigLoader.parse(data: data, path: "vllicense.plist")
    #expect(config.format == .propertyList)
    #expect(config.connectionTimeout == 0)
  }

  /// A damaged document declared as UTF-7 crashed libxml2 inside XMLParser
  /// (found by fuzzing; the input is kept in Tests/Fixtures/fuzz/). Only
  /// UTF-8 is read, and another encoding is named.
  @Test(arguments: [
    ("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<settings/>", "declares the encoding UTF-7"),
    ("<?xml version='1.0' encoding='ISO-8859-1'?>\n<settings/>", "declares the encoding ISO-8859-1"),
    ("\u{FFFE}<settings/>", "not UTF-8"),
  ])
  func onlyUTF8IsRead(_ text: String, _ expected: String) throws {
    var data = Data(text.utf8)
    if expected == "not UTF-8" { data = Data([0x3C, 0x73, 0xFF, 0x3E]) }
    do {
      _ = try LicenseConfigLoader.parse(data: data, path: "license.conf")
      Issue.record("a document that is not UTF-8 was read")
    } catch {
      #expect(error.summary.contains(expected), "\(error.summary)")
      #expect(error.diagnostics.first?.help?.contains("UTF-8") == true)
    }
    let utf8 = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n<settings/>"
    do {
      _ = try LicenseConfigLoader.parse(data: Data(utf8.utf8), path: "license.conf")
    } catch {
      #expect(!error.summary.contains("encoding"), "UTF-8 declared is read: \(error.summary)")
    }
  }

  /// XMLParser crashed on a processing instruction without data and on
  /// damaged document types (found by fuzzing): both are refused first.
  @Test(arguments: [
    ("<?ProductID?> \"", "processing instruction", 1),
    ("<?xml version=\"1.0\"?>\n<settings>\n<?pi?></settings>", "processing instruction", 3),
    ("<!DOCTYPE plist [<!ENTITY a \"b\">]>\n<plist/>", "document type with its own declarations", 1),
  ])
  func whatTheXMLParserMishandlesIsRefusedWithItsLine(_ text: String, _ expected: String, _ line: Int) throws {
    do {
      _ = try LicenseConfigLoader.parse(data: Data(text.utf8), path: "vllicense.plist")
      Issue.record("read: \(text)")
    } catch {
      #expect(error.summary.contains(expected), "\(error.summary)")
      #expect(error.diagnostics.first?.location?.line == line, "\(error.summary)")
    }
  }

  /// A binary list cut short, or nested thousands deep, used to be reported
  /// as "Unexpected character b at line 1" (the text reader's complaint).
  @Test(arguments: ["cut", "deep"])
  func aBinaryPlistThatCannotBeReadIsNamedAsOne(_ damage: String) throws {
    var data: Data
    if damage == "cut" {
      let values: [String: Any] = ["Server": "http://a", "EID": "E", "ProductID": "P"]
      data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
      data = data.prefix(data.count / 2)
    } else {
      var nested: Any = [Any]()
      for _ in 0..<5000 { nested = [nested] }
      let values: [String: Any] = ["Server": "http://a", "EID": "E", "ProductID": "P", "Deep": nested]
      data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
    }
    do {
      _ = try LicenseConfigLoader.parse(data: data, path: "vllicense.plist")
      Issue.record("a damaged binary property list was read")
    } catch {
      #expect(error.status == .license)
      #expect(error.summary.contains("vllicense.plist"), "\(error.summary)")
      #expect(error.summary.contains("not a valid binary property list"), "\(error.summary)")
    }
  }

  @Test func plistProblemsNameKeyLineAndRule() throws {
    let problems = try configProblems(
      "vllicense.plist",
      plist(
        """
          <key>Server</key>
          <integer>8740</integer>
          <key>EID</key>
          <string></string>
          <key>Filename</key>
          <string>\(String(repeating: "z", count: 70))</string>
          <key>ContainerMode</key>
          <string>1</string>
          <key>ConnectionTimeout</key>
          <integer>900</integer>
          <key>Eid</key>
          <string>x</string>
        """))
    #expect(
      problems.map(\.location?.key) == [
        "ProductID", "Server", "EID", "Filename", "ContainerMode", "ConnectionTimeout", "Eid",
      ])
    #expect(problems.map(\.location?.line) == [3, 4, 6, 8, 10, 12, 14])
    #expect(problems[0].help == "add <key>ProductID</key><string>YOUR-PRODUCT-ID</string>")
    #expect(problems[1].message == "'Server' must be a <string>, not an <integer>")
    #expect(problems[4].message == "'ContainerMode' must be an <integer>, not a <string>")
    #expect(problems[5].message == "'ConnectionTimeout' must be at most 300 seconds, got 900")
    #expect(problems[6].help?.hasPrefix("did you mean 'EID'?") == true)
  }

  @Test func aKeyGivenTwiceInAPlistIsAProblem() throws {
    let problems = try configProblems(
      "vllicense.plist",
      plist(
        """
          <key>Server</key><string>http://a</string>
          <key>EID</key><string>E</string>
          <key>ProductID</key><string>P</string>
          <key>EID</key><string>F</string>
        """))
    #expect(problems.map(\.location) == [SourceLocation(file: "vllicense.plist", line: 7, key: "EID")])
  }

  @Test func malformedPlistsNameTheirLine() throws {
    let unclosed = try configProblems(
      "vllicense.plist", "<plist version=\"1.0\">\n<dict>\n  <key>EID</key>\n  <string>E</strin>\n</dict>\n</plist>\n")
    #expect(unclosed.first?.location?.line == 4)
    #expect(unclosed.first?.message.hasPrefix("not well-formed property list") == true)
    let valueMissing = try configProblems(
      "vllicense.plist", "<plist version=\"1.0\">\n<dict>\n  <key>EID</key>\n</dict>\n</plist>\n")
    #expect(valueMissing.first?.message.hasPrefix("not a valid property list") == true)
    #expect(valueMissing.first?.location?.line != nil)
    let notADictionary = try configProblems("vllicense.plist", "<plist version=\"1.0\"><array/></plist>\n")
    #expect(notADictionary.first?.message == "the property list must hold a dictionary (<dict>) at the top")
  }
}
