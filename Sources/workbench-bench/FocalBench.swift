// How far off a card's tilt is when the camera's field of view is not the
// one assumed, and how much estimating the focal length from the card
// itself gives back: rendered flips to ±45° about each axis (1280×720, JPEG
// quality 90, sensor noise and motion blur) through cameras of three fields
// of view, each read three ways in the same run — a 60° field of view
// assumed (the baseline), the focal length estimated from the card, and the
// true focal length given.
// BENCH_FOCAL_FIELDS="45 60 75" chooses the fields of view.
import CardEstimation
import CardGeometry
import CardScenes
import Foundation
import Imaging

func runFocalLengthBenchmarks() throws {
  let environment = ProcessInfo.processInfo.environment
  let fields = (environment["BENCH_FOCAL_FIELDS"] ?? "45 60 75").split(separator: " ").compactMap { Double($0) }
  let encoder = JPEGEncoder()
  let decoder = JPEGDecoder()
  let gray = ImageBuffer(format: .gray8)
  let color = ImageBuffer(format: .rgb8)
  // Front-on, then each flip held for a moment: right, left, up, down.
  var keyframes = [CardKeyframe(t: 0, distance: .widthRatio(0.45)), CardKeyframe(t: 0.4, distance: .widthRatio(0.45))]
  var t = 0.4
  for (tiltX, tiltY) in [(0.0, 45.0), (0, -45), (45, 0), (-45, 0)] {
    t += 0.7
    keyframes.append(CardKeyframe(t: t, tiltX: tiltX, tiltY: tiltY, distance: .widthRatio(0.45)))
    t += 0.3
    keyframes.append(CardKeyframe(t: t, tiltX: tiltX, tiltY: tiltY, distance: .widthRatio(0.45)))
    t += 0.7
    keyframes.append(CardKeyframe(t: t, distance: .widthRatio(0.45)))
    t += 0.2
    keyframes.append(CardKeyframe(t: t, distance: .widthRatio(0.45)))
  }
  let schedule = CardSchedule(keyframes: keyframes, noise: 2, shutter: 0.5)
  print(
    "card tilt at ±45° by the camera's horizontal field of view (1280×720, JPEG q90; frames whose true tilt is ≥ 40°)")
  print(
    "field of view  focal px  | tilt error, median / max: 60° assumed  | estimated from the card    | focal known    | estimate"
  )
  for degrees in fields {
    let focal = PinholeCamera.focal(width: 1280, horizontalFieldOfView: degrees)
    let scene = CardScene(
      schedule: schedule, options: CardSceneOptions(width: 1280, height: 720, fps: 30, focal: focal, seed: 9))
    let variants = [
      CardEstimatorSettings(calibratesFocalLength: false),
      CardEstimatorSettings(calibratesFocalLength: true),
      CardEstimatorSettings(focalLength: focal),
    ].map { CardEstimator(settings: $0) }
    var errors = [[Double]](repeating: [], count: variants.count)
    var missed = [Int](repeating: 0, count: variants.count)
    for index in 0..<scene.frameCount {
      let jpeg = try encoder.encode(scene.render(frame: index), quality: 90)
      try decoder.decode(jpeg, into: gray, format: .gray8)
      try decoder.decode(jpeg, into: color, format: .rgb8)
      let truth = scene.truth(frame: index)
      let peak = max(abs(truth.pose.tiltX), abs(truth.pose.tiltY)) >= 40
      for (variant, estimator) in variants.enumerated() {
        let observation = estimator.process(gray: gray, color: color, t: scene.time(ofFrame: index))
        guard peak else { continue }
        guard let observation else {
          missed[variant] += 1
          continue
        }
        errors[variant].append(
          max(abs(observation.pose.tiltX - truth.pose.tiltX), abs(observation.pose.tiltY - truth.pose.tiltY)))
      }
    }
    func cell(_ variant: Int) -> String {
      let sorted = errors[variant].sorted()
      guard !sorted.isEmpty else { return "no card found".padding(toLength: 26, withPad: " ", startingAt: 0) }
      let text = String(format: "%5.2f° / %5.2f°", sorted[sorted.count / 2], sorted[sorted.count - 1])
      let lost = missed[variant] > 0 ? " (\(missed[variant]) lost)" : ""
      return (text + lost).padding(toLength: 26, withPad: " ", startingAt: 0)
    }
    let estimate = variants[1].estimatedFocalLength.map {
      String(format: "%.0f px (%+.1f%%)", $0, 100 * ($0 - focal) / focal)
    }
    print(
      String(format: "%5.0f°        %7.1f   | ", degrees, focal) + cell(0) + "   | " + cell(1) + " | " + cell(2)
        + " | " + (estimate ?? "none"))
  }
}
