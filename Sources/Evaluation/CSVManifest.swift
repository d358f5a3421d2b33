import Diagnostics
import Foundation
import JSONCore

/// A corpus manifest as CSV (RFC 4180: a header row naming the columns,
/// quoted fields with `""` for a quote). The `set` column holds a JSON
/// object, the other columns text; an empty cell is a missing value.
enum CSVManifest {
  static func records(_ path: String, problems: inout [Diagnostic]) -> [ManifestRecord] {
    guard let data = FileManager.default.contents(atPath: path) else {
      problems.append(Diagnostic("cannot read the manifest", at: SourceLocation(file: path)))
      return []
    }
    let rows: [(line: Int, cells: [String])]
    do {
      rows = try parse(String(decoding: data, as: UTF8.self))
    } catch {
      problems.append(Diagnostic(error.message, at: SourceLocation(file: path, line: error.line)))
      return []
    }
    guard let header = rows.first else { return [] }
    let columns = header.cells.map { $0.trimmingCharacters(in: .whitespaces) }
    for column in columns where !ManifestRecord.keys.contains(column) {
      let suggestion = closestNames(to: column, among: ManifestRecord.keys, limit: 1).first.map {
        " (did you mean \"\($0)\"?)"
      }
      problems.append(
        Diagnostic(
          "unknown column \"\(column)\"\(suggestion ?? "")", at: SourceLocation(file: path, line: header.line),
          help: "the columns are \(ManifestRecord.keys.joined(separator: ", "))"))
    }
    var records: [ManifestRecord] = []
    for row in rows.dropFirst() {
      if row.cells.allSatisfy({ $0.isEmpty }) { continue }
      guard row.cells.count == columns.count else {
        problems.append(
          Diagnostic(
            "\(row.cells.count) cells, but the header has \(columns.count) columns",
            at: SourceLocation(file: path, line: row.line)))
        continue
      }
      var fields = JSONObject()
      for (column, cell) in zip(columns, row.cells) where !cell.isEmpty && ManifestRecord.keys.contains(column) {
        if column == "set" {
          do {
            fields[column] = try JSONParser.parse(cell)
          } catch {
            problems.append(
              Diagnostic(
                "\"set\" is not a JSON object: \(error.message)", at: SourceLocation(file: path, line: row.line),
                help: "write it as {\"\"user\"\": \"\"s001\"\"} inside a quoted cell"))
          }
        } else {
          fields[column] = .string(cell)
        }
      }
      records.append(ManifestRecord(line: row.line, fields: fields))
    }
    return records
  }

  struct SyntaxError: Error {
    var line: Int
    var message: String
  }

  /// The rows with the line each starts on; a quoted cell may span lines.
  static func parse(_ text: String) throws(SyntaxError) -> [(line: Int, cells: [String])] {
    var rows: [(line: Int, cells: [String])] = []
    var cells: [String] = []
    var cell = ""
    var line = 1
    var rowLine = 1
    var quoted = false
    var characters = text.makeIterator()
    var pending: Character? = characters.next()
    func endRow() {
      cells.append(cell)
      rows.append((rowLine, cells))
      cells = []
      cell = ""
    }
    while let character = pending {
      pending = characters.next()
      if quoted {
        if character == "\"" {
          if pending == "\"" {
            cell.append("\"")
            pending = characters.next()
          } else {
            quoted = false
          }
        } else {
          if character == "\n" || character == "\r\n" { line += 1 }
          cell.append(character)
        }
        continue
      }
      switch character {
      case "\"" where cell.isEmpty: quoted = true
      case ",":
        cells.append(cell)
        cell = ""
      case "\n", "\r\n", "\r":
        endRow()
        line += 1
        rowLine = line
      default: cell.append(character)
      }
    }
    if quoted { throw SyntaxError(line: rowLine, message: "a quoted cell is not closed") }
    if !cell.isEmpty || !cells.isEmpty { endRow() }
    return rows
  }
}
