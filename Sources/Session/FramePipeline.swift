import Capture
import Estimators
import Imaging
import Measurements

/// Turns captured frames into measurements: decodes each frame once (luma
/// always, colour only when an estimator of the run reads it) and runs the
/// run's estimators in their order.
public final class FramePipeline {
  public let estimators: [any Estimator]
  /// The measurements of the last frame measured.
  var lastMeasured: MeasurementFrame { measurements }

  /// The frame as the estimators last saw it (for tests and diagnostics).
  var lastDecoded: DecodedFrame { decoded }
  public let schema: MeasurementSchema
  /// What the flow reads now, for the estimators that work only when asked.
  public let demand = MeasurementDemand()
  private let needsColor: Bool
  /// The narrowest width the estimators accept (nil: full resolution).
  private let workingWidth: Int?
  private let header = JPEGDecoder()
  private let decoder = JPEGDecoder()
  private let decoded = DecodedFrame()
  private let videoConverter = VideoFrameConverter()
  private var measurements = MeasurementFrame(t: 0, index: 0)

  /// What became of one frame.
  public enum Outcome {
    case measured(MeasurementFrame)
    /// The frame could not be decoded: skipped and counted, never fatal.
    case skipped(reason: String)
  }

  /// The camera's focal length, pixels of the frame as captured, when the
  /// source says (`DecodedFrame.focalLength`).
  public var focalLength: Double? {
    get { decoded.focalLength }
    set { decoded.focalLength = newValue }
  }

  /// `measuresEverything`: every estimator computes all it can, whatever
  /// the flow reads (a run that measures the whole input for others to
  /// replay, such as an evaluation's cache). `alsoReads`: what the flow
  /// reads besides what chose the estimators (its getters, its watchers);
  /// nil when that is not known.
  public init(
    graph: EstimatorGraph, schema: MeasurementSchema, measuresEverything: Bool = false, alsoReads: [String]? = []
  ) throws(EstimatorError) {
    let reads = measuresEverything ? nil : alsoReads.flatMap { also in graph.reads.map { $0 + also } }
    estimators = graph.ordered
    self.schema = schema
    needsColor = graph.needsColor
    workingWidth = graph.workingWidth
    for estimator in estimators {
      (estimator as? any SelectiveEstimator)?.select(reads: reads)
      try estimator.prepare(schema: schema)
      (estimator as? any DemandDriven)?.attach(demand)
    }
  }

  /// The strongest JPEG scaling that keeps the image at least as wide as
  /// every estimator of the run needs; records the size as captured.
  private func decodeScale(_ bytes: [UInt8]) throws(ImagingError) -> JPEGScale {
    guard let workingWidth else {
      decoded.sourceWidth = 0
      decoded.sourceHeight = 0
      return .full
    }
    let size = try header.readHeader(bytes)
    decoded.sourceWidth = size.width
    decoded.sourceHeight = size.height
    return scale(width: size.width)
  }

  /// The strongest of the 1/2, 1/4, 1/8 scalings that keeps a frame this
  /// wide at least as wide as every estimator of the run needs: the same
  /// rule for a JPEG and a video frame, so that one picture measures the
  /// same whichever file brings it.
  private func scale(width: Int) -> JPEGScale {
    guard let workingWidth else { return .full }
    for scale in [JPEGScale.eighth, .quarter, .half] where width / scale.denominator >= workingWidth {
      return scale
    }
    return .full
  }

  /// Whether the estimators read a video frame of this size at exactly
  /// half its width and height, which a source can make as it decodes.
  public func readsHalfSize(width: Int, height: Int) -> Bool {
    scale(width: width) == .half && width >= 4 && height >= 4
  }

  public func measure(_ frame: CapturedFrame) -> Outcome {
    decoded.index = frame.index
    decoded.t = frame.t
    switch frame.payload {
    case .unreadable(let reason):
      return .skipped(reason: reason)
    case .jpeg(let bytes):
      do {
        let scale = try decodeScale(bytes)
        if needsColor {
          try decoder.decode(bytes, into: decoded.color, format: .rgb8, scale: scale)
          try ImageConversion.rgb8ToGray8(decoded.color, into: decoded.gray)
        } else {
          try decoder.decode(bytes, into: decoded.gray, format: .gray8, scale: scale)
        }
      } catch {
        return .skipped(reason: error.description)
      }
    case .image(let image):
      decoded.sourceWidth = image.width
      decoded.sourceHeight = image.height
      do {
        switch image.format {
        case .gray8:
          decoded.gray.reshape(width: image.width, height: image.height, format: .gray8)
          decoded.gray.pixels.update(from: image.pixels, count: image.byteCount)
          if needsColor { try ImageConversion.gray8ToRGB8(image, into: decoded.color) }
        case .rgb8:
          try ImageConversion.rgb8ToGray8(image, into: decoded.gray)
          if needsColor {
            decoded.color.reshape(width: image.width, height: image.height, format: .rgb8)
            decoded.color.pixels.update(from: image.pixels, count: image.byteCount)
          }
        case .yuv420p:
          // Scaled, then converted by libswscale; the luma is the Y plane, never RGB's. Never
          // below 2 pixels a side, which libswscale refuses.
          var size = scale(width: image.width).scaledSize(width: image.width, height: image.height)
          if size.width < 2 || size.height < 2 { size = (image.width, image.height) }
          try videoConverter.convert(
            image, width: size.width, height: size.height, color: needsColor ? decoded.color : nil,
            gray: decoded.gray)
        }
      } catch {
        return .skipped(reason: error.description)
      }
    }
    decoded.hasColor = needsColor
    // Reuse the values array: clear it in place instead of allocating.
    measurements.t = frame.t
    measurements.index = frame.index
    for index in measurements.values.indices { measurements.values[index] = .absent }
    for estimator in estimators { estimator.estimate(decoded, into: &measurements) }
    return .measured(measurements)
  }
}
