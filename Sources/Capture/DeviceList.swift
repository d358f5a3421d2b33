import Foundation
import JSONCore

/// One /dev/video* node as `workbench devices` shows it.
public struct VideoDevice: Sendable, Equatable {
  public var path: String
  /// Nil when the node could not be opened or queried.
  public var driver: String?
  public var card: String?
  public var bus: String?
  /// Whether the node captures video frames (a webcam's second node often
  /// carries only metadata).
  public var captures: Bool
  public var formats: [VideoDeviceFormat]
  /// Why the node could not be opened or fully described.
  public var problem: String?
  /// What to do about the problem.
  public var help: String?

  public init(
    path: String, driver: String? = nil, card: String? = nil, bus: String? = nil, captures: Bool = false,
    formats: [VideoDeviceFormat] = [], problem: String? = nil, help: String? = nil
  ) {
    self.path = path
    self.driver = driver
    self.card = card
    self.bus = bus
    self.captures = captures
    self.formats = formats
    self.problem = problem
    self.help = help
  }
}

/// A pixel format with the sizes and frame rates it offers.
public struct VideoDeviceFormat: Sendable, Equatable {
  /// The four-character code, such as "MJPG".
  public var pixelFormat: String
  public var description: String
  public var isCompressed: Bool
  /// Converted in software by libv4l rather than sent by the camera.
  public var isEmulated: Bool
  public var sizes: [VideoDeviceSize]
  /// For cameras that take any size in a range instead of a list.
  public var sizeRange: VideoDeviceSizeRange?

  public init(
    pixelFormat: String, description: String, isCompressed: Bool = false, isEmulated: Bool = false,
    sizes: [VideoDeviceSize] = [], sizeRange: VideoDeviceSizeRange? = nil
  ) {
    self.pixelFormat = pixelFormat
    self.description = description
    self.isCompressed = isCompressed
    self.isEmulated = isEmulated
    self.sizes = sizes
    self.sizeRange = sizeRange
  }
}

/// Any size from minimum to maximum in steps.
public struct VideoDeviceSizeRange: Sendable, Equatable {
  public var minimum: V4L2Size
  public var maximum: V4L2Size
  public var step: V4L2Size

  public init(minimum: V4L2Size, maximum: V4L2Size, step: V4L2Size) {
    self.minimum = minimum
    self.maximum = maximum
    self.step = step
  }
}

/// A frame size with its frame rates.
public struct VideoDeviceSize: Sendable, Equatable {
  public var width: Int
  public var height: Int
  /// Frames per second offered at this size, as the driver lists them.
  public var framesPerSecond: [Double]
  /// For cameras that take any rate in a range: slowest and fastest.
  public var framesPerSecondRange: ClosedRange<Double>?

  public init(width: Int, height: Int, framesPerSecond: [Double] = [], framesPerSecondRange: ClosedRange<Double>? = nil)
  {
    self.width = width
    self.height = height
    self.framesPerSecond = framesPerSecond
    self.framesPerSecondRange = framesPerSecondRange
  }
}

/// Finds the video devices and what each can capture.
public enum DeviceList {
  /// The video* nodes of a folder, in numeric order (video2 before video10).
  public static func devicePaths(in folder: String = "/dev") -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let numbered = names.compactMap { name -> (Int, String)? in
      guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)), number >= 0 else { return nil }
      return (number, name)
    }
    let base = folder.hasSuffix("/") ? folder : folder + "/"
    return numbered.sorted { $0.0 < $1.0 }.map { base + $0.1 }
  }

  /// Describes each node; nodes that cannot be opened are listed with the reason.
  public static func scan(paths: [String]? = nil, device: any V4L2Device = LibV4L2Device()) -> [VideoDevice] {
    (paths ?? devicePaths()).map { describe(path: $0, device: device) }
  }

  public static func describe(path: String, device: any V4L2Device) -> VideoDevice {
    var entry = VideoDevice(path: path)
    let handle: V4L2Handle
    do { handle = try device.open(path: path) } catch {
      return failed(entry, CameraErrors.setup(error, path: path), prefix: "cannot open")
    }
    defer { device.close(handle) }
    let capabilities: V4L2Capabilities
    do { capabilities = try device.queryCapabilities(handle) } catch {
      return failed(entry, CameraErrors.setup(error, path: path), prefix: "cannot query")
    }
    entry.driver = capabilities.driver
    entry.card = capabilities.card
    entry.bus = capabilities.busInfo
    entry.captures = capabilities.capturesVideo
    guard entry.captures else { return entry }
    do {
      for format in try device.formats(handle) {
        entry.formats.append(try describe(format, handle, device))
      }
    } catch {
      return failed(entry, CameraErrors.setup(error, path: path), prefix: "cannot list formats")
    }
    return entry
  }

  private static func describe(_ format: V4L2FormatDescription, _ handle: V4L2Handle, _ device: any V4L2Device)
    throws(V4L2Error) -> VideoDeviceFormat
  {
    var entry = VideoDeviceFormat(
      pixelFormat: format.pixelFormat.description, description: format.description,
      isCompressed: format.isCompressed, isEmulated: format.isEmulated)
    switch try device.frameSizes(handle, pixelFormat: format.pixelFormat) {
    case .discrete(let sizes):
      for size in sizes {
        var sized = VideoDeviceSize(width: size.width, height: size.height)
        switch try device.frameIntervals(handle, pixelFormat: format.pixelFormat, size: size) {
        case .discrete(let intervals):
          sized.framesPerSecond = intervals.compactMap(\.framesPerSecond)
        case .stepwise(let fastest, let slowest, _):
          if let low = slowest.framesPerSecond, let high = fastest.framesPerSecond, low <= high {
            sized.framesPerSecondRange = low...high
          }
        }
        entry.sizes.append(sized)
      }
    case .stepwise(let minimum, let maximum, let step):
      entry.sizeRange = VideoDeviceSizeRange(minimum: minimum, maximum: maximum, step: step)
    }
    return entry
  }

  private static func failed(_ entry: VideoDevice, _ error: CaptureError, prefix: String) -> VideoDevice {
    var entry = entry
    entry.problem = "\(prefix): \(error.message)"
    entry.help = error.help
    return entry
  }

  // MARK: Output

  public static let noDevicesMessage = "no video devices found"

  /// A readable listing, one block per device.
  public static func render(_ devices: [VideoDevice]) -> String {
    guard !devices.isEmpty else { return noDevicesMessage }
    var lines: [String] = []
    for device in devices {
      var heading = device.path
      if let card = device.card {
        let details = [device.driver, device.bus].compactMap { $0 }.filter { !$0.isEmpty }
        heading += ": \(card)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
      }
      if device.driver != nil && !device.captures { heading += " — not a capture device" }
      lines.append(heading)
      if let problem = device.problem {
        lines.append("  \(problem)")
        if let help = device.help { lines.append("  help: \(help)") }
      }
      for format in device.formats {
        let converted = format.isEmulated ? " (converted by libv4l)" : ""
        lines.append(
          "  \(format.pixelFormat.padding(toLength: 4, withPad: " ", startingAt: 0))  \(format.description)\(converted)"
        )
        if let range = format.sizeRange {
          lines.append("    any size from \(range.minimum) to \(range.maximum) in steps of \(range.step)")
        }
        let sizeWidth = format.sizes.map { "\($0.width)x\($0.height)".count }.max() ?? 0
        for size in format.sizes {
          let name = "\(size.width)x\(size.height)"
          let rates = rates(size)
          lines.append(
            rates.isEmpty
              ? "    \(name)" : "    \(name.padding(toLength: sizeWidth, withPad: " ", startingAt: 0))  \(rates)")
        }
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `{"devices": [...]}` with the same facts as `render`.
  public static func json(_ devices: [VideoDevice]) -> JSONValue {
    .object(JSONObject([("devices", .array(devices.map(json)))]))
  }

  public static func jsonText(_ devices: [VideoDevice]) -> String { json(devices).jsonText }

  private static func json(_ device: VideoDevice) -> JSONValue {
    var object = JSONObject()
    object["path"] = .string(device.path)
    if let driver = device.driver { object["driver"] = .string(driver) }
    if let card = device.card { object["card"] = .string(card) }
    if let bus = device.bus { object["bus"] = .string(bus) }
    object["captures"] = .bool(device.captures)
    object["formats"] = .array(device.formats.map(json))
    if let problem = device.problem { object["error"] = .string(problem) }
    if let help = device.help { object["help"] = .string(help) }
    return .object(object)
  }

  private static func json(_ format: VideoDeviceFormat) -> JSONValue {
    var object = JSONObject()
    object["pixel_format"] = .string(format.pixelFormat)
    object["description"] = .string(format.description)
    object["compressed"] = .bool(format.isCompressed)
    object["emulated"] = .bool(format.isEmulated)
    object["sizes"] = .array(
      format.sizes.map { size in
        var entry = JSONObject()
        entry["width"] = .integer(Int64(size.width))
        entry["height"] = .integer(Int64(size.height))
        entry["fps"] = .array(size.framesPerSecond.map(number))
        if let range = size.framesPerSecondRange {
          entry["fps_range"] = .array([number(range.lowerBound), number(range.upperBound)])
        }
        return .object(entry)
      })
    if let range = format.sizeRange {
      object["size_range"] = .object(
        JSONObject([
          ("min", .string(range.minimum.description)), ("max", .string(range.maximum.description)),
          ("step", .string(range.step.description)),
        ]))
    }
    return .object(object)
  }

  /// Whole rates as integers (30), others as they are (29.97).
  private static func number(_ value: Double) -> JSONValue {
    value.rounded() == value ? .integer(Int64(value)) : .number(value)
  }

  private static func rates(_ size: VideoDeviceSize) -> String {
    if let range = size.framesPerSecondRange { return "\(rate(range.lowerBound)) to \(rate(range.upperBound)) fps" }
    guard !size.framesPerSecond.isEmpty else { return "" }
    return size.framesPerSecond.map(rate).joined(separator: ", ") + " fps"
  }

  private static func rate(_ value: Double) -> String {
    value.rounded() == value ? String(Int(value)) : String(format: "%.2f", value)
  }
}
