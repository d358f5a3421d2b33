import Capture
import Diagnostics
import Flows
import Foundation
import JSONCore
import Logging
import RunComposition
import Session
import SimulatedCamera
import TestSupport

let testLogger = Logger(label: "workbench-session-tests")

/// Opens the scripted camera for any camera input.
func scriptedOpener(_ camera: ScriptedV4L2Device) -> RunSession.SourceOpener {
  { input, _ throws(WorkbenchError) in
    do throws(CaptureError) {
      return (try CameraSource.open(path: input.name, device: camera), true)
    } catch {
      throw WorkbenchError(.input, error.message)
    }
  }
}

/// A measurement trace of `count` frames at 10 fps whose `probe.value` is the frame number.
func countingTrace(frames count: Int) throws -> String {
  let path = try TemporaryFolder(prefix: "session-trace").file("trace.jsonl")
  var lines = [#"{"workbench_trace":1}"#]
  for index in 0..<count {
    lines.append(#"{"t":\#(Double(index) / 10),"frame":\#(index),"probe":{"value":\#(index)}}"#)
  }
  try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
  return path
}

/// Every event of a JSON Lines file.
func readEvents(_ path: String) throws -> [JSONValue] {
  try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(String($0)) }
}
