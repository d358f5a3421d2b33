import ArgumentParser
import Foundation

// ArgumentParser exits with 64 on a usage error; workbench documents 2.
let arguments = PreviewArgument.normalized(Array(CommandLine.arguments.dropFirst()))
do {
  var command = try Workbench.parseAsRoot(arguments)
  try command.run()
} catch {
  let code = Workbench.exitCode(for: error)
  if code == .validationFailure, let unknown = UnknownOptions.first(in: arguments) {
    FileHandle.standardError.write(Data((unknown.message + "\n").utf8))
    exit(2)
  }
  if code == .validationFailure {
    FileHandle.standardError.write(Data((Workbench.fullMessage(for: error) + "\n").utf8))
    exit(2)
  }
  Workbench.exit(withError: error)
}
