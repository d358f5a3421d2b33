import Capture
import Diagnostics
import Estimators
import Flows
import Foundation
import Imaging
import JSONCore
import Reporting

/// The folder of a run's artifacts (`--artifacts`): the images of each
/// capture, each file written under a temporary name and renamed into place.
public final class ArtifactFolder {
  public let path: String
  /// Files written, in order, as paths the user gave (for the signature).
  public private(set) var files: [String] = []
  private let encoder = JPEGEncoder()

  /// Creates the folder when it is missing; its parent must exist.
  public init(path: String) throws(WorkbenchError) {
    self.path = path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw WorkbenchError(
          .usage, "is a file, not a folder", at: SourceLocation(file: path, key: "--artifacts"),
          help: "--artifacts takes a folder for the captured images and the signature")
      }
      return
    }
    let parent = (path as NSString).deletingLastPathComponent
    let folder = parent.isEmpty ? "." : parent
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw WorkbenchError(
        .usage, "the folder \(folder) does not exist", at: SourceLocation(file: path, key: "--artifacts"),
        help: "create it first or choose another folder")
    }
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    } catch {
      throw WorkbenchError(
        .usage, "cannot create the folder: \(error.localizedDescription)",
        at: SourceLocation(file: path, key: "--artifacts"), help: "check the permissions of \(folder)")
    }
  }

  /// Writes `bytes` to `name` in the folder, atomically; returns its path.
  @discardableResult
  public func write(_ name: String, _ bytes: [UInt8]) throws(WorkbenchError) -> String {
    let file = (path.hasSuffix("/") ? path : path + "/") + name
    let output = try OutputFile(path: file)
    output.write(bytes)
    try output.finish()
    files.removeAll { $0 == file }
    files.append(file)
    return file
  }

  /// Keeps a frame's images under `name`: the frame as it came (its own
  /// JPEG bytes when it was a JPEG), and every image the estimators give
  /// for it. Returns `{ "frame": path, "card": path, ... }` and how the
  /// images that can be found more than one way were found.
  func capture(
    _ name: String, frame: CapturedFrame?, decoded: DecodedFrame, estimators: [any Estimator]
  ) throws(WorkbenchError) -> CaptureFiles {
    var images = JSONObject()
    var methods = JSONObject()
    switch frame?.payload {
    case .jpeg(let bytes)?:
      images["frame"] = .string(try write(name + ".jpg", bytes))
    case .image(let image)?:
      images["frame"] = .string(try write(name + ".jpg", try encode(image)))
    default:
      let image = decoded.hasColor ? decoded.color : decoded.gray
      if image.width > 0 { images["frame"] = .string(try write(name + ".jpg", try encode(image))) }
    }
    for estimator in estimators {
      guard let provider = estimator as? any CaptureImageProvider else { continue }
      for imageName in provider.captureImageNames {
        guard let image = provider.captureImage(named: imageName, frame: decoded) else { continue }
        images[imageName] = .string(try write(name + "." + imageName + ".jpg", try encode(image)))
        if let method = provider.captureImageMethod(named: imageName) { methods[imageName] = .string(method) }
      }
    }
    return CaptureFiles(images: images, methods: methods)
  }

  private func encode(_ image: ImageBuffer) throws(WorkbenchError) -> [UInt8] {
    do {
      return try encoder.encode(image, quality: 92)
    } catch {
      throw WorkbenchError(.usage, "cannot encode a captured image: \(error)", at: SourceLocation(file: path))
    }
  }
}
