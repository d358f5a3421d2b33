/* The few parts of the MediaPipe Tasks C API (libmediapipe.so from the
 * `mediapipe` 1.2.2 wheel) that the face estimator uses, declared in plain C.
 *
 * Nothing links against the library: wb_mp_load() opens it with dlopen and
 * fills a table of function pointers, so workbench builds and runs without
 * it. The layouts follow the upstream headers (mediapipe/tasks/c/core/
 * base_options.h, vision/face_landmarker/face_landmarker.h, components/
 * containers/{landmark,category,matrix}.h, vision/core/image.h) as of that
 * release, where every fallible call takes a trailing `char **error_msg`
 * (freed with MpErrorFree); wb_mp_check_layouts() pins the sizes and offsets
 * the C side relies on (x86_64 and aarch64, LP64). */
#ifndef WB_MEDIAPIPE_H
#define WB_MEDIAPIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MpStatus: absl status codes (0 is OK). */
typedef int32_t wb_mp_status;
#define WB_MP_OK 0

/* MpImageFormat values used here. */
#define WB_MP_IMAGE_FORMAT_SRGB 1
#define WB_MP_IMAGE_FORMAT_GRAY8 3

/* The running modes of vision tasks. */
#define WB_MP_RUNNING_MODE_IMAGE 1
#define WB_MP_RUNNING_MODE_VIDEO 2

/* BaseOptions.delegate. */
#define WB_MP_DELEGATE_CPU 1

typedef struct wb_mp_image_internal *wb_mp_image;
typedef struct wb_mp_face_landmarker_internal *wb_mp_face_landmarker;

/* struct MpBaseOptions. */
typedef struct wb_mp_base_options {
  const char *model_asset_buffer;
  unsigned int model_asset_buffer_count;
  const char *model_asset_path;
  int file_descriptor; /* -1: none */
  int delegate;
  int host_environment; /* 0: unknown */
  int host_system;      /* 0: unknown */
  const char *host_version;
  const char *ca_bundle_path;
  const char *app_id;
  const char *app_version;
} wb_mp_base_options;

/* struct MpNormalizedLandmark: x, y in [0, 1] of the image width and height;
 * z in about the same scale as x, smaller is nearer the camera. */
typedef struct wb_mp_normalized_landmark {
  float x;
  float y;
  float z;
  bool has_visibility;
  float visibility;
  bool has_presence;
  float presence;
  const char *name;
} wb_mp_normalized_landmark;

/* struct MpNormalizedLandmarks. */
typedef struct wb_mp_normalized_landmarks {
  wb_mp_normalized_landmark *landmarks;
  uint32_t landmarks_count;
} wb_mp_normalized_landmarks;

/* struct MpCategory. */
typedef struct wb_mp_category {
  int index;
  float score;
  const char *category_name;
  const char *display_name;
} wb_mp_category;

/* struct MpCategories. */
typedef struct wb_mp_categories {
  wb_mp_category *categories;
  uint32_t categories_count;
} wb_mp_categories;

/* struct MpMatrix: `data` is column-major, rows × cols floats. */
typedef struct wb_mp_matrix {
  uint32_t rows;
  uint32_t cols;
  float *data;
} wb_mp_matrix;

/* struct MpFaceLandmarkerResult. */
typedef struct wb_mp_face_landmarker_result {
  wb_mp_normalized_landmarks *face_landmarks;
  uint32_t face_landmarks_count;
  wb_mp_categories *face_blendshapes;
  uint32_t face_blendshapes_count;
  wb_mp_matrix *facial_transformation_matrixes;
  uint32_t facial_transformation_matrixes_count;
} wb_mp_face_landmarker_result;

/* The live-stream callback (unused here: always NULL). */
typedef void (*wb_mp_face_landmarker_callback)(
  wb_mp_status status, wb_mp_face_landmarker_result *result, wb_mp_image image, int64_t timestamp_ms);

/* struct MpFaceLandmarkerOptions. */
typedef struct wb_mp_face_landmarker_options {
  wb_mp_base_options base_options;
  int running_mode;
  int num_faces;
  float min_face_detection_confidence;
  float min_face_presence_confidence;
  float min_tracking_confidence;
  bool output_face_blendshapes;
  bool output_facial_transformation_matrixes;
  wb_mp_face_landmarker_callback result_callback;
} wb_mp_face_landmarker_options;

/* MpLogCallback: severity is absl's (0 info, 1 warning, 2 error, 3 fatal). */
typedef void (*wb_mp_log_callback)(int severity, const char *message, void *user_data);

/* The functions, as loaded from the library. */
typedef struct wb_mp_api {
  void *handle;
  wb_mp_status (*face_landmarker_create)(
    wb_mp_face_landmarker_options *options, wb_mp_face_landmarker *out, char **error_msg);
  wb_mp_status (*face_landmarker_detect_image)(
    wb_mp_face_landmarker landmarker, wb_mp_image image, const void *image_processing_options,
    wb_mp_face_landmarker_result *result, char **error_msg);
  wb_mp_status (*face_landmarker_detect_for_video)(
    wb_mp_face_landmarker landmarker, wb_mp_image image, const void *image_processing_options,
    int64_t timestamp_ms, wb_mp_face_landmarker_result *result, char **error_msg);
  void (*face_landmarker_close_result)(wb_mp_face_landmarker_result *result);
  wb_mp_status (*face_landmarker_close)(wb_mp_face_landmarker landmarker, char **error_msg);
  /* Copies `pixel_data` (rows packed tightly: width × channels bytes, no
   * stride argument; SRGB is R G B) into a new image with the library's own
   * aligned rows. `pixel_data_size` must be at least height × width × channels. */
  wb_mp_status (*image_create_from_uint8_data)(
    int format, int width, int height, const uint8_t *pixel_data, int pixel_data_size, wb_mp_image *out,
    char **error_msg);
  void (*image_free)(wb_mp_image image);
  void (*error_free)(char *error_msg);
  /* Optional: NULL when the library lacks them. */
  void (*set_logging_callback)(wb_mp_log_callback callback, void *user_data);
  void (*remove_logging_callback)(void);
} wb_mp_api;

/* Opens `path` and fills `api`. Returns 0 on success; otherwise writes a
 * message (the dlopen error, or the missing function) into `error` and
 * returns -1. */
int wb_mp_load(const char *path, wb_mp_api *api, char *error, size_t error_size);

/* Closes the library (after every landmarker is closed). */
void wb_mp_unload(wb_mp_api *api);

/* 1 when the structs have the sizes and offsets of the library's ABI. */
int wb_mp_check_layouts(void);

#ifdef __cplusplus
}
#endif

#endif
