import ArgumentParser
import Doctor
import Settings

struct DoctorCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "doctor",
    abstract:
      "Check what workbench needs (Lua, the face backend and its models, FFmpeg, OpenCV, the license, cameras) and say what to do about each part that is missing.",
    discussion: """
      Each line is ok, warning or missing, with what was found and, below a \
      part that is not ok, what to do. The face library is loaded and each \
      model's checksum compared with the pinned one; the license is verified \
      as a run verifies it; each /dev/video* is opened as `workbench devices` \
      opens it. Exits 1 when a part a bundled example needs is missing (Lua \
      and the step library, the face library and models, the license), 0 \
      otherwise, warnings included.

      Examples:
        workbench doctor
        workbench doctor --json
      """)

  @Flag(name: .long, help: "Print JSON instead of text.")
  var json = false

  func run() throws {
    let home: WorkbenchHome
    do { home = try WorkbenchHome.locate() } catch { throw fail(error) }
    let report = Doctor(home: home).examine()
    standardOutput(json ? report.json() : report.render())
    if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
  }
}
