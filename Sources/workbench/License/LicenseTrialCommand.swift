import ArgumentParser
import Diagnostics
import Foundation
import Licensing
import Settings

struct LicenseTrialCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "trial",
    abstract: "Give this machine a \(LicenseTrial.days)-day license for the bundled examples, with no server.",
    discussion: """
      Writes a licensing configuration of its own into your settings folder \
      (~/.config/workbench, or $XDG_CONFIG_HOME/workbench): license.conf, the public key \
      of a key pair made for this trial alone, and license.dat for this machine with the \
      features \(LicenseTrial.features.joined(separator: ", ")). Runs find it there. Does \
      nothing while a trial holds for at least a day more. Refused where an integrator's \
      licensing is configured (/etc/workbench, WORKBENCH_LICENSE_CONFIG, or your own \
      license.conf in that folder), which a trial never replaces (docs/licensing.md).
      """)

  func run() throws {
    let now = Date()
    do {
      let home = try WorkbenchHome.locate()
      let trial = LicenseTrial(
        folder: home.userConfigFolder, systemFolder: home.systemConfigFolder,
        environment: ProcessInfo.processInfo.environment)
      switch try trial.run(now: now) {
      case .issued(let license):
        standardOutput("wrote a trial license for this machine to \(WorkbenchHome.displayUserPath(trial.folder))")
        standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: .current(), now: now)))
      case .stillHolds(let license):
        standardOutput("a trial license holds in \(WorkbenchHome.displayUserPath(trial.folder)); nothing to do")
        standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: .current(), now: now)))
      }
    } catch {
      throw fail(error)
    }
  }
}
