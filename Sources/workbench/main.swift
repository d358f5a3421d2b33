import ArgumentParser
import Diagnostics
import Foundation
import JSONCore

// ArgumentParser exits with 64 on a usage error; workbench documents 2.
let arguments = PreviewArgument.normalized(Array(CommandLine.arguments.dropFirst()))

/// `workbench gallery` prints one JSON object on standard output whatever
/// happens (docs/exit-codes.md), arguments it cannot take too.
func answerGalleryUsageError(_ message: String) {
  guard arguments.first(where: { !$0.hasPrefix("-") }) == "gallery" else { return }
  var text = message.split(separator: "\n").first.map(String.init) ?? message
  if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
  standardOutput(JSONValue.object(JSONObject([("error", "usage_error"), ("message", .string(text))])).jsonText)
}

do {
  var command = try Workbench.parseAsRoot(arguments)
  try command.run()
} catch {
  let code = Workbench.exitCode(for: error)
  if code == .validationFailure, let unknown = UnknownOptions.first(in: arguments) {
    answerGalleryUsageError(unknown.message)
    FileHandle.standardError.write(Data((TerminalText.escaped(unknown.message) + "\n").utf8))
    exit(2)
  }
  if code == .validationFailure {
    let message = Workbench.fullMessage(for: error)
    answerGalleryUsageError(message)
    FileHandle.standardError.write(Data((TerminalText.escaped(message) + "\n").utf8))
    exit(2)
  }
  Workbench.exit(withError: error)
}
