/* FFmpeg's libraries, opened on first use (dlopen) instead of at start-up.
 *
 * libavformat and libavcodec pull in about a hundred codec and container
 * libraries; mapping them cost 27 ms of every process, `workbench --version`
 * included, and a machine without them could not even run `workbench doctor`
 * to be told so. wb_ffmpeg.c calls FFmpeg by its usual names: after this
 * header, each name is a pointer in `wb_ffmpeg_functions`, filled by
 * wb_ffmpeg_load(). The FFmpeg headers still give the types and macros. */
#ifndef WB_FFMPEG_LIBRARY_H
#define WB_FFMPEG_LIBRARY_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <stddef.h>

#include "wb_ffmpeg.h"

/* Every FFmpeg function wb_ffmpeg.c calls, here and in the macros at the end.
 * A call missing from either fails the link (no FFmpeg library is linked), so
 * the lists cannot fall behind the code. */
#define WB_FFMPEG_FUNCTIONS(X)                                                                                         \
  X(av_d2q)                                                                                                            \
  X(av_dict_free)                                                                                                      \
  X(av_dict_set)                                                                                                       \
  X(av_display_rotation_get)                                                                                           \
  X(av_frame_alloc)                                                                                                    \
  X(av_frame_free)                                                                                                     \
  X(av_frame_get_buffer)                                                                                               \
  X(av_frame_make_writable)                                                                                            \
  X(av_frame_ref)                                                                                                      \
  X(av_frame_unref)                                                                                                    \
  X(av_freep)                                                                                                          \
  X(av_get_pix_fmt_name)                                                                                               \
  X(av_guess_format)                                                                                                   \
  X(av_image_alloc)                                                                                                    \
  X(av_interleaved_write_frame)                                                                                        \
  X(av_log_set_callback)                                                                                               \
  X(av_max_alloc)                                                                                                      \
  X(av_opt_set)                                                                                                        \
  X(av_opt_set_double)                                                                                                 \
  X(av_packet_alloc)                                                                                                   \
  X(av_packet_free)                                                                                                    \
  X(av_packet_rescale_ts)                                                                                              \
  X(av_packet_unref)                                                                                                   \
  X(av_read_frame)                                                                                                     \
  X(av_rescale_q)                                                                                                      \
  X(av_stream_get_side_data)                                                                                           \
  X(av_strerror)                                                                                                       \
  X(av_write_trailer)                                                                                                  \
  X(avcodec_alloc_context3)                                                                                            \
  X(avcodec_descriptor_get)                                                                                            \
  X(avcodec_find_decoder)                                                                                              \
  X(avcodec_find_decoder_by_name)                                                                                      \
  X(avcodec_find_encoder)                                                                                              \
  X(avcodec_find_encoder_by_name)                                                                                      \
  X(avcodec_free_context)                                                                                              \
  X(avcodec_get_name)                                                                                                  \
  X(avcodec_open2)                                                                                                     \
  X(avcodec_parameters_from_context)                                                                                   \
  X(avcodec_parameters_to_context)                                                                                     \
  X(avcodec_profile_name)                                                                                              \
  X(avcodec_receive_frame)                                                                                             \
  X(avcodec_receive_packet)                                                                                            \
  X(avcodec_send_frame)                                                                                                \
  X(avcodec_send_packet)                                                                                               \
  X(avcodec_version)                                                                                                   \
  X(avformat_alloc_output_context2)                                                                                    \
  X(avformat_close_input)                                                                                              \
  X(avformat_find_stream_info)                                                                                         \
  X(avformat_free_context)                                                                                             \
  X(avformat_new_stream)                                                                                               \
  X(avformat_open_input)                                                                                               \
  X(avformat_version)                                                                                                  \
  X(avformat_write_header)                                                                                             \
  X(avio_closep)                                                                                                       \
  X(avio_open)                                                                                                         \
  X(sws_freeContext)                                                                                                   \
  X(sws_getCachedContext)                                                                                              \
  X(sws_getCoefficients)                                                                                               \
  X(sws_getContext)                                                                                                    \
  X(sws_scale)                                                                                                         \
  X(sws_setColorspaceDetails)                                                                                          \
  X(swscale_version)

struct wb_ffmpeg_functions {
#define WB_FFMPEG_POINTER(name) __typeof__(name) *name;
  WB_FFMPEG_FUNCTIONS(WB_FFMPEG_POINTER)
#undef WB_FFMPEG_POINTER
};

extern struct wb_ffmpeg_functions wb_ffmpeg_functions;

#ifndef WB_FFMPEG_LOADER
/* A macro's own name is not expanded again inside its expansion, so each of
 * these reads the pointer of the same name. */
#define av_d2q (wb_ffmpeg_functions.av_d2q)
#define av_dict_free (wb_ffmpeg_functions.av_dict_free)
#define av_dict_set (wb_ffmpeg_functions.av_dict_set)
#define av_display_rotation_get (wb_ffmpeg_functions.av_display_rotation_get)
#define av_frame_alloc (wb_ffmpeg_functions.av_frame_alloc)
#define av_frame_free (wb_ffmpeg_functions.av_frame_free)
#define av_frame_get_buffer (wb_ffmpeg_functions.av_frame_get_buffer)
#define av_frame_make_writable (wb_ffmpeg_functions.av_frame_make_writable)
#define av_frame_ref (wb_ffmpeg_functions.av_frame_ref)
#define av_frame_unref (wb_ffmpeg_functions.av_frame_unref)
#define av_freep (wb_ffmpeg_functions.av_freep)
#define av_get_pix_fmt_name (wb_ffmpeg_functions.av_get_pix_fmt_name)
#define av_guess_format (wb_ffmpeg_functions.av_guess_format)
#define av_image_alloc (wb_ffmpeg_functions.av_image_alloc)
#define av_interleaved_write_frame (wb_ffmpeg_functions.av_interleaved_write_frame)
#define av_log_set_callback (wb_ffmpeg_functions.av_log_set_callback)
#define av_max_alloc (wb_ffmpeg_functions.av_max_alloc)
#define av_opt_set (wb_ffmpeg_functions.av_opt_set)
#define av_opt_set_double (wb_ffmpeg_functions.av_opt_set_double)
#define av_packet_alloc (wb_ffmpeg_functions.av_packet_alloc)
#define av_packet_free (wb_ffmpeg_functions.av_packet_free)
#define av_packet_rescale_ts (wb_ffmpeg_functions.av_packet_rescale_ts)
#define av_packet_unref (wb_ffmpeg_functions.av_packet_unref)
#define av_read_frame (wb_ffmpeg_functions.av_read_frame)
#define av_rescale_q (wb_ffmpeg_functions.av_rescale_q)
#define av_stream_get_side_data (wb_ffmpeg_functions.av_stream_get_side_data)
#define av_strerror (wb_ffmpeg_functions.av_strerror)
#define av_write_trailer (wb_ffmpeg_functions.av_write_trailer)
#define avcodec_alloc_context3 (wb_ffmpeg_functions.avcodec_alloc_context3)
#define avcodec_descriptor_get (wb_ffmpeg_functions.avcodec_descriptor_get)
#define avcodec_find_decoder (wb_ffmpeg_functions.avcodec_find_decoder)
#define avcodec_find_decoder_by_name (wb_ffmpeg_functions.avcodec_find_decoder_by_name)
#define avcodec_find_encoder (wb_ffmpeg_functions.avcodec_find_encoder)
#define avcodec_find_encoder_by_name (wb_ffmpeg_functions.avcodec_find_encoder_by_name)
#define avcodec_free_context (wb_ffmpeg_functions.avcodec_free_context)
#define avcodec_get_name (wb_ffmpeg_functions.avcodec_get_name)
#define avcodec_open2 (wb_ffmpeg_functions.avcodec_open2)
#define avcodec_parameters_from_context (wb_ffmpeg_functions.avcodec_parameters_from_context)
#define avcodec_parameters_to_context (wb_ffmpeg_functions.avcodec_parameters_to_context)
#define avcodec_profile_name (wb_ffmpeg_functions.avcodec_profile_name)
#define avcodec_receive_frame (wb_ffmpeg_functions.avcodec_receive_frame)
#define avcodec_receive_packet (wb_ffmpeg_functions.avcodec_receive_packet)
#define avcodec_send_frame (wb_ffmpeg_functions.avcodec_send_frame)
#define avcodec_send_packet (wb_ffmpeg_functions.avcodec_send_packet)
#define avcodec_version (wb_ffmpeg_functions.avcodec_version)
#define avformat_alloc_output_context2 (wb_ffmpeg_functions.avformat_alloc_output_context2)
#define avformat_close_input (wb_ffmpeg_functions.avformat_close_input)
#define avformat_find_stream_info (wb_ffmpeg_functions.avformat_find_stream_info)
#define avformat_free_context (wb_ffmpeg_functions.avformat_free_context)
#define avformat_new_stream (wb_ffmpeg_functions.avformat_new_stream)
#define avformat_open_input (wb_ffmpeg_functions.avformat_open_input)
#define avformat_version (wb_ffmpeg_functions.avformat_version)
#define avformat_write_header (wb_ffmpeg_functions.avformat_write_header)
#define avio_closep (wb_ffmpeg_functions.avio_closep)
#define avio_open (wb_ffmpeg_functions.avio_open)
#define sws_freeContext (wb_ffmpeg_functions.sws_freeContext)
#define sws_getCachedContext (wb_ffmpeg_functions.sws_getCachedContext)
#define sws_getCoefficients (wb_ffmpeg_functions.sws_getCoefficients)
#define sws_getContext (wb_ffmpeg_functions.sws_getContext)
#define sws_scale (wb_ffmpeg_functions.sws_scale)
#define sws_setColorspaceDetails (wb_ffmpeg_functions.sws_setColorspaceDetails)
#define swscale_version (wb_ffmpeg_functions.swscale_version)
#endif

#endif
