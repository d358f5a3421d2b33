import CFFmpeg

/// The FFmpeg libraries, loaded on first use, and what they can decode and encode.
public enum FFmpegLibraries {
  /// Why FFmpeg's libraries cannot be loaded (the dynamic loader's words), or
  /// nil when they are. Loads them on the first call.
  public static var loadError: String? {
    var message = [CChar](repeating: 0, count: 512)
    let status = message.withUnsafeMutableBufferPointer { wb_ffmpeg_load($0.baseAddress, $0.count) }
    return status == 0 ? nil : message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  /// "libavformat 59.27.100, libavcodec 59.37.100, libswscale 6.7.100", or
  /// "" when the libraries cannot be loaded.
  public static var versions: String { String(cString: wb_ffmpeg_versions()) }

  /// Whether libavcodec has the decoder called `name` ("h264", "hevc").
  public static func hasDecoder(_ name: String) -> Bool { wb_ffmpeg_has_codec(name, 0) != 0 }

  /// Whether libavcodec has the encoder called `name` ("libx264").
  public static func hasEncoder(_ name: String) -> Bool { wb_ffmpeg_has_codec(name, 1) != 0 }

  /// What to do when they cannot be loaded.
  public static let installAdvice =
    "install Debian's FFmpeg libraries (apt-get install libavformat59 libswscale6), then run workbench doctor"
}
