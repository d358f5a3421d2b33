import CFFmpeg

/// The FFmpeg libraries this process loaded, and what they can decode and encode.
public enum FFmpegLibraries {
  /// "libavformat 59.27.100, libavcodec 59.37.100, libswscale 6.7.100".
  public static var versions: String { String(cString: wb_ffmpeg_versions()) }

  /// Whether libavcodec has the decoder called `name` ("h264", "hevc").
  public static func hasDecoder(_ name: String) -> Bool { wb_ffmpeg_has_codec(name, 0) != 0 }

  /// Whether libavcodec has the encoder called `name` ("libx264").
  public static func hasEncoder(_ name: String) -> Bool { wb_ffmpeg_has_codec(name, 1) != 0 }
}
