import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

struct LicenseCheckConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-config",
    abstract: "Check license.conf (or vllicense.plist) and print the effective values.",
    discussion: """
      Without --config, reads configs/license.conf of the workbench folder. Lists every \
      problem, each with its key and rule, and exits 3 when there is one.
      """)

  @Option(
    name: .long, help: ArgumentHelp("license.conf (XML) or vllicense.plist.", valueName: "file"))
  var config: String?

  func run() throws {
    let path: String
    if let config {
      path = config
    } else {
      do { path = WorkbenchHome.display(try WorkbenchHome.locate().configs + "/license.conf") } catch {
        throw fail(error)
      }
    }
    do {
      standardOutput(try LicenseConfigLoader.load(path: path).render())
    } catch {
      DiagnosticPrinter.print(error)
      let count = error.diagnostics.count
      standardError("\(count) problem\(count == 1 ? "" : "s") in \(path)")
      throw ExitCode(error.status.rawValue)
    }
  }
}
