import ArgumentParser
import Diagnostics

/// Finds an option the command does not have, with the nearest it does:
/// ArgumentParser reports a missing --input before an unknown -i, and never
/// suggests one.
enum UnknownOptions {
  struct Finding {
    var option: String
    var command: String
    var suggestions: [String]

    var message: String {
      let near = suggestions.isEmpty ? "" : ": did you mean " + suggestions.joined(separator: " or ") + "?"
      return "Error: unknown option '\(option)' for '\(command)'\(near)\n  See '\(command) --help' for its options."
    }
  }

  /// The first option in `arguments` (without the program's name) that the
  /// command they name does not know; nil when they are all known.
  static func first(in arguments: [String]) -> Finding? {
    var command: any ParsableCommand.Type = Workbench.self
    var path = [Workbench._commandName]
    var known = options(of: command)
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" { return nil }
      if !argument.hasPrefix("-") || argument == "-" {
        if let sub = command.configuration.subcommands.first(where: { $0._commandName == argument }) {
          command = sub
          path.append(argument)
          known = options(of: sub)
        }
        continue
      }
      // A negative number is a value, never an option.
      if Double(argument) != nil { continue }
      let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
      if let takesValue = known[name] {
        if takesValue && !argument.contains("=") { index += 1 }
        continue
      }
      if name.hasPrefix("--") || name.count == 2 {
        return Finding(option: name, command: path.joined(separator: " "), suggestions: nearest(name, known.keys))
      }
      // -abc: a run of short flags.
      let flags = name.dropFirst().map { "-\($0)" }
      if let unknown = flags.first(where: { known[$0] == nil }) {
        return Finding(option: unknown, command: path.joined(separator: " "), suggestions: nearest(unknown, known.keys))
      }
    }
    return nil
  }

  /// The command's options as its help lists them, each with whether it takes a value.
  static func options(of command: any ParsableCommand.Type) -> [String: Bool] {
    var options: [String: Bool] = ["-h": false, "--help": false]
    if command == Workbench.self { options["--version"] = false }
    let help = command.helpMessage(columns: 1000)
    for line in help.split(separator: "\n") {
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("-") else { continue }
      // "-o, --out <path>   what it is": the names, then maybe a value.
      let head = trimmed.split(separator: "  ", maxSplits: 1).first ?? ""
      let takesValue = head.contains("<")
      for match in head.matches(of: /(?:^|[\s,])(--?[A-Za-z][A-Za-z0-9-]*)/) {
        options[String(match.output.1)] = takesValue
      }
    }
    return options
  }

  static func nearest(_ typed: String, _ known: Dictionary<String, Bool>.Keys) -> [String] {
    let names = known.filter { $0.hasPrefix("--") && $0 != "--help" }.sorted()
    let word = typed.drop { $0 == "-" }
    // -i → --input: a short option is the first letter of a long one.
    if typed.count == 2, let letter = word.first {
      return Array(names.filter { $0.dropFirst(2).first == letter }.prefix(3))
    }
    // --language → --lang: one is the start of the other.
    let prefixed = names.filter { name in
      let other = name.dropFirst(2)
      return other.count >= 3 && word.count >= 3 && (word.hasPrefix(other) || other.hasPrefix(word))
    }
    if !prefixed.isEmpty { return Array(prefixed.prefix(3)) }
    return closestNames(to: typed, among: names)
  }
}
