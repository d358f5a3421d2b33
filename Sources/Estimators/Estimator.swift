import Imaging
import JSONCore
import Measurements

/// A frame decoded once, that every estimator reads.
public final class DecodedFrame {
  public var index: Int64 = 0
  /// Seconds, from the source's clock.
  public var t: Double = 0
  /// Full-size luma: every estimator can read it.
  public let gray = ImageBuffer(format: .gray8)
  /// Full-size colour, filled only when an estimator of the run asked for it.
  public let color = ImageBuffer(format: .rgb8)
  public var hasColor = false

  /// The size of the frame as captured; `gray` and `color` are smaller when
  /// every estimator of the run asked for less (scaled decoding).
  public var sourceWidth = 0
  public var sourceHeight = 0
  /// The camera's focal length in pixels of the frame as captured, when the
  /// source knows it (the recording's header, a camera profile); nil when
  /// it does not.
  public var focalLength: Double?

  public init() {}

  public var width: Int { gray.width }
  public var height: Int { gray.height }
}

/// What an estimator reads from the frame besides measurements.
public enum ImageNeed: Sendable, Equatable {
  case gray
  case color
}

/// What an estimator is: a name, the measurements it provides and those it
/// needs from other estimators. Paths are dotted measurement names
/// ("quality.blur", "face.yaw"); a need may name a group ("face") to mean
/// every measurement in it.
public struct EstimatorDescriptor: Sendable, Equatable {
  public var name: String
  public var summary: String
  public var provides: [String]
  public var needs: [String]
  public var image: ImageNeed
  /// The smallest image width the estimator still works well at; nil when
  /// it needs full resolution. When every estimator of a run gives one,
  /// JPEG frames are decoded scaled down (1/2, 1/4, 1/8) as far as all allow,
  /// which is much cheaper than decoding in full.
  public var workingWidth: Int?
  /// "built-in" or the plugin file it came from.
  public var origin: String
  /// Every measurement it writes, with its type: what `workbench check`
  /// holds a flow's fields against. By default each of `provides`, as a
  /// number (all a plugin can write).
  public var fields: [MeasurementField]

  public init(
    name: String, summary: String, provides: [String], fields: [MeasurementField]? = nil, needs: [String] = [],
    image: ImageNeed = .gray, workingWidth: Int? = nil, origin: String = "built-in"
  ) {
    self.name = name
    self.summary = summary
    self.provides = provides
    self.fields = fields ?? provides.map { MeasurementField($0) }
    self.needs = needs
    self.image = image
    self.workingWidth = workingWidth
    self.origin = origin
  }
}

/// Turns pixels (and other estimators' measurements) into measurements.
/// One instance per run, called from one thread, frame after frame; it may
/// keep state between frames (tracking) and should not allocate per frame.
public protocol Estimator: AnyObject {
  var descriptor: EstimatorDescriptor { get }
  /// Called once before the first frame: look up the schema nodes to write.
  func prepare(schema: MeasurementSchema) throws(EstimatorError)
  /// Reads the frame (and the measurements of the estimators it needs, already
  /// in `measurements`) and writes what it provides.
  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame)
}

/// An estimator whose work comes in parts, of which a run may read only
/// some (the face estimator's blendshapes, pose, quality): told before
/// `prepare` what the run reads, it leaves out the parts nobody reads.
public protocol SelectiveEstimator: AnyObject {
  /// `reads`: every measurement path the run reads, groups included
  /// (`face` is all of it); nil when the run may read anything.
  func select(reads: [String]?)
}

public struct EstimatorError: Error, Sendable, Equatable, CustomStringConvertible {
  public var estimator: String
  public var message: String
  public var help: String?

  public init(estimator: String, _ message: String, help: String? = nil) {
    self.estimator = estimator
    self.message = message
    self.help = help
  }

  public var description: String { "estimator '\(estimator)': \(message)" }
}

extension MeasurementSchema {
  /// The node of a measurement an estimator writes, marking the tables above
  /// it present in `frame`; used by estimators in `prepare`.
  public func valueNode(_ path: String, estimator: String) throws(EstimatorError) -> Int {
    switch node(path: path) {
    case .success(let id): return id
    case .failure(let error): throw EstimatorError(estimator: estimator, error.description)
    }
  }
}

/// An estimator that can show what it saw on the frame it measured last,
/// for a live view (the preview page): shapes in the captured frame's
/// pixels. Asked on the frame loop right after the frame, and only when a
/// view wants that frame, so drawing costs nothing otherwise.
public protocol OverlayDrawing: AnyObject {
  /// Named shapes: `face.landmarks` is a list of faces, each a flat list
  /// x, y, x, y, …; `card.glare` a list of quads, each x, y × 4.
  func overlay() -> JSONObject
}

/// An estimator that can hand out images of the frame it measured last,
/// such as the rectified card or the portrait on it, for captures
/// (`ctx.capture`) and signed artifacts.
public protocol CaptureImageProvider: AnyObject {
  /// The names of the images it may give ("card", "portrait").
  var captureImageNames: [String] { get }
  /// The image of that name for the frame estimated last (`frame`), or nil
  /// when it has none for that frame (no card found).
  func captureImage(named name: String, frame: DecodedFrame) -> ImageBuffer?
  /// How the image of that name it gave last was found, in a word, when
  /// there is more than one way ("face" or "layout" for the card's
  /// portrait): the capture event says so. Nil by default.
  func captureImageMethod(named name: String) -> String?
}

extension CaptureImageProvider {
  public func captureImageMethod(named name: String) -> String? { nil }
}
