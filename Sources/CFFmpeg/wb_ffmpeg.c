#include "wb_ffmpeg.h"

#include "wb_ffmpeg_library.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The demuxers a recording may be read with, by FFmpeg's names. */
#define WB_VIDEO_CONTAINERS "mov,matroska,webm,avi,mpegts,mpeg,flv,asf,h264,hevc,ivf,m4v,mjpeg,nut,obu,gif"

struct wb_video {
  AVFormatContext *format;
  AVCodecContext *decoder;
  AVStream *stream;
  AVPacket *packet;
  AVFrame *frame;
  struct SwsContext *scaler;
  /* The scaler's output when the decoder's format is not 4:2:0 planar. */
  uint8_t *converted[4];
  int converted_stride[4];
  int converted_width, converted_height, converted_format;
  wb_video_info info;
  /* The decoder was sent the end of the stream and is being drained. */
  int draining;
  /* A decoded frame waits in `frame` for wb_video_deliver_frame. */
  int pending;
  /* The last frame's time, for frames without one. */
  double last_seconds;
  int has_last;
  uint8_t luma_range[256];
  uint8_t chroma_range[256];
};

/* FFmpeg logs through one global callback. Nothing is printed: the last
 * error of each thread is kept, so that a failure's message can say what
 * FFmpeg said about it ("moov atom not found"). */
static _Thread_local char last_log[256];

static void keep_last_error(void *context, int level, const char *format, va_list arguments) {
  (void)context;
  if (level > AV_LOG_ERROR) return;
  char line[256];
  vsnprintf(line, sizeof line, format, arguments);
  size_t length = strlen(line);
  while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == ' ')) line[--length] = 0;
  if (length > 0) memcpy(last_log, line, length + 1);
}

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

/* A damaged header can make a demuxer ask for gigabytes in one allocation
 * (an index or a probe buffer sized from the file). No frame or index of a
 * recording needs more than this, so FFmpeg fails with ENOMEM and the file is
 * reported as unreadable instead of exhausting the machine. */
#define WB_VIDEO_MAX_ALLOCATION ((size_t)256 << 20)

static void set_up_ffmpeg(void) {
  av_max_alloc(WB_VIDEO_MAX_ALLOCATION);
  if (getenv("WORKBENCH_FFMPEG_LOG") == NULL) av_log_set_callback(keep_last_error);
}

static void say(char *message, size_t size, const char *text, int error) {
  if (message == NULL || size == 0) return;
  char reason[AV_ERROR_MAX_STRING_SIZE] = "";
  if (error < 0) av_strerror(error, reason, sizeof reason);
  if (last_log[0] != 0 && error < 0)
    snprintf(message, size, "%s: %s (%s)", text, reason, last_log);
  else if (last_log[0] != 0)
    snprintf(message, size, "%s (%s)", text, last_log);
  else if (error < 0)
    snprintf(message, size, "%s: %s", text, reason);
  else
    snprintf(message, size, "%s", text);
  last_log[0] = 0;
}

static void copy_name(char *destination, size_t size, const char *name) {
  snprintf(destination, size, "%s", name ? name : "");
}

static int is_full_range(const AVCodecParameters *parameters) {
  if (parameters->color_range == AVCOL_RANGE_JPEG) return 1;
  switch (parameters->format) {
  case AV_PIX_FMT_YUVJ420P:
  case AV_PIX_FMT_YUVJ422P:
  case AV_PIX_FMT_YUVJ444P:
  case AV_PIX_FMT_YUVJ440P:
  case AV_PIX_FMT_YUVJ411P:
    return 1;
  default:
    return 0;
  }
}

/* Degrees clockwise that turn the stored picture upright, as ffmpeg's own
 * autorotation reads the display matrix; `mirrored` when the picture is then
 * also flipped left to right. A matrix that mirrors (negative determinant)
 * is a turn followed by that flip, the way ffmpeg 6's autorotation splits it:
 * a vertical flip is a half turn and the flip, a transpose a quarter turn
 * clockwise and the flip, an anti-transpose three quarters and the flip. */
static int rotation_of(const AVStream *stream, int *mirrored) {
  *mirrored = 0;
  const int32_t *matrix = (const int32_t *)av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
  if (matrix == NULL) return 0;
  double theta = -av_display_rotation_get(matrix);
  if (isnan(theta)) return 0;
  theta -= 360 * floor(theta / 360 + 0.9 / 360);
  double determinant = (double)matrix[0] * matrix[4] - (double)matrix[1] * matrix[3];
  int flips = determinant < 0;
  if (fabs(theta - 90) < 1) {
    *mirrored = flips && matrix[3] > 0;
    return 90;
  }
  if (fabs(theta - 180) < 1) {
    /* One of the axes reversed: a flip left to right (both: a plain half turn). */
    *mirrored = flips;
    return flips ? 0 : 180;
  }
  if (fabs(theta - 270) < 1) {
    *mirrored = flips && matrix[3] < 0;
    return 270;
  }
  /* Upright but mirrored: the rows reversed top to bottom. */
  *mirrored = flips;
  return flips ? 180 : 0;
}

static void expand_row_scalar(const uint8_t *restrict source, uint8_t *restrict destination, int count, int chroma);

static void fill_range_tables(wb_video *video) {
  for (int value = 0; value < 256; value++) {
    if (video->info.full_range) {
      video->luma_range[value] = (uint8_t)value;
      video->chroma_range[value] = (uint8_t)value;
      continue;
    }
    /* 16-235 luma and 16-240 chroma to 0-255, as JPEG stores them, the same as every row of a frame. */
    expand_row_scalar((const uint8_t[]){(uint8_t)value}, &video->luma_range[value], 1, 0);
    expand_row_scalar((const uint8_t[]){(uint8_t)value}, &video->chroma_range[value], 1, 1);
  }
}

int wb_video_open(const char *path, int decode, int threads, wb_video **reader, wb_video_info *info, char *message,
                  size_t message_size) {
  *reader = NULL;
  if (wb_ffmpeg_load(message, message_size) != 0) return WB_VIDEO_LIBRARY_MISSING;
  pthread_once(&setup_once, set_up_ffmpeg);
  last_log[0] = 0;
  wb_video *video = calloc(1, sizeof *video);
  if (video == NULL) return WB_VIDEO_NO_MEMORY;
  /* Video containers only: FFmpeg would otherwise read a text file as ANSI
   * art (tty), or follow a playlist (hls, concat) to other files and URLs. */
  AVDictionary *options = NULL;
  av_dict_set(&options, "format_whitelist", WB_VIDEO_CONTAINERS, 0);
  av_dict_set(&options, "protocol_whitelist", "file", 0);
  int status = avformat_open_input(&video->format, path, NULL, &options);
  av_dict_free(&options);
  if (status < 0 && strstr(last_log, "not on whitelist") != NULL) {
    last_log[0] = 0;
    say(message, message_size, "it is not a video container workbench reads", 0);
    free(video);
    return WB_VIDEO_NOT_MEDIA;
  }
  if (status < 0) {
    say(message, message_size, "FFmpeg cannot read it as a video file", status);
    free(video);
    return status == AVERROR(EACCES) || status == AVERROR(EIO) || status == AVERROR(ENOENT) ? WB_VIDEO_UNREADABLE
                                                                                            : WB_VIDEO_NOT_MEDIA;
  }
  status = avformat_find_stream_info(video->format, NULL);
  if (status < 0) {
    say(message, message_size, "FFmpeg could not find the streams in it", status);
    wb_video_close(video);
    return WB_VIDEO_NOT_MEDIA;
  }
  wb_video_info *out = &video->info;
  out->stream_index = -1;
  for (unsigned index = 0; index < video->format->nb_streams; index++) {
    const AVStream *stream = video->format->streams[index];
    switch (stream->codecpar->codec_type) {
    case AVMEDIA_TYPE_VIDEO:
      /* Cover art in an audio file is a picture, not a video. */
      if (stream->disposition & AV_DISPOSITION_ATTACHED_PIC) {
        out->other_streams++;
        break;
      }
      out->video_streams++;
      if (out->stream_index < 0 || stream->disposition & AV_DISPOSITION_DEFAULT) {
        if (out->stream_index < 0 || !(video->format->streams[out->stream_index]->disposition & AV_DISPOSITION_DEFAULT))
          out->stream_index = (int)index;
      }
      break;
    case AVMEDIA_TYPE_AUDIO:
      out->audio_streams++;
      break;
    default:
      out->other_streams++;
      break;
    }
  }
  copy_name(out->container, sizeof out->container, video->format->iformat->name);
  copy_name(out->container_long, sizeof out->container_long, video->format->iformat->long_name);
  out->duration = video->format->duration != AV_NOPTS_VALUE ? video->format->duration / (double)AV_TIME_BASE : -1;
  out->bit_rate = video->format->bit_rate;
  if (out->stream_index < 0) {
    say(message, message_size, "it has no video stream", 0);
    *info = *out;
    wb_video_close(video);
    return WB_VIDEO_NO_VIDEO;
  }
  AVStream *stream = video->format->streams[out->stream_index];
  video->stream = stream;
  /* Only the chosen stream's packets are wanted. */
  for (unsigned index = 0; index < video->format->nb_streams; index++)
    if ((int)index != out->stream_index) video->format->streams[index]->discard = AVDISCARD_ALL;
  const AVCodecParameters *parameters = stream->codecpar;
  const AVCodecDescriptor *descriptor = avcodec_descriptor_get(parameters->codec_id);
  copy_name(out->codec, sizeof out->codec,
            parameters->codec_id == AV_CODEC_ID_NONE ? "unknown"
            : descriptor                            ? descriptor->name
                                                    : avcodec_get_name(parameters->codec_id));
  copy_name(out->codec_long, sizeof out->codec_long, descriptor ? descriptor->long_name : "");
  copy_name(out->profile, sizeof out->profile, avcodec_profile_name(parameters->codec_id, parameters->profile));
  copy_name(out->pixel_format, sizeof out->pixel_format, av_get_pix_fmt_name(parameters->format));
  out->stored_width = parameters->width;
  out->stored_height = parameters->height;
  out->rotation = rotation_of(stream, &out->mirrored);
  int turned = out->rotation == 90 || out->rotation == 270;
  out->width = turned ? parameters->height : parameters->width;
  out->height = turned ? parameters->width : parameters->height;
  out->frame_count = stream->nb_frames > 0 ? stream->nb_frames : -1;
  out->time_base = av_q2d(stream->time_base);
  if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) out->duration = stream->duration * out->time_base;
  out->start_time = stream->start_time != AV_NOPTS_VALUE ? stream->start_time * out->time_base : 0;
  out->average_rate = stream->avg_frame_rate.den > 0 ? av_q2d(stream->avg_frame_rate) : 0;
  out->nominal_rate = stream->r_frame_rate.den > 0 ? av_q2d(stream->r_frame_rate) : 0;
  out->full_range = is_full_range(parameters);
  const AVCodec *codec = avcodec_find_decoder(parameters->codec_id);
  out->decodable = codec != NULL;
  *info = *out;
  if (!decode) {
    video->packet = av_packet_alloc();
    if (video->packet == NULL) {
      wb_video_close(video);
      return WB_VIDEO_NO_MEMORY;
    }
    *reader = video;
    return WB_VIDEO_OK;
  }
  if (parameters->width <= 0 || parameters->height <= 0 || parameters->width > WB_VIDEO_MAXIMUM_SIDE ||
      parameters->height > WB_VIDEO_MAXIMUM_SIDE ||
      (long)parameters->width * parameters->height > WB_VIDEO_MAXIMUM_PIXELS) {
    snprintf(message, message_size,
             "its video is %d×%d pixels, more than workbench reads (1 to %d pixels a side, at most %d pixels: "
             "7680×4320)",
             parameters->width, parameters->height, WB_VIDEO_MAXIMUM_SIDE, WB_VIDEO_MAXIMUM_PIXELS);
    wb_video_close(video);
    return WB_VIDEO_BAD_SIZE;
  }
  if (codec == NULL && parameters->codec_id == AV_CODEC_ID_NONE) {
    snprintf(message, message_size, "its video codec is not one FFmpeg knows");
    wb_video_close(video);
    return WB_VIDEO_NO_DECODER;
  }
  if (codec == NULL) {
    snprintf(message, message_size, "this build of FFmpeg has no decoder for its video codec (%s)", out->codec);
    wb_video_close(video);
    return WB_VIDEO_NO_DECODER;
  }
  video->decoder = avcodec_alloc_context3(codec);
  video->packet = av_packet_alloc();
  video->frame = av_frame_alloc();
  if (video->decoder == NULL || video->packet == NULL || video->frame == NULL) {
    wb_video_close(video);
    return WB_VIDEO_NO_MEMORY;
  }
  status = avcodec_parameters_to_context(video->decoder, parameters);
  if (status >= 0) {
    video->decoder->thread_count = threads > 0 ? threads : 1;
    video->decoder->pkt_timebase = stream->time_base;
    status = avcodec_open2(video->decoder, codec, NULL);
  }
  if (status < 0) {
    say(message, message_size, "the video decoder would not start", status);
    wb_video_close(video);
    return WB_VIDEO_DECODER_FAILED;
  }
  fill_range_tables(video);
  *reader = video;
  return WB_VIDEO_OK;
}

size_t wb_video_frame_bytes(const wb_video *video) {
  size_t width = (size_t)video->info.width, height = (size_t)video->info.height;
  return width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2);
}

/* One row of limited-range samples to full range: luma (v - 16) × 255/219,
 * chroma (v - 128) × 255/224 + 128, in 13-bit fixed point, within one level
 * of the exact value. */
static void expand_row_scalar(const uint8_t *restrict source, uint8_t *restrict destination, int count, int chroma) {
  const int offset = chroma ? 128 : 16, scale = chroma ? 9326 : 9539, base = chroma ? 128 : 0;
  for (int x = 0; x < count; x++) {
    int value = (((source[x] - offset) * scale + 4096) >> 13) + base;
    destination[x] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
  }
}

/* The same bytes as expand_row_scalar, sixteen samples a step in 16-bit
 * lanes: the compiler widens the scalar loop to 32-bit lanes, four samples
 * a vector, and so the expansion of a 1080p frame was half of workbench's
 * share of a run.
 * (d × s + 4096) >> 13 with s = 8192 + f/8 is d + ((d × f + 32768) >> 16),
 * f = 10776 (luma) or 9072 (chroma): a 16-bit multiply's high half, plus
 * one when its low half is 32768 or more; the pack clamps to 0...255. */
void wb_video_expand_range(const uint8_t *source, uint8_t *destination, int count, int chroma) {
  int x = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i offset = _mm_set1_epi16(chroma ? 128 : 16);
  const __m128i lowered = _mm_set1_epi16(chroma ? 0 : 16);
  const __m128i fraction = _mm_set1_epi16(chroma ? 9072 : 10776);
  for (; x + 16 <= count; x += 16) {
    __m128i bytes = _mm_loadu_si128((const __m128i *)(source + x));
    __m128i halves[2] = {_mm_unpacklo_epi8(bytes, zero), _mm_unpackhi_epi8(bytes, zero)};
    for (int half = 0; half < 2; half++) {
      __m128i centred = _mm_sub_epi16(halves[half], offset);
      __m128i high = _mm_mulhi_epi16(centred, fraction), low = _mm_mullo_epi16(centred, fraction);
      __m128i rounded = _mm_add_epi16(high, _mm_srli_epi16(low, 15));
      halves[half] = _mm_add_epi16(_mm_sub_epi16(halves[half], lowered), rounded);
    }
    _mm_storeu_si128((__m128i *)(destination + x), _mm_packus_epi16(halves[0], halves[1]));
  }
#endif
  expand_row_scalar(source + x, destination + x, count - x, chroma);
}

/* Two rows of `width` samples (even), `top` and the one after it, to one
 * row of the rounded means of their 2×2 blocks: what libswscale's area
 * filter gives at exactly half the size, to the bit (checked on random,
 * binary and smooth planes from 64×64 to 3840×2160), in a tenth of its
 * time, since it needs no filter. Each pair of pixels is read as one 16-bit
 * word (their sum does not depend on the byte order): the compiler
 * vectorizes that loop, not one that reads every other byte. */
static void halve_rows(const uint8_t *restrict top, int width, uint8_t *restrict destination) {
  const uint8_t *bottom = top + width;
  for (int x = 0; x < width / 2; x++) {
    uint16_t upper, lower;
    memcpy(&upper, top + 2 * x, 2);
    memcpy(&lower, bottom + 2 * x, 2);
    destination[x] = (uint8_t)(((upper & 255) + (upper >> 8) + (lower & 255) + (lower >> 8) + 2) >> 2);
  }
}

/* Copies one plane of `width`×`height` into tightly packed rows, turned
 * `rotation` degrees clockwise, expanding limited range to full range unless
 * the video is full range already. With `half` (upright planes of even
 * sides only), also the plane at half size, each pair of rows halved as
 * soon as it is written, while it is in cache: halving the frame later
 * read it back from memory (1080p: about 0.2 ms a frame, most of it spent
 * waiting for the loads). */
static void put_plane(const uint8_t *source, int stride, int width, int height, uint8_t *destination, int rotation,
                      const uint8_t *table, int expand, int chroma, uint8_t *half) {
  switch (rotation) {
  case 90:
    /* (x, y) goes to (height - 1 - y, x) in a picture `height` wide. */
    for (int y = 0; y < height; y++) {
      const uint8_t *row = source + (size_t)y * stride;
      uint8_t *column = destination + (height - 1 - y);
      for (int x = 0; x < width; x++) column[(size_t)x * height] = table[row[x]];
    }
    break;
  case 180:
    for (int y = 0; y < height; y++) {
      const uint8_t *row = source + (size_t)y * stride;
      uint8_t *out = destination + (size_t)(height - 1 - y) * width;
      for (int x = 0; x < width; x++) out[width - 1 - x] = table[row[x]];
    }
    break;
  case 270:
    /* (x, y) goes to (y, width - 1 - x). */
    for (int y = 0; y < height; y++) {
      const uint8_t *row = source + (size_t)y * stride;
      for (int x = 0; x < width; x++) destination[(size_t)(width - 1 - x) * height + y] = table[row[x]];
    }
    break;
  default:
    for (int y = 0; y < height; y++) {
      const uint8_t *row = source + (size_t)y * stride;
      uint8_t *out = destination + (size_t)y * width;
      if (expand)
        wb_video_expand_range(row, out, width, chroma);
      else
        memcpy(out, row, (size_t)width);
      if (half != NULL && y % 2 == 1) halve_rows(out - width, width, half + (size_t)(y / 2) * (width / 2));
    }
    break;
  }
}

/* Reverses every row of a tightly packed plane: the display matrix's mirror,
 * after its turn. */
static void mirror_plane(uint8_t *plane, int width, int height) {
  for (int y = 0; y < height; y++) {
    uint8_t *row = plane + (size_t)y * width;
    for (int left = 0, right = width - 1; left < right; left++, right--) {
      uint8_t swap = row[left];
      row[left] = row[right];
      row[right] = swap;
    }
  }
}

static int is_planar_420(int format) { return format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P; }

/* The decoded frame as full-range 4:2:0 planes in `destination`, upright,
 * and at half size in `half` when that is not NULL and the frame can be
 * halved as it is copied (`*half_made` says). */
static int deliver(wb_video *video, uint8_t *destination, uint8_t *half, int *half_made, char *message,
                   size_t message_size) {
  AVFrame *frame = video->frame;
  const uint8_t *planes[3] = {frame->data[0], frame->data[1], frame->data[2]};
  int strides[3] = {frame->linesize[0], frame->linesize[1], frame->linesize[2]};
  int width = frame->width, height = frame->height;
  if (width != video->info.stored_width || height != video->info.stored_height) {
    snprintf(message, message_size, "a frame of %d×%d in a video of %d×%d", width, height, video->info.stored_width,
             video->info.stored_height);
    return WB_VIDEO_DAMAGED;
  }
  if (!is_planar_420(frame->format)) {
    /* swscale only where the decoder's format is not already 4:2:0 planar;
     * it keeps the range (a J format stays full range). */
    enum AVPixelFormat target = video->info.full_range ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P;
    if (video->converted[0] == NULL || video->converted_width != width || video->converted_height != height ||
        video->converted_format != frame->format) {
      av_freep(&video->converted[0]);
      if (av_image_alloc(video->converted, video->converted_stride, width, height, target, 32) < 0) {
        snprintf(message, message_size, "out of memory converting a %d×%d frame", width, height);
        return WB_VIDEO_ERROR;
      }
      video->converted_width = width;
      video->converted_height = height;
      video->converted_format = frame->format;
    }
    video->scaler = sws_getCachedContext(video->scaler, width, height, frame->format, width, height, target,
                                         SWS_BILINEAR, NULL, NULL, NULL);
    if (video->scaler == NULL) {
      snprintf(message, message_size, "cannot convert frames of pixel format %s",
               av_get_pix_fmt_name(frame->format) ? av_get_pix_fmt_name(frame->format) : "unknown");
      return WB_VIDEO_ERROR;
    }
    sws_scale(video->scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, height, video->converted,
              video->converted_stride);
    for (int plane = 0; plane < 3; plane++) {
      planes[plane] = video->converted[plane];
      strides[plane] = video->converted_stride[plane];
    }
  }
  int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
  uint8_t *luma = destination;
  uint8_t *blue = luma + (size_t)width * height;
  uint8_t *red = blue + (size_t)chroma_width * chroma_height;
  int rotation = video->info.rotation, expand = !video->info.full_range;
  /* Halved as the converter would halve it: both sides of the half-size picture even. */
  int halves = half != NULL && rotation == 0 && !video->info.mirrored && width % 4 == 0 && height % 4 == 0;
  uint8_t *half_blue = halves ? half + (size_t)(width / 2) * (height / 2) : NULL;
  uint8_t *half_red = halves ? half_blue + (size_t)(width / 4) * (height / 4) : NULL;
  if (half_made != NULL) *half_made = halves;
  put_plane(planes[0], strides[0], width, height, luma, rotation, video->luma_range, expand, 0, halves ? half : NULL);
  put_plane(planes[1], strides[1], chroma_width, chroma_height, blue, rotation, video->chroma_range, expand, 1,
            half_blue);
  put_plane(planes[2], strides[2], chroma_width, chroma_height, red, rotation, video->chroma_range, expand, 1,
            half_red);
  if (video->info.mirrored) {
    int turned = rotation == 90 || rotation == 270;
    mirror_plane(luma, turned ? height : width, turned ? width : height);
    mirror_plane(blue, turned ? chroma_height : chroma_width, turned ? chroma_width : chroma_height);
    mirror_plane(red, turned ? chroma_height : chroma_width, turned ? chroma_width : chroma_height);
  }
  return WB_VIDEO_FRAME;
}

static void time_of_frame(wb_video *video, double *seconds, long long *ticks, int *has_time) {
  int64_t timestamp = video->frame->best_effort_timestamp;
  if (timestamp == AV_NOPTS_VALUE) timestamp = video->frame->pts;
  if (timestamp != AV_NOPTS_VALUE) {
    *ticks = timestamp;
    *seconds = timestamp * video->info.time_base;
    *has_time = 1;
  } else {
    double rate = video->info.average_rate > 0 ? video->info.average_rate : video->info.nominal_rate;
    *ticks = 0;
    *seconds = video->has_last ? video->last_seconds + (rate > 0 ? 1 / rate : 1.0 / 30) : 0;
    *has_time = 0;
  }
  video->last_seconds = *seconds;
  video->has_last = 1;
}

int wb_video_read_frame(wb_video *video, uint8_t *destination, size_t capacity, double *seconds, long long *ticks,
                        int *has_time, char *message, size_t message_size) {
  if (video->decoder == NULL) {
    snprintf(message, message_size, "the reader was opened without its decoder");
    return WB_VIDEO_ERROR;
  }
  if (destination != NULL && capacity < wb_video_frame_bytes(video)) {
    snprintf(message, message_size, "a frame needs %zu bytes, the buffer has %zu", wb_video_frame_bytes(video),
             capacity);
    return WB_VIDEO_ERROR;
  }
  if (video->pending) {
    av_frame_unref(video->frame);
    video->pending = 0;
  }
  last_log[0] = 0;
  for (;;) {
    int status = avcodec_receive_frame(video->decoder, video->frame);
    if (status == 0) {
      time_of_frame(video, seconds, ticks, has_time);
      int result;
      if (video->frame->decode_error_flags != 0 || video->frame->flags & AV_FRAME_FLAG_CORRUPT) {
        say(message, message_size, "the decoder reported a damaged frame", 0);
        result = WB_VIDEO_DAMAGED;
      } else if (destination == NULL) {
        video->pending = 1;
        return WB_VIDEO_FRAME;
      } else {
        result = deliver(video, destination, NULL, NULL, message, message_size);
      }
      av_frame_unref(video->frame);
      return result;
    }
    if (status == AVERROR_EOF) return WB_VIDEO_END;
    if (status != AVERROR(EAGAIN)) {
      say(message, message_size, "the decoder failed", status);
      return WB_VIDEO_ERROR;
    }
    if (video->draining) return WB_VIDEO_END;
    status = av_read_frame(video->format, video->packet);
    if (status < 0) {
      /* The end, or a file cut short: the decoder gives what it holds. */
      video->draining = 1;
      avcodec_send_packet(video->decoder, NULL);
      if (status != AVERROR_EOF) {
        say(message, message_size, "reading stopped before the end of the file", status);
        return WB_VIDEO_DAMAGED;
      }
      continue;
    }
    if (video->packet->stream_index != video->info.stream_index) {
      av_packet_unref(video->packet);
      continue;
    }
    status = avcodec_send_packet(video->decoder, video->packet);
    av_packet_unref(video->packet);
    if (status < 0 && status != AVERROR(EAGAIN)) {
      say(message, message_size, "a frame could not be decoded", status);
      return WB_VIDEO_DAMAGED;
    }
  }
}

int wb_video_deliver_frame(wb_video *video, uint8_t *destination, size_t capacity, uint8_t *half,
                           size_t half_capacity, int *half_made, char *message, size_t message_size) {
  if (half_made != NULL) *half_made = 0;
  if (!video->pending) {
    snprintf(message, message_size, "no decoded frame waits to be delivered");
    return WB_VIDEO_ERROR;
  }
  if (capacity < wb_video_frame_bytes(video)) {
    snprintf(message, message_size, "a frame needs %zu bytes, the buffer has %zu", wb_video_frame_bytes(video),
             capacity);
    return WB_VIDEO_ERROR;
  }
  size_t half_width = (size_t)video->info.width / 2, half_height = (size_t)video->info.height / 2;
  if (half != NULL && half_capacity < half_width * half_height + 2 * ((half_width + 1) / 2) * ((half_height + 1) / 2))
    half = NULL;
  int result = deliver(video, destination, half, half_made, message, message_size);
  av_frame_unref(video->frame);
  video->pending = 0;
  return result;
}

int wb_video_read_packet(wb_video *video, double *seconds, int *has_time, int *keyframe, int *size, char *message,
                         size_t message_size) {
  last_log[0] = 0;
  for (;;) {
    int status = av_read_frame(video->format, video->packet);
    if (status == AVERROR_EOF) return WB_VIDEO_END;
    if (status < 0) {
      say(message, message_size, "reading stopped before the end of the file", status);
      return WB_VIDEO_DAMAGED;
    }
    if (video->packet->stream_index != video->info.stream_index) {
      av_packet_unref(video->packet);
      continue;
    }
    int64_t timestamp = video->packet->pts;
    *has_time = timestamp != AV_NOPTS_VALUE;
    *seconds = *has_time ? timestamp * video->info.time_base : 0;
    *keyframe = (video->packet->flags & AV_PKT_FLAG_KEY) != 0;
    *size = video->packet->size;
    av_packet_unref(video->packet);
    return WB_VIDEO_FRAME;
  }
}

void wb_video_close(wb_video *video) {
  if (video == NULL) return;
  sws_freeContext(video->scaler);
  av_freep(&video->converted[0]);
  av_frame_free(&video->frame);
  av_packet_free(&video->packet);
  avcodec_free_context(&video->decoder);
  avformat_close_input(&video->format);
  free(video);
}

static char versions_text[160];

static void fill_versions(void) {
  unsigned format = avformat_version(), codec = avcodec_version(), scale = swscale_version();
  snprintf(versions_text, sizeof versions_text, "libavformat %u.%u.%u, libavcodec %u.%u.%u, libswscale %u.%u.%u",
           AV_VERSION_MAJOR(format), AV_VERSION_MINOR(format), AV_VERSION_MICRO(format), AV_VERSION_MAJOR(codec),
           AV_VERSION_MINOR(codec), AV_VERSION_MICRO(codec), AV_VERSION_MAJOR(scale), AV_VERSION_MINOR(scale),
           AV_VERSION_MICRO(scale));
}

const char *wb_ffmpeg_versions(void) {
  if (wb_ffmpeg_load(NULL, 0) != 0) return "";
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, fill_versions);
  return versions_text;
}

int wb_ffmpeg_has_codec(const char *name, int encoder) {
  if (wb_ffmpeg_load(NULL, 0) != 0) return 0;
  const AVCodec *codec = encoder ? avcodec_find_encoder_by_name(name) : avcodec_find_decoder_by_name(name);
  return codec != NULL;
}

/* ---- Writing ---- */

struct wb_video_writer {
  AVFormatContext *format;
  AVCodecContext *encoder;
  AVStream *stream;
  AVFrame *frame;
  AVFrame *converted;
  AVPacket *packet;
  struct SwsContext *scaler;
  /* Encoded size (even), and the size of the frames given. */
  int width, height;
  int source_width, source_height;
  int64_t last_pts;
  int header_written;
  int finished;
};

#define WB_WRITER_TICKS 90000

int wb_ffmpeg_error_is_full(int error) { return error == AVERROR(ENOSPC) || error == AVERROR(EDQUOT); }

void wb_video_writer_free(wb_video_writer *writer) {
  if (writer == NULL) return;
  if (writer->format != NULL && writer->format->pb != NULL) avio_closep(&writer->format->pb);
  avformat_free_context(writer->format);
  avcodec_free_context(&writer->encoder);
  av_frame_free(&writer->frame);
  av_frame_free(&writer->converted);
  av_packet_free(&writer->packet);
  sws_freeContext(writer->scaler);
  free(writer);
}

int wb_video_writer_open(const char *path, const char *container_path, int width, int height, double fps, int crf,
                         const char *preset, wb_video_writer **out, char *message, size_t message_size) {
  *out = NULL;
  if (wb_ffmpeg_load(message, message_size) != 0) return AVERROR(ELIBACC);
  pthread_once(&setup_once, set_up_ffmpeg);
  last_log[0] = 0;
  const AVOutputFormat *container = av_guess_format(NULL, container_path, NULL);
  if (container == NULL) {
    snprintf(message, message_size, "no container is known for the name %s", container_path);
    return AVERROR(EINVAL);
  }
  const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
  if (codec == NULL) codec = avcodec_find_encoder(AV_CODEC_ID_H264);
  if (codec == NULL) {
    snprintf(message, message_size, "this build of FFmpeg has no H.264 encoder");
    return AVERROR_ENCODER_NOT_FOUND;
  }
  wb_video_writer *writer = calloc(1, sizeof *writer);
  if (writer == NULL) return AVERROR(ENOMEM);
  /* x264 encodes 4:2:0 in even sizes: an odd last row or column is left out. */
  writer->width = width & ~1;
  writer->height = height & ~1;
  writer->source_width = width;
  writer->source_height = height;
  writer->last_pts = INT64_MIN;
  int status = avformat_alloc_output_context2(&writer->format, container, NULL, path);
  if (status < 0) {
    say(message, message_size, "cannot set up the container", status);
    wb_video_writer_free(writer);
    return status;
  }
  AVCodecContext *encoder = avcodec_alloc_context3(codec);
  writer->encoder = encoder;
  writer->frame = av_frame_alloc();
  writer->packet = av_packet_alloc();
  if (encoder == NULL || writer->frame == NULL || writer->packet == NULL || writer->width < 2 ||
      writer->height < 2) {
    snprintf(message, message_size, "cannot encode frames of %d×%d", width, height);
    wb_video_writer_free(writer);
    return AVERROR(EINVAL);
  }
  encoder->width = writer->width;
  encoder->height = writer->height;
  encoder->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder->color_range = AVCOL_RANGE_JPEG;
  encoder->time_base = (AVRational){1, WB_WRITER_TICKS};
  encoder->framerate = av_d2q(fps > 0 ? fps : 30, 100000);
  /* A keyframe every second: each starts a fragment (and a Matroska cluster). */
  encoder->gop_size = (int)fmax(1, lround(fps > 0 ? fps : 30));
  encoder->max_b_frames = 0;
  /* One thread: the encoder already runs beside the frame loop, on a thread of its own. */
  encoder->thread_count = 1;
  if (writer->format->oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (preset != NULL) av_opt_set(encoder->priv_data, "preset", preset, 0);
  av_opt_set_double(encoder->priv_data, "crf", crf, 0);
  status = avcodec_open2(encoder, codec, NULL);
  if (status < 0) {
    say(message, message_size, "the H.264 encoder would not start", status);
    wb_video_writer_free(writer);
    return status;
  }
  writer->stream = avformat_new_stream(writer->format, NULL);
  if (writer->stream == NULL) {
    wb_video_writer_free(writer);
    return AVERROR(ENOMEM);
  }
  writer->stream->time_base = encoder->time_base;
  avcodec_parameters_from_context(writer->stream->codecpar, encoder);
  status = avio_open(&writer->format->pb, path, AVIO_FLAG_WRITE);
  if (status < 0) {
    say(message, message_size, "cannot create the file", status);
    wb_video_writer_free(writer);
    return status;
  }
  AVDictionary *options = NULL;
  /* Fragmented MP4: an empty index first, then a fragment (moof and its
   * frames) at every keyframe, at most a second apart. A process killed
   * outright, or a disk that fills, leaves a file that plays up to its last
   * whole fragment, where a single index written at the end would leave
   * nothing that plays. */
  if (strstr(writer->format->oformat->name, "mp4") != NULL || strstr(writer->format->oformat->name, "mov") != NULL) {
    av_dict_set(&options, "movflags", "+frag_keyframe+empty_moov+default_base_moof", 0);
    av_dict_set(&options, "frag_duration", "1000000", 0);
  }
  status = avformat_write_header(writer->format, &options);
  av_dict_free(&options);
  if (status < 0) {
    say(message, message_size, "cannot write the file's header", status);
    wb_video_writer_free(writer);
    return status;
  }
  writer->header_written = 1;
  *out = writer;
  return 0;
}

/* Writes every packet the encoder has ready. */
static int drain_packets(wb_video_writer *writer, char *message, size_t message_size) {
  for (;;) {
    int status = avcodec_receive_packet(writer->encoder, writer->packet);
    if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
    if (status < 0) {
      say(message, message_size, "the encoder failed", status);
      return status;
    }
    /* Without a duration, MP4's edit list ends at the last frame's start and
     * players drop that frame: each frame lasts one frame at the nominal rate. */
    if (writer->packet->duration <= 0)
      writer->packet->duration = av_rescale_q(1, av_inv_q(writer->encoder->framerate), writer->encoder->time_base);
    av_packet_rescale_ts(writer->packet, writer->encoder->time_base, writer->stream->time_base);
    writer->packet->stream_index = writer->stream->index;
    status = av_interleaved_write_frame(writer->format, writer->packet);
    av_packet_unref(writer->packet);
    if (status < 0) {
      say(message, message_size, "cannot write to the file", status);
      return status;
    }
  }
}

int wb_video_writer_write(wb_video_writer *writer, const uint8_t *pixels, int format, double seconds, char *message,
                          size_t message_size) {
  last_log[0] = 0;
  AVFrame *frame = writer->frame;
  av_frame_unref(frame);
  int width = writer->width, height = writer->height;
  if (format == WB_PIXELS_RGB24) {
    if (writer->converted == NULL) {
      writer->converted = av_frame_alloc();
      if (writer->converted == NULL) return AVERROR(ENOMEM);
      writer->converted->format = AV_PIX_FMT_YUV420P;
      writer->converted->width = width;
      writer->converted->height = height;
      int status = av_frame_get_buffer(writer->converted, 0);
      if (status < 0) return status;
      writer->scaler = sws_getContext(width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUVJ420P,
                                      SWS_BILINEAR, NULL, NULL, NULL);
      if (writer->scaler == NULL) {
        snprintf(message, message_size, "cannot convert RGB frames to 4:2:0");
        return AVERROR(EINVAL);
      }
    }
    int status = av_frame_make_writable(writer->converted);
    if (status < 0) return status;
    /* The rows are as wide as the frame given, which may be one wider than the encoded one. */
    const uint8_t *source[1] = {pixels};
    const int strides[1] = {writer->source_width * 3};
    sws_scale(writer->scaler, source, strides, 0, height, writer->converted->data, writer->converted->linesize);
    status = av_frame_ref(frame, writer->converted);
    if (status < 0) return status;
  } else {
    /* The caller's planes, used in place: the encoder copies what it keeps. */
    frame->format = AV_PIX_FMT_YUV420P;
    frame->width = width;
    frame->height = height;
    /* Planes of the size given; an odd last row or column is not encoded. */
    int given_width = writer->source_width, given_height = writer->source_height;
    int chroma_width = (given_width + 1) / 2, chroma_height = (given_height + 1) / 2;
    frame->data[0] = (uint8_t *)pixels;
    frame->linesize[0] = given_width;
    frame->data[1] = (uint8_t *)pixels + (size_t)given_width * given_height;
    frame->linesize[1] = chroma_width;
    frame->data[2] = frame->data[1] + (size_t)chroma_width * chroma_height;
    frame->linesize[2] = chroma_width;
  }
  frame->color_range = AVCOL_RANGE_JPEG;
  int64_t pts = llround(seconds * WB_WRITER_TICKS);
  if (writer->last_pts != INT64_MIN && pts <= writer->last_pts) pts = writer->last_pts + 1;
  writer->last_pts = pts;
  frame->pts = pts;
  int status = avcodec_send_frame(writer->encoder, frame);
  av_frame_unref(frame);
  if (status < 0) {
    say(message, message_size, "the encoder refused a frame", status);
    return status;
  }
  return drain_packets(writer, message, message_size);
}

int wb_video_writer_finish(wb_video_writer *writer, char *message, size_t message_size) {
  if (writer->finished) return 0;
  writer->finished = 1;
  last_log[0] = 0;
  int status = avcodec_send_frame(writer->encoder, NULL);
  if (status >= 0) status = drain_packets(writer, message, message_size);
  int trailer = av_write_trailer(writer->format);
  if (status >= 0 && trailer < 0) {
    say(message, message_size, "cannot finish the file", trailer);
    status = trailer;
  }
  int closed = avio_closep(&writer->format->pb);
  if (status >= 0 && closed < 0) {
    say(message, message_size, "cannot close the file", closed);
    status = closed;
  }
  return status < 0 ? status : 0;
}

/* ---- Pixel conversion ---------------------------------------------------- */

struct wb_pixel_converter {
  struct SwsContext *color;
  struct SwsContext *scale;
  uint8_t *scaled;
  size_t scaled_capacity;
};

wb_pixel_converter *wb_pixel_converter_new(void) {
  if (wb_ffmpeg_load(NULL, 0) != 0) return NULL;
  pthread_once(&setup_once, set_up_ffmpeg);
  return calloc(1, sizeof(wb_pixel_converter));
}

void wb_pixel_converter_free(wb_pixel_converter *converter) {
  if (converter == NULL) return;
  sws_freeContext(converter->color);
  sws_freeContext(converter->scale);
  free(converter->scaled);
  free(converter);
}

/* Full range in and out, BT.601: the planes are full range (the video
 * reader expands limited range), as JPEG's are. */
static struct SwsContext *full_range_context(struct SwsContext *cached, int width, int height,
                                             enum AVPixelFormat from, int out_width, int out_height,
                                             enum AVPixelFormat to, int flags) {
  struct SwsContext *context =
      sws_getCachedContext(cached, width, height, from, out_width, out_height, to, flags, NULL, NULL, NULL);
  if (context == NULL) return NULL;
  const int *coefficients = sws_getCoefficients(SWS_CS_ITU601);
  sws_setColorspaceDetails(context, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16);
  return context;
}

/* The three planes of a packed 4:2:0 image at `base`. */
static void plane_pointers(uint8_t *base, int width, int height, uint8_t *planes[4], int strides[4]) {
  int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
  planes[0] = base;
  planes[1] = base + (size_t)width * height;
  planes[2] = planes[1] + (size_t)chroma_width * chroma_height;
  planes[3] = NULL;
  strides[0] = width;
  strides[1] = chroma_width;
  strides[2] = chroma_width;
  strides[3] = 0;
}

/* Each 2×2 block of a `width`×`height` plane (both even) to its rounded
 * mean (halve_rows): what libswscale's area filter gives at exactly half
 * the size, to the bit, in a tenth of its time. */
static void halve_plane(const uint8_t *restrict source, int width, int height, uint8_t *restrict destination) {
  for (int y = 0; y < height / 2; y++)
    halve_rows(source + (size_t)2 * y * width, width, destination + (size_t)y * (width / 2));
}

int wb_pixel_convert_yuv420p(wb_pixel_converter *converter, const uint8_t *planes, int width, int height, uint8_t *rgb,
                             uint8_t *gray, int out_width, int out_height, char *message, size_t message_size) {
  if (width < 2 || height < 2 || out_width < 2 || out_height < 2) {
    snprintf(message, message_size, "cannot convert a %d×%d frame to %d×%d", width, height, out_width, out_height);
    return -1;
  }
  uint8_t *source[4];
  int strides[4];
  plane_pointers((uint8_t *)planes, width, height, source, strides);
  if (out_width != width || out_height != height) {
    /* Scale the planes first (the luma is then the gray), then convert at
     * the small size: 1080p to half took 2.8 ms through libswscale's scaled
     * path to packed RGB, 0.8 ms in these two steps. Area averaging: the
     * closest to a 2×2 mean of the choices, at the same cost. */
    size_t needed = (size_t)out_width * out_height + 2 * (size_t)((out_width + 1) / 2) * ((out_height + 1) / 2) + 64;
    if (needed > converter->scaled_capacity) {
      free(converter->scaled);
      converter->scaled = malloc(needed);
      converter->scaled_capacity = converter->scaled ? needed : 0;
      if (converter->scaled == NULL) {
        snprintf(message, message_size, "out of memory scaling a %d×%d frame", width, height);
        return -1;
      }
    }
    uint8_t *scaled[4];
    int scaled_strides[4];
    plane_pointers(converter->scaled, out_width, out_height, scaled, scaled_strides);
    if (width == 2 * out_width && height == 2 * out_height && out_width % 2 == 0 && out_height % 2 == 0) {
      /* Exactly half, chroma planes included (720p and 1080p to what the
       * face model needs): 0.03 ms for 720p where libswscale took 0.25. */
      halve_plane(source[0], width, height, scaled[0]);
      halve_plane(source[1], width / 2, height / 2, scaled[1]);
      halve_plane(source[2], width / 2, height / 2, scaled[2]);
    } else {
      converter->scale = full_range_context(converter->scale, width, height, AV_PIX_FMT_YUV420P, out_width,
                                            out_height, AV_PIX_FMT_YUV420P, SWS_AREA);
      if (converter->scale == NULL) {
        snprintf(message, message_size, "libswscale cannot scale %d×%d 4:2:0 to %d×%d", width, height, out_width,
                 out_height);
        return -1;
      }
      sws_scale(converter->scale, (const uint8_t *const *)source, strides, 0, height, scaled, scaled_strides);
    }
    memcpy(source, scaled, sizeof scaled);
    memcpy(strides, scaled_strides, sizeof strides);
    width = out_width;
    height = out_height;
  }
  if (rgb != NULL) {
    /* libswscale 5.1's SIMD conversion goes wrong on rows whose width is
     * not a multiple of 16 (measured: colours off by up to 228 all along
     * the row). It converts the widest multiple of 16; a plain loop with
     * JPEG's equations the columns after it. */
    int simd_width = width & ~15;
    if (simd_width > 0) {
      converter->color = full_range_context(converter->color, simd_width, height, AV_PIX_FMT_YUV420P, simd_width,
                                            height, AV_PIX_FMT_RGB24, SWS_BILINEAR);
      if (converter->color == NULL) {
        snprintf(message, message_size, "libswscale cannot convert %d×%d 4:2:0 to RGB", width, height);
        return -1;
      }
      uint8_t *out[4] = {rgb, NULL, NULL, NULL};
      int out_strides[4] = {width * 3, 0, 0, 0};
      sws_scale(converter->color, (const uint8_t *const *)source, strides, 0, height, out, out_strides);
    }
    for (int y = 0; y < height; y++) {
      const uint8_t *luma = source[0] + (size_t)y * strides[0];
      const uint8_t *blue = source[1] + (size_t)(y >> 1) * strides[1];
      const uint8_t *red = source[2] + (size_t)(y >> 1) * strides[2];
      uint8_t *out = rgb + (size_t)y * width * 3;
      for (int x = simd_width; x < width; x++) {
        int cb = blue[x >> 1] - 128, cr = red[x >> 1] - 128, l = luma[x];
        int r = l + ((91881 * cr + 32768) >> 16);
        int g = l + ((-22554 * cb - 46802 * cr + 32768) >> 16);
        int b = l + ((116130 * cb + 32768) >> 16);
        out[x * 3] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        out[x * 3 + 1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
        out[x * 3 + 2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
      }
    }
  }
  if (gray != NULL) memcpy(gray, source[0], (size_t)width * height);
  return 0;
}
