import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// A small element tree read with XMLParser, with the line of every element,
/// for the two XML formats of the license configuration.
struct MarkupElement {
  var name: String
  var attributes: [String: String]
  var line: Int
  var children: [MarkupElement] = []
  /// The character data directly inside the element.
  var text: String = ""
}

/// Why a document is not well-formed XML, and where.
struct XMLSyntaxProblem: Error {
  var line: Int
  var column: Int
  var message: String
}

enum XMLTree {
  /// The deepest nesting read. Both formats of the license configuration
  /// are a few levels deep; a deeper document is refused where it goes too
  /// deep, because a tree of 100,000 levels overflows the stack when it is
  /// freed.
  static let maximumDepth = 64

  /// The root element of `data`, or the first well-formedness error.
  /// An empty document has no root and gives nil.
  static func parse(_ data: Data) throws(XMLSyntaxProblem) -> MarkupElement? {
    try requireUTF8(data)
    try refuseWhatTheParserMishandles(data)
    let parser = XMLParser(data: data)
    let builder = TreeBuilder()
    parser.delegate = builder
    parser.shouldProcessNamespaces = false
    parser.shouldResolveExternalEntities = false
    let finished = parser.parse()
    if let problem = builder.problem { throw problem }
    if !finished, let error = parser.parserError {
      throw XMLSyntaxProblem(
        line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1),
        message: describe(code: (error as NSError).code))
    }
    return builder.root
  }

  /// Only UTF-8 is read. libxml2 converts other encodings through iconv,
  /// and a damaged document declared as UTF-7 crashes the parser (found by
  /// fuzzing); neither license format needs another encoding.
  static func requireUTF8(_ data: Data) throws(XMLSyntaxProblem) {
    let bytes = Array(data.prefix(4))
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.contains(0) {
      throw XMLSyntaxProblem(
        line: 1, column: 1, message: "the file is UTF-16 or UTF-32; save it as UTF-8")
    }
    guard String(validating: data, as: UTF8.self) != nil else {
      throw XMLSyntaxProblem(line: 1, column: 1, message: "the file is not UTF-8 text; save it as UTF-8")
    }
    // The declaration, if any, opens the file: <?xml version="1.0" encoding="UTF-8"?>.
    // The whole first line is searched, closed properly or not, since
    // libxml2 honours an encoding even in a damaged declaration.
    let head = String(decoding: data.prefix(256), as: UTF8.self)
    guard head.hasPrefix("<?xml") || head.hasPrefix("\u{FEFF}<?xml") else { return }
    let end = head.firstIndex(of: "\n") ?? head.endIndex
    guard let encoding = head[..<end].range(of: "encoding") else { return }
    let rest = head[encoding.upperBound..<end].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
    let name = rest.prefix { $0 != "\"" && $0 != "'" && $0 != " " }
    guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else {
      let column = head.distance(from: head.startIndex, to: encoding.lowerBound) + 1
      throw XMLSyntaxProblem(
        line: 1, column: column,
        message: "the file declares the encoding \(name); only UTF-8 is read (encoding=\"UTF-8\")")
    }
  }

  /// XMLParser crashes on a processing instruction without data
  /// (`<?ProductID?>`) and on some damaged document types (both found by
  /// fuzzing). Neither license format has processing instructions beyond
  /// the XML declaration, nor a document type with an internal subset.
  static func refuseWhatTheParserMishandles(_ data: Data) throws(XMLSyntaxProblem) {
    let bytes = [UInt8](data)
    var line = 1
    var column = 1
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "<"), index + 1 < bytes.count {
        let next = bytes[index + 1]
        let atStart = index == 0 || (index == 3 && bytes.starts(with: [0xEF, 0xBB, 0xBF]))
        let isDeclaration =
          atStart && bytes[index...].starts(with: Array("<?xml".utf8)) && index + 5 < bytes.count
          && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index + 5])
        if next == UInt8(ascii: "?"), !isDeclaration {
          throw XMLSyntaxProblem(
            line: line, column: column,
            message:
              "a processing instruction (<?...?>) is not allowed; only the <?xml ...?> declaration on the first line")
        }
        if next == UInt8(ascii: "!"), bytes[index...].starts(with: Array("<!DOCTYPE".utf8)) {
          var end = index
          while end < bytes.count, bytes[end] != UInt8(ascii: ">") {
            if bytes[end] == UInt8(ascii: "[") {
              throw XMLSyntaxProblem(
                line: line, column: column, message: "a document type with its own declarations ([...]) is not allowed")
            }
            end += 1
          }
        }
      }
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else {
        column += 1
      }
      index += 1
    }
  }

  /// libxml2's error numbers (xmlParserErrors) for the mistakes people make
  /// by hand; any other is named by its number.
  static func describe(code: Int) -> String {
    switch code {
    case 4: return "the document is empty or does not start with an element"
    case 5: return "the document ends inside an element, or has text after its last element"
    case 9: return "a character that is not allowed in XML"
    case 23: return "an entity reference is missing its ';' (write & as &amp;)"
    case 26: return "an undeclared entity (write & as &amp;)"
    case 34: return "a string is not closed"
    case 38: return "a '<' inside an attribute value (a closing quote is missing here or on an earlier line)"
    case 39: return "an attribute value must start with a quote"
    case 40: return "an attribute value is not closed with a quote"
    case 41: return "an attribute has no value"
    case 42: return "an attribute is given twice in one element"
    case 45: return "a comment is not closed with -->"
    case 65: return "a space is required here"
    case 68: return "a name is required here"
    case 73: return "'>' expected"
    case 74: return "'</' expected"
    case 75: return "'=' expected after an attribute name"
    case 76: return "a closing tag does not match the element it closes"
    case 77: return "an element is not finished"
    default: return "the XML is not well-formed (libxml2 error \(code))"
    }
  }
}

private final class TreeBuilder: NSObject, XMLParserDelegate {
  var root: MarkupElement?
  var stack: [MarkupElement] = []
  var problem: XMLSyntaxProblem?

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    guard problem == nil else { return }
    guard stack.count < XMLTree.maximumDepth else {
      problem = XMLSyntaxProblem(
        line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1),
        message: "elements are nested more than \(XMLTree.maximumDepth) levels deep")
      parser.abortParsing()
      return
    }
    stack.append(MarkupElement(name: elementName, attributes: attributes, line: max(parser.lineNumber, 1)))
  }

  func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
    guard let element = stack.popLast() else { return }
    if stack.isEmpty {
      root = element
    } else {
      stack[stack.count - 1].children.append(element)
    }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    guard !stack.isEmpty else { return }
    stack[stack.count - 1].text += string
  }

  func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
    guard problem == nil else { return }
    problem = XMLSyntaxProblem(
      line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1),
      message: XMLTree.describe(code: (parseError as NSError).code))
    parser.abortParsing()
  }
}
