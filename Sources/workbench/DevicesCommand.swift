import ArgumentParser
import Capture

struct DevicesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "devices",
    abstract: "List the cameras (/dev/video*) and the formats, sizes and frame rates they offer.",
    discussion: """
      For each video node: its card, driver and bus, whether it captures video (webcams often \
      add a metadata node that does not), and each pixel format with its frame sizes and frame \
      rates. Formats marked "converted by libv4l" are made in software from the camera's own. \
      A node that cannot be opened is listed with the reason and what to do. Exits 0, also \
      when there is no camera.

      Examples:
        workbench devices
        workbench devices --json
      """)

  @Flag(name: .long, help: "Print JSON instead of text.")
  var json = false

  func run() throws {
    let devices = DeviceList.scan()
    standardOutput(json ? DeviceList.jsonText(devices) : DeviceList.render(devices))
  }
}
