/* Video files through FFmpeg's libraries (Debian's libavformat, libavcodec,
 * libswscale 5.1). FFmpeg's structures change between versions and its
 * error codes are macros Swift cannot import: this shim keeps them on the C
 * side and gives Swift one opaque reader with fixed-size results.
 *
 * Frames come out as 8-bit 4:2:0 planes (Y, then U, then V, rows tightly
 * packed), in full range (0-255, as JPEG), already turned upright when the
 * file carries a rotation (a display matrix), so that every estimator sees
 * what a player shows. */
#ifndef WB_FFMPEG_H
#define WB_FFMPEG_H
#include <stddef.h>
#include <stdint.h>

/* What wb_video_open returns. */
enum {
  WB_VIDEO_OK = 0,
  /* FFmpeg cannot read the file as any container it knows. */
  WB_VIDEO_NOT_MEDIA = 1,
  /* A container without a video stream (audio only, subtitles...). */
  WB_VIDEO_NO_VIDEO = 2,
  /* A video stream whose codec this build of FFmpeg cannot decode. */
  WB_VIDEO_NO_DECODER = 3,
  /* The decoder would not start (unsupported profile, bad parameters). */
  WB_VIDEO_DECODER_FAILED = 4,
  /* The file could not be opened or read (permissions, I/O). */
  WB_VIDEO_UNREADABLE = 5,
  /* A frame size that is zero, larger than WB_VIDEO_MAXIMUM_SIDE or than WB_VIDEO_MAXIMUM_PIXELS. */
  WB_VIDEO_BAD_SIZE = 6,
  WB_VIDEO_NO_MEMORY = 7,
  /* FFmpeg's libraries could not be loaded; the message says which and why. */
  WB_VIDEO_LIBRARY_MISSING = 8
};

/* What wb_video_read_frame and wb_video_read_packet return. */
enum {
  WB_VIDEO_END = 0,
  WB_VIDEO_FRAME = 1,
  /* A frame (or packet) that could not be decoded: skipped, reading goes on. */
  WB_VIDEO_DAMAGED = 2,
  /* Reading cannot go on. */
  WB_VIDEO_ERROR = -1
};

/* The widest or tallest frame accepted, pixels. */
#define WB_VIDEO_MAXIMUM_SIDE 8192
/* The most pixels a frame may have (8K UHD, 7680×4320); Imaging's FrameSize
 * states the same rule, and a test holds the two equal. */
#define WB_VIDEO_MAXIMUM_PIXELS (7680 * 4320)

typedef struct wb_video wb_video;

typedef struct wb_video_info {
  /* The frames as they come out: after rotation. */
  int width;
  int height;
  /* The frames as stored in the file. */
  int stored_width;
  int stored_height;
  /* Degrees clockwise the stored frames are turned to stand upright
   * (0, 90, 180 or 270), from the stream's display matrix. */
  int rotation;
  /* After the turn, the frames are flipped left to right: the display
   * matrix mirrors the picture (a front camera's video). */
  int mirrored;
  /* Frames the container declares; -1 when it does not say. */
  long long frame_count;
  /* Seconds; negative when unknown. */
  double duration;
  double start_time;
  /* Frames per second the container states (average and nominal); 0 when unknown. */
  double average_rate;
  double nominal_rate;
  /* Seconds per tick of the stream's timestamps. */
  double time_base;
  long long bit_rate;
  int stream_index;
  int video_streams;
  int audio_streams;
  int other_streams;
  /* Whether this build has a decoder for the video codec. */
  int decodable;
  /* The stream says its luma uses the full 0-255 range (JPEG) rather than 16-235. */
  int full_range;
  char container[64];
  char container_long[128];
  char codec[32];
  char codec_long[128];
  char profile[48];
  char pixel_format[32];
} wb_video_info;

/* Opens `path` and its best video stream. With `decode` 0 the decoder is not
 * started (to describe a file this build cannot decode); wb_video_read_packet
 * still works. `threads` is the decoder's thread count (1 keeps decoding on
 * the caller's thread). On failure, `message` says why in FFmpeg's words. */
int wb_video_open(const char *path, int decode, int threads, wb_video **reader, wb_video_info *info, char *message,
                  size_t message_size);

/* Bytes of one frame as wb_video_read_frame writes it. */
size_t wb_video_frame_bytes(const wb_video *reader);

/* Decodes the next frame into `destination` (wb_video_frame_bytes bytes),
 * with its presentation time in seconds (`best_effort_timestamp` × the
 * stream's time base) and in ticks. `has_time` is 0 when the file gave the
 * frame no timestamp. DAMAGED says why in `message` and writes no pixels.
 * With `destination` NULL a decoded frame waits for wb_video_deliver_frame,
 * so that a caller allocates its buffer only for a frame that decoded (a
 * small damaged file may declare a huge size). */
int wb_video_read_frame(wb_video *reader, uint8_t *destination, size_t capacity, double *seconds, long long *ticks,
                        int *has_time, char *message, size_t message_size);

/* Converts the frame wb_video_read_frame kept into `destination`: FRAME,
 * DAMAGED (a frame of another size than the stream's) or ERROR. With `half`
 * (may be NULL), also the frame at exactly half its width and height, as
 * 4:2:0 planes whose samples are the rounded means of the full-size planes'
 * 2×2 blocks, made as the rows are copied: `*half_made` is 1 when it was
 * (an upright frame whose sides are multiples of 4, and `half_capacity`
 * big enough), 0 when it was not. */
int wb_video_deliver_frame(wb_video *reader, uint8_t *destination, size_t capacity, uint8_t *half,
                           size_t half_capacity, int *half_made, char *message, size_t message_size);

/* The next packet of the video stream without decoding it: its presentation
 * time (has_time 0 when it has none), whether it is a key frame, and its
 * size. For describing a file quickly. */
int wb_video_read_packet(wb_video *reader, double *seconds, int *has_time, int *keyframe, int *size, char *message,
                         size_t message_size);

void wb_video_close(wb_video *reader);

/* Writing: H.264 through libx264 in the container a file name's extension
 * names (.mp4, .mov, .mkv). Frames are given as full-range 4:2:0 planes
 * (as wb_video_read_frame gives them) or packed RGB, and are stored in full
 * range, flagged as such, so that what is read back is what was written. */
typedef struct wb_video_writer wb_video_writer;

enum { WB_PIXELS_YUV420P = 0, WB_PIXELS_RGB24 = 1 };

/* Opens `path` for writing, in the container of `container_path`'s
 * extension (the file is written under a temporary name and renamed by the
 * caller). `crf` is x264's constant rate factor (0-51), `preset` its speed
 * preset ("ultrafast"). `fps` is the nominal rate; every frame carries its
 * own time. */
int wb_video_writer_open(const char *path, const char *container_path, int width, int height, double fps, int crf,
                         const char *preset, wb_video_writer **writer, char *message, size_t message_size);

/* Encodes one frame shown at `seconds` (rising; a time that does not rise is
 * moved just past the one before). Returns 0, or an FFmpeg error code (the
 * disk is full: AVERROR(ENOSPC)) with `message`. */
int wb_video_writer_write(wb_video_writer *writer, const uint8_t *pixels, int format, double seconds, char *message,
                          size_t message_size);

/* Drains the encoder, writes the trailer (the MP4 index, moved to the front:
 * +faststart) and closes the file. Returns 0 or an FFmpeg error code. */
int wb_video_writer_finish(wb_video_writer *writer, char *message, size_t message_size);

/* Frees the writer, finished or not (a file not finished is not playable). */
void wb_video_writer_free(wb_video_writer *writer);

/* One row of `count` limited-range samples (luma, or chroma when `chroma` is
 * non-zero) to full range, as the video reader delivers every frame of a
 * limited-range video; `source` and `destination` do not overlap. */
void wb_video_expand_range(const uint8_t *source, uint8_t *destination, int count, int chroma);

/* Whether FFmpeg's error code means the disk is full. */
int wb_ffmpeg_error_is_full(int error);

/* Loads FFmpeg's libraries (libavformat, libavcodec, libavutil, libswscale),
 * which nothing links: once, on the first call of any function here. Returns
 * 0, or -1 with the loader's reason in `message` (may be NULL). */
int wb_ffmpeg_load(char *message, size_t message_size);

/* The libraries' versions, "libavformat 59.27.100, ...", or "" when they
 * cannot be loaded. */
const char *wb_ffmpeg_versions(void);

/* Whether FFmpeg has the decoder (or, with `encoder` non-zero, the encoder)
 * named `name`, such as "h264", "hevc" or "libx264": 1 or 0 (0 too when the
 * libraries cannot be loaded). */
int wb_ffmpeg_has_codec(const char *name, int encoder);

/* Converts full-range 4:2:0 planes (luma, then Cb, then Cr, each packed
 * row after row, as workbench's yuv420p images are) of width × height to
 * packed RGB (`rgb`, may be NULL) and luma (`gray`, may be NULL) of
 * out_width × out_height, through libswscale (its SIMD paths), scaling
 * when the sizes differ. The contexts are kept between calls. Returns 0,
 * or -1 with a message. */
typedef struct wb_pixel_converter wb_pixel_converter;
/* NULL when out of memory or when FFmpeg cannot be loaded (wb_ffmpeg_load says). */
wb_pixel_converter *wb_pixel_converter_new(void);
int wb_pixel_convert_yuv420p(wb_pixel_converter *converter, const uint8_t *planes, int width, int height, uint8_t *rgb,
                             uint8_t *gray, int out_width, int out_height, char *message, size_t message_size);
void wb_pixel_converter_free(wb_pixel_converter *converter);
#endif
