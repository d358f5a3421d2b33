import Foundation

/// A folder of JPEG frames, one file each, read in natural name order
/// (`frame2.jpg` before `frame10.jpg`). Hidden files and files that are not
/// `.jpg`/`.jpeg` are ignored; a frame file that cannot be read or is not a
/// whole JPEG is an unreadable frame, not the end of the recording.
final class JPEGFolderSource: FrameSource {
  let info: SourceInfo
  /// The frame files' names, in frame order.
  let frameNames: [String]
  private let folder: String
  private let timeline: TimestampsTimeline
  private var nextIndex = 0
  private var isClosed = false

  init(context: RecordingContext) throws(CaptureError) {
    folder = TimestampsSidecar.trimmingTrailingSlashes(context.path)
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw CaptureError(
        .unreadableFile, source: context.path, "cannot list the folder: \(error.localizedDescription)",
        help: "check the folder's permissions")
    }
    let folder = self.folder
    frameNames = names.filter { name in
      guard !name.hasPrefix(".") else { return false }
      let fileExtension = (name as NSString).pathExtension.lowercased()
      guard fileExtension == "jpg" || fileExtension == "jpeg" else { return false }
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) && !isFolder.boolValue
    }.sorted(by: RecordingSource.naturallyOrdered)
    guard let firstName = frameNames.first else {
      throw CaptureError(
        .invalidRecording, source: context.path, "the folder has no .jpg or .jpeg frames",
        help: "put one .jpg file per frame in it, named so that they sort in order (frame1.jpg, frame2.jpg...); "
          + RecordingSource.supportedFormatsHelp)
    }
    timeline = context.timeline()
    let firstSize = Self.readFrame(folder + "/" + firstName).flatMap { MJPEGMarkers.imageSize(of: $0) }
    info = SourceInfo(
      kind: RecordingSource.Format.jpegFolder.rawValue, name: context.path, width: firstSize?.width,
      height: firstSize?.height, fps: timeline.framesPerSecond, frameCount: frameNames.count,
      details: context.details(timeline: timeline))
  }

  private static func readFrame(_ path: String) -> [UInt8]? {
    guard let file = try? RecordingFile(path: path) else { return nil }
    defer { file.close() }
    return try? file.read(at: 0, count: Int(file.size))
  }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard !isClosed, nextIndex < frameNames.count else { return nil }
    let index = nextIndex
    nextIndex += 1
    let name = frameNames[index]
    let payload: FramePayload
    do {
      let file = try RecordingFile(path: folder + "/" + name)
      defer { file.close() }
      let bytes = try file.read(at: 0, count: Int(file.size))
      switch MJPEGMarkers.check(bytes) {
      case .complete: payload = .jpeg(bytes)
      case .broken(let reason): payload = .unreadable(reason: "\(name): \(reason)")
      case .needsMoreData: payload = .unreadable(reason: "\(name): truncated")
      }
    } catch {
      // One missing or unreadable frame file spoils one frame, not the recording.
      payload = .unreadable(reason: "\(name): \(error.message)")
    }
    return CapturedFrame(index: Int64(index), t: timeline.time(ofFrame: Int64(index)), payload: payload)
  }

  func close() { isClosed = true }
}
