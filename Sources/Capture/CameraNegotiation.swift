/// Which pixel format and size to ask a camera for, from what it offers.
enum CameraNegotiation {
  /// Formats workbench reads, best first. MJPEG keeps USB bandwidth low, so
  /// cameras offer their largest sizes and full frame rates in it; YUYV is
  /// raw and converted here; YUV420 and RGB24 are what libv4l converts
  /// anything else to, YUV420 first because it is already the planar layout
  /// frames end up in.
  static let preferredFormats: [V4L2FourCC] = [.mjpeg, .jpeg, .yuyv, .yuv420, .rgb24]

  /// Sharp enough for face measurements and light enough for every USB camera.
  static let defaultSize = V4L2Size(width: 1280, height: 720)

  struct Choice: Equatable {
    var format: V4L2FormatDescription
    /// Nil when the driver does not list sizes: the driver then picks one.
    var size: V4L2Size?
  }

  /// Picks the best format that offers the requested size (or the best
  /// format and a default size when none is requested).
  static func choose(
    path: String, formats: [V4L2FormatDescription], requested: V4L2Size?,
    sizes: (V4L2FourCC) throws(V4L2Error) -> V4L2FrameSizes
  ) throws(CaptureError) -> Choice {
    let candidates = preferredFormats.compactMap { code in formats.first { $0.pixelFormat == code } }
    guard !candidates.isEmpty else {
      let offered = formats.map(\.pixelFormat.description).joined(separator: ", ")
      throw CaptureError(
        .unsupportedFormat, source: path,
        "the camera offers none of the pixel formats workbench reads "
          + "(\(preferredFormats.map(\.description).joined(separator: ", "))); it offers: "
          + (offered.isEmpty ? "none" : offered))
    }
    func sizesOffered(in format: V4L2FormatDescription) throws(CaptureError) -> V4L2FrameSizes {
      do { return try sizes(format.pixelFormat) } catch { throw CameraErrors.setup(error, path: path) }
    }
    guard let requested else {
      let best = candidates[0]
      return Choice(format: best, size: defaultSize(of: try sizesOffered(in: best)))
    }
    var refusals: [(V4L2FormatDescription, V4L2FrameSizes)] = []
    for candidate in candidates {
      let offered = try sizesOffered(in: candidate)
      if offers(offered, requested) { return Choice(format: candidate, size: requested) }
      refusals.append((candidate, offered))
    }
    let listing = refusals.map { "\($0.0.pixelFormat): \(describe($0.1))" }.joined(separator: "; ")
    throw CaptureError(
      .unsupportedFormat, source: path, "the camera does not offer \(requested); it offers \(listing)",
      help: "pass one of these sizes with --size, or leave --size out")
  }

  /// 1280×720 when offered, else the largest size that fits in it, else the first.
  static func defaultSize(of sizes: V4L2FrameSizes) -> V4L2Size? {
    switch sizes {
    case .discrete(let list):
      if list.contains(defaultSize) { return defaultSize }
      let fitting = list.filter { $0.width <= defaultSize.width && $0.height <= defaultSize.height }
      return fitting.max { $0.area < $1.area } ?? list.first
    case .stepwise(let minimum, let maximum, let step):
      func pick(_ wanted: Int, _ low: Int, _ high: Int, _ step: Int) -> Int {
        let clamped = min(max(wanted, low), high)
        return low + (clamped - low) / max(step, 1) * max(step, 1)
      }
      return V4L2Size(
        width: pick(defaultSize.width, minimum.width, maximum.width, step.width),
        height: pick(defaultSize.height, minimum.height, maximum.height, step.height))
    }
  }

  static func offers(_ sizes: V4L2FrameSizes, _ size: V4L2Size) -> Bool {
    switch sizes {
    case .discrete(let list):
      // A driver that lists no sizes may still take this one: S_FMT tells.
      return list.isEmpty || list.contains(size)
    case .stepwise(let minimum, let maximum, let step):
      func fits(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Bool {
        value >= low && value <= high && (value - low) % max(step, 1) == 0
      }
      return fits(size.width, minimum.width, maximum.width, step.width)
        && fits(size.height, minimum.height, maximum.height, step.height)
    }
  }

  static func describe(_ sizes: V4L2FrameSizes) -> String {
    switch sizes {
    case .discrete(let list):
      return list.isEmpty ? "sizes not listed by the driver" : list.map(\.description).joined(separator: ", ")
    case .stepwise(let minimum, let maximum, let step):
      return "\(minimum) to \(maximum) in steps of \(step)"
    }
  }
}
