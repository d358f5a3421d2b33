import Capture
import Diagnostics
import FaceScenes
import Foundation
import Imaging
import JSONCore
import LicenseActivation
import Licensing
import Measurements
import Messages
import RunComposition
import Scenarios
import Session
import Settings

/// Every parser that reads a user's file or a peer's bytes, by name
/// (`scripts/fuzz list`).
public enum FuzzTargets {
  public static let all: [FuzzTarget] = [
    json, trace, settings, messages, licenseConf, licensePlist, licenseDat, activationRequest, activationAnswer,
    avi, mjpeg, y4m, video, timestamps, jpeg, photoHeader, faceSchedule, scenario,
  ]

  public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

  /// Removes the folder the targets write their inputs to.
  public static func removeScratch() { FuzzScratch.remove() }

  // MARK: - JSON

  static let json = FuzzTarget(
    "json", "the JSON parser every JSON file and trace line goes through (JSONParser)",
    seeds: ["configs", "examples/synth"], seedExtensions: [".json"], dictionary: "scripts/fuzz-dictionaries/json.dict"
  ) { input, _ in
    guard let first = try? JSONParser.parse(bytes: input) else { return [] }
    // What is written back must read back as itself: the writer and the
    // parser agree on every value the parser can produce.
    let written = first.jsonText
    guard let again = try? JSONParser.parse(written) else {
      return ["the parser refuses what the writer wrote: \(written)"]
    }
    let rewritten = again.jsonText
    return rewritten == written ? [] : ["writing is not stable: \(written) then \(rewritten)"]
  }

  // MARK: - Traces

  static let trace = FuzzTarget(
    "trace", "measurement traces (.jsonl) given with --input (TraceReader)",
    seeds: ["examples/traces"], seedExtensions: [".jsonl"], dictionary: "scripts/fuzz-dictionaries/json.dict",
    fileName: "input.jsonl"
  ) { _, file in
    do throws(WorkbenchError) {
      var reader = try TraceReader(path: file, schema: MeasurementSchema())
      var previous = -Double.infinity
      var frames = 0
      while let frame = try reader.next() {
        frames += 1
        if !frame.t.isFinite { return ["frame \(frames) has a time that is not finite: \(frame.t)"] }
        if frame.t < previous { return ["frame \(frames) goes back in time: \(frame.t) after \(previous)"] }
        previous = frame.t
      }
      return []
    } catch {
      return ErrorRules.namesTheInput(error.summary, file, "the trace error")
    }
  }

  // MARK: - Settings and messages

  static let settings = FuzzTarget(
    "settings", "settings files (configs/settings.json, --config FILE) with every setting a run declares",
    seeds: ["configs/settings.json", "examples"], seedExtensions: [".json"],
    dictionary: "scripts/fuzz-dictionaries/settings.dict", fileName: "settings.json"
  ) { _, file in
    guard var builder = settingsTemplate else { return ["the run's setting declarations do not load"] }
    do throws(WorkbenchError) {
      try builder.load(configFile: file, layer: .configFile)
      let (_, problems) = builder.resolve()
      return problems.flatMap { ErrorRules.namesTheInput($0.locatedMessage, file, "a settings problem") }
    } catch {
      return ErrorRules.namesTheInput(error.summary, file, "the settings error")
    }
  }

  /// Declaring a run's settings is the same for every input: done once, copied per input.
  private static let settingsTemplate = try? SettingsBuilder(declarations: RunSettings.declarations)

  static let messages = FuzzTarget(
    "messages", "message catalogs (<language>.json beside a flow or in configs/messages)",
    seeds: ["configs/messages"], seedExtensions: [".json"], dictionary: "scripts/fuzz-dictionaries/json.dict",
    fileName: "en.json"
  ) { _, file in
    do throws(WorkbenchError) {
      let catalogs = try MessageCatalogs.load(directories: [(file as NSString).deletingLastPathComponent])
      return catalogs.files(of: "en").contains(where: { $0.hasSuffix("en.json") }) ? [] : ["en.json was not read"]
    } catch {
      return ErrorRules.namesTheInput(error.summary, "en.json", "the catalog error")
    }
  }

  // MARK: - Licensing

  static let licenseConf = FuzzTarget(
    "license-conf", "license.conf, the XML license configuration (LicenseConfigLoader)",
    seeds: ["configs/license.conf"], dictionary: "scripts/fuzz-dictionaries/xml.dict", fileName: "license.conf"
  ) { input, file in
    licenseConfig(input, file)
  }

  static let licensePlist = FuzzTarget(
    "license-plist", "vllicense.plist: XML, binary and old-style property lists (LicenseConfigLoader)",
    seeds: ["configs"], seedExtensions: [".plist"], madeSeeds: MadeSeeds.propertyLists,
    dictionary: "scripts/fuzz-dictionaries/xml.dict", fileName: "vllicense.plist"
  ) { input, file in
    licenseConfig(input, file)
  }

  private static func licenseConfig(_ input: [UInt8], _ file: String) -> [String] {
    do {
      _ = try LicenseConfigLoader.parse(data: Data(input), path: file)
      return []
    } catch {
      return ErrorRules.namesTheInput(error.summary, file, "the license configuration error")
    }
  }

  static let licenseDat = FuzzTarget(
    "license-dat", "license.dat, a signed license (LicenseVerifier)",
    madeSeeds: MadeSeeds.licenses, dictionary: "scripts/fuzz-dictionaries/json.dict", fileName: "license.dat"
  ) { input, file in
    let verifier = LicenseVerifier(publicKeys: [MadeSeeds.licenseKey.publicKey])
    let inspection = verifier.inspect(
      data: Data(input), path: file, product: MadeSeeds.product, eid: nil, fingerprint: MadeSeeds.fingerprint,
      now: MadeSeeds.now)
    if inspection.verifies { return [] }
    if inspection.failures.isEmpty { return ["a license that does not verify has no failure to report"] }
    return inspection.failures.flatMap {
      ErrorRules.namesTheInput($0.diagnostic.locatedMessage, file, "the license failure")
    }
  }

  static let activationRequest = FuzzTarget(
    "activation-request", "the body of POST /v1/activate, as the activation server reads it",
    madeSeeds: MadeSeeds.activationRequests, dictionary: "scripts/fuzz-dictionaries/json.dict"
  ) { input, _ in
    switch ActivationRequest.parse(Data(input)) {
    case .success(let request):
      // The client's own encoding must read back as the same request.
      guard case .success(let again) = ActivationRequest.parse(request.jsonData), again == request else {
        return ["a request does not survive its own encoding: \(String(decoding: request.jsonData, as: UTF8.self))"]
      }
      return []
    case .failure(let malformed):
      return malformed.message.isEmpty ? ["a malformed request is refused without a reason"] : []
    }
  }

  static let activationAnswer = FuzzTarget(
    "activation-answer", "a refusal from an activation server, as `license activate` reads it",
    madeSeeds: MadeSeeds.activationAnswers, dictionary: "scripts/fuzz-dictionaries/json.dict"
  ) { input, _ in
    guard let problem = ActivationProblem.parse(Data(input)) else { return [] }
    // The server's own encoding of the refusal must read back as the same refusal.
    return ActivationProblem.parse(problem.jsonData) == problem
      ? [] : ["a refusal does not survive its own encoding: \(String(decoding: problem.jsonData, as: UTF8.self))"]
  }

  // MARK: - Recordings

  static let avi = FuzzTarget(
    "avi", "AVI (Motion JPEG) recordings: RIFF lists, stream headers, the index (AVIFileSource)",
    madeSeeds: MadeSeeds.aviRecordings, dictionary: "scripts/fuzz-dictionaries/avi.dict", fileName: "input.avi"
  ) { _, file in
    recording(file)
  }

  static let mjpeg = FuzzTarget(
    "mjpeg", "raw Motion JPEG streams, split into frames at their markers (MJPEGFileSource)",
    madeSeeds: MadeSeeds.mjpegStreams, dictionary: "scripts/fuzz-dictionaries/jpeg.dict", fileName: "input.mjpeg"
  ) { _, file in
    recording(file)
  }

  static let y4m = FuzzTarget(
    "y4m", "YUV4MPEG2 recordings: the header's tags and FRAME records (Y4MFileSource)",
    madeSeeds: MadeSeeds.y4mRecordings, dictionary: "scripts/fuzz-dictionaries/y4m.dict", fileName: "input.y4m"
  ) { _, file in
    recording(file)
  }

  static let video = FuzzTarget(
    "video", "video files through FFmpeg (MP4, MOV, MKV...): the shim's demuxing, decoding and rotation, and probe",
    madeSeeds: MadeSeeds.videoFiles, dictionary: "scripts/fuzz-dictionaries/video.dict", fileName: "input.mp4"
  ) { _, file in
    let problems = recording(file, reader: .ffmpeg)
    guard problems.isEmpty else { return problems }
    // What probe says must agree with itself, whatever the bytes.
    let probe = RecordingProbe.probe(path: file)
    if probe.readable, probe.problem != nil { return ["probe says readable and names a problem"] }
    if !probe.readable, probe.problem == nil { return ["probe says not readable without a reason"] }
    if let problem = probe.problem { return ErrorRules.namesTheInput(problem.description, file, "the probe's problem") }
    return []
  }

  /// Reads a recording as `run --input` does, at most a few dozen frames.
  private static func recording(_ file: String, reader: RecordingSource.Reader = .automatic) -> [String] {
    let source: any FrameSource
    do {
      source = try RecordingSource.open(path: file, fps: 30, reader: reader)
    } catch {
      return ErrorRules.namesTheInput(error.description, file, "the recording error")
    }
    defer { source.close() }
    var previousIndex: Int64 = -1
    var previousTime = -Double.infinity
    do {
      for _ in 0..<64 {
        guard let frame = try source.next() else { break }
        if frame.index <= previousIndex { return ["frame \(frame.index) comes after frame \(previousIndex)"] }
        if !frame.t.isFinite { return ["frame \(frame.index) has a time that is not finite"] }
        if frame.t <= previousTime { return ["frame \(frame.index) at t=\(frame.t) is not after t=\(previousTime)"] }
        previousIndex = frame.index
        previousTime = frame.t
        if case .image(let image) = frame.payload, image.width <= 0 || image.height <= 0 {
          return ["frame \(frame.index) is an image of \(image.width)×\(image.height)"]
        }
      }
    } catch {
      return ErrorRules.namesTheInput(error.description, file, "the recording error")
    }
    return []
  }

  static let timestamps = FuzzTarget(
    "timestamps", "the timestamps sidecar of a recording (<recording>.timestamps.jsonl)",
    madeSeeds: MadeSeeds.sidecars, dictionary: "scripts/fuzz-dictionaries/json.dict"
  ) { input, _ in
    let sidecarPath = "clip.avi.timestamps.jsonl"
    guard let sidecar = try? TimestampsSidecar.parse(input, sidecarPath: sidecarPath, recording: "clip.avi") else {
      return []
    }
    // What the sidecar writer makes of it must read back and write the same.
    let written = sidecar.encoded()
    guard let again = try? TimestampsSidecar.parse(written, sidecarPath: sidecarPath, recording: "clip.avi") else {
      return ["the sidecar refuses what its writer wrote: \(String(decoding: written, as: UTF8.self))"]
    }
    return again.encoded() == written ? [] : ["writing the sidecar is not stable"]
  }

  // MARK: - JPEG

  static let jpeg = FuzzTarget(
    "jpeg", "JPEG headers, read before libjpeg-turbo is given a frame, then the decode (JPEGDecoder)",
    seeds: ["Tests/Fixtures/faces/single_face_blink_30fps/0001.jpg"], madeSeeds: MadeSeeds.jpegs,
    dictionary: "scripts/fuzz-dictionaries/jpeg.dict"
  ) { input, _ in
    let decoder = JPEGDecoder()
    guard let header = try? decoder.readHeader(input) else { return [] }
    if header.width <= 0 || header.height <= 0 { return ["a header of \(header.width)×\(header.height) was accepted"] }
    // Decoding is worth it only where it is cheap; big images are the
    // decoder's own limit, which the header check must have applied.
    guard header.width * header.height <= 1 << 20 else { return [] }
    let image = ImageBuffer(format: .gray8)
    guard (try? decoder.decode(input, into: image, format: .gray8)) != nil else { return [] }
    return image.width == header.width && image.height == header.height
      ? [] : ["decoded \(image.width)×\(image.height) from a header of \(header.width)×\(header.height)"]
  }

  static let photoHeader = FuzzTarget(
    "photo-header", "PNG and BMP headers, read before a photo is decoded (ImageHeader)",
    madeSeeds: MadeSeeds.photoHeaders
  ) { input, _ in
    guard let header = ImageHeader(input) else { return [] }
    if header.width < 0 || header.height < 0 { return ["a header of \(header.width)×\(header.height) was read"] }
    let tooBig = !FrameSize.isRead(width: header.width, height: header.height)
    return tooBig == (header.sizeProblem != nil)
      ? [] : ["\(header.width)×\(header.height): the size problem is \(header.sizeProblem ?? "none")"]
  }

  // MARK: - Face schedules

  static let faceSchedule = FuzzTarget(
    "face-schedule", "face scene schedules: keyframes and blinks (FaceSchedule, workbench synth face)",
    seeds: ["examples/synth", "examples/eval"], seedExtensions: [".json"],
    dictionary: "scripts/fuzz-dictionaries/json.dict", fileName: "schedule.json"
  ) { input, file in
    do throws(WorkbenchError) {
      let schedule = try FaceSchedule.parse(String(decoding: input, as: UTF8.self), file: file)
      let counts = [schedule.keyframes.count, schedule.blinks.count]
      return counts.allSatisfy { $0 <= FaceSchedule.maximumCount }
        ? [] : ["a schedule of \(counts) keyframes and blinks was taken, above \(FaceSchedule.maximumCount)"]
    } catch {
      return ErrorRules.namesTheInput(error.summary, file, "the schedule error")
    }
  }

  // MARK: - Scenarios

  static let scenario = FuzzTarget(
    "scenario", "QA scenario files: Lua in the flow sandbox that returns data (ScenarioRunner.load)",
    seeds: ["examples/qa"], seedExtensions: [".lua"], dictionary: "scripts/fuzz-dictionaries/scenario.dict",
    fileName: "scenario.lua"
  ) { _, file in
    do throws(WorkbenchError) {
      _ = try ScenarioRunner.load(file: file)
      return []
    } catch {
      return ErrorRules.namesTheInput(error.summary, file, "the scenario error")
    }
  }
}
