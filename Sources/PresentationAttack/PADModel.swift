import CPresentationAttack
import Foundation

/// Why a presentation-attack model cannot be used, with what to change.
public struct PADModelError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The model file.
  public var path: String
  public var message: String
  public var help: String

  public var description: String { "\(path): \(message)" }
}

/// One ONNX model run by OpenCV's DNN module: loaded once, checked with an
/// inference on a blank input of its configured size, then run on crops.
/// Not thread-safe: one instance per run.
public final class PADModel {
  public let path: String
  public let channels: Int
  public let width: Int
  public let height: Int
  /// The number of values of the model's output.
  public let outputCount: Int
  private let net: OpaquePointer
  private var message = [CChar](repeating: 0, count: 512)

  public init(path: String, width: Int, height: Int, channels: Int = 3) throws(PADModelError) {
    self.path = path
    self.width = width
    self.height = height
    self.channels = channels
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
      throw PADModelError(
        path: path, message: isFolder.boolValue ? "is a folder, not an ONNX model" : "no such model file",
        help: "set pad.model to the path of an .onnx file (docs/liveness.md lists models that work)")
    }
    guard FileManager.default.isReadableFile(atPath: path) else {
      throw PADModelError(path: path, message: "cannot be read", help: "check the file's permissions")
    }
    if let declared = ONNXInputShape.read(path: path), declared.count == 4,
      let declaredHeight = declared[2], let declaredWidth = declared[3],
      declaredWidth != width || declaredHeight != height || declared[1].map({ $0 != channels }) == true
    {
      throw PADModelError(
        path: path,
        message: "takes an input of \(declaredWidth)×\(declaredHeight), and pad.input_size says \(width)×\(height)",
        help: declaredWidth == declaredHeight
          ? "set pad.input_size = \(declaredWidth)" : "set pad.input_size = [\(declaredWidth), \(declaredHeight)]")
    }
    var error = [CChar](repeating: 0, count: 512)
    var stage: Int32 = 0
    guard let opened = wb_pad_open(path, Int32(channels), Int32(height), Int32(width), &stage, &error, error.count)
    else {
      let reason = Self.text(error)
      let running = stage == Int32(WB_PAD_CHECKING)
      throw PADModelError(
        path: path, message: Self.explain(reason, running: running, width: width, height: height),
        help: Self.help(reason, running: running))
    }
    net = opened
    outputCount = Int(wb_pad_output_count(opened))
  }

  deinit { wb_pad_close(net) }

  /// Runs the model on one input of channels × height × width floats
  /// (NCHW) and writes its output values into `output` (at least
  /// ``outputCount`` long).
  public func run(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) throws(PADModelError) {
    let count = wb_pad_run(net, input, output, Int32(outputCount), &message, message.count)
    guard count >= 0 else {
      throw PADModelError(path: path, message: Self.text(message), help: "the model failed on a frame")
    }
  }

  /// OpenCV's version ("4.6.0"), whose DNN module runs the models.
  public static var openCVVersion: String { String(cString: wb_pad_opencv_version()) }

  /// Threads OpenCV uses for every model of the process (0: its default).
  public static func setThreads(_ threads: Int) { wb_pad_set_threads(Int32(threads)) }

  static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// OpenCV's reason in words a user can act on.
  static func explain(_ reason: String, running: Bool, width: Int, height: Int) -> String {
    if unsupported(reason) { return "uses an operation this OpenCV cannot run (\(reason))" }
    if running { return "does not run on an input of \(width)×\(height) (\(reason))" }
    return "is not an ONNX model this OpenCV can read (\(reason))"
  }

  static func help(_ reason: String, running: Bool) -> String {
    if unsupported(reason) {
      return "export the model again at opset 11 with the operations OpenCV's DNN module supports"
    }
    if running {
      return "set pad.input_size to the input size the model was exported with (e.g. 80 or [128, 128]),"
        + " or export it with a static input shape"
    }
    return "give the .onnx file itself, whole (a download cut short does not parse)"
  }

  private static func unsupported(_ reason: String) -> Bool {
    ["Can't create layer", "nsupported", "not supported", "isDynamicShape"].contains { reason.contains($0) }
  }
}
