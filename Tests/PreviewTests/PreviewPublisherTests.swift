import Capture
import JSONCore
import Measurements
import Reporting
import Testing

@testable import Preview

/// A page that comes after the run ended still gets its last frame.
@Suite struct PreviewPublisherTests {
  func frame(_ index: Int64) -> (MeasurementFrame, CapturedFrame) {
    let t = Double(index) / 30
    return (
      MeasurementFrame(t: t, index: index),
      CapturedFrame(index: index, t: t, payload: .jpeg([0xFF, 0xD8, UInt8(index), 0xFF, 0xD9]))
    )
  }

  func result(_ reason: String, frame: Int64) -> Event {
    Event(type: "result", t: Double(frame) / 30, frame: frame, fields: JSONObject([("reason", .string(reason))]))
  }

  @Test func theLastFrameOfAnInputThatEndedWaitsForAPageOpenedLater() {
    let publisher = PreviewPublisher()
    publisher.attach(schema: MeasurementSchema())
    for index in 0..<72 {
      let (measurements, captured) = frame(Int64(index))
      publisher.frameProcessed(measurements, captured: captured)
    }
    #expect(publisher.counters.sent == 0, "no page asked while it ran")
    publisher.emit(result("end_of_input", frame: 71))
    let shown = publisher.frame(after: nil)
    #expect(shown?.index == 71)
    #expect(shown?.picture != nil)
    #expect(shown.flatMap { publisher.image(of: $0.sequence) } == [0xFF, 0xD8, 71, 0xFF, 0xD9])
  }

  @Test func theFrameTheFlowDecidedOnIsKeptWhetherOrNotAPageAsked() {
    let publisher = PreviewPublisher()
    publisher.attach(schema: MeasurementSchema())
    for index in 0..<10 {
      let (measurements, captured) = frame(Int64(index))
      // The flow decides on frame 9: its result comes before the frame is handed to the outputs.
      if index == 9 { publisher.emit(result("passed", frame: 9)) }
      publisher.frameProcessed(measurements, captured: captured)
    }
    #expect(publisher.frame(after: nil)?.index == 9)
    #expect(publisher.counters == (10, 1))
  }
}
