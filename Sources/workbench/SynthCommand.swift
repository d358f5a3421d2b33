import ArgumentParser
import CardScenes
import Diagnostics

struct SynthCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "synth",
    abstract: "Make synthetic recordings with known ground truth.",
    subcommands: [SynthCardCommand.self])
}
