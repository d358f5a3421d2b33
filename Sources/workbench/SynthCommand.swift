import ArgumentParser
import CardScenes
import Diagnostics

struct SynthCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "synth",
    abstract: "Make synthetic inputs with known ground truth: card recordings and face traces.",
    subcommands: [SynthCardCommand.self, SynthFaceCommand.self])
}
