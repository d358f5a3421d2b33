#include "wb_mediapipe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void *wb_symbol(void *handle, const char *name, int required, const char **missing) {
  void *symbol = dlsym(handle, name);
  if (symbol == NULL && required && *missing == NULL) *missing = name;
  return symbol;
}

int wb_mp_load(const char *path, wb_mp_api *api, char *error, size_t error_size) {
  memset(api, 0, sizeof *api);
  if (!wb_mp_check_layouts()) {
    snprintf(error, error_size, "the MediaPipe declarations do not have the expected layout on this platform");
    return -1;
  }
  /* RTLD_LOCAL: its many bundled libraries (absl, protobuf, TFLite) stay out
   * of the global namespace. */
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char *reason = dlerror();
    snprintf(error, error_size, "%s", reason != NULL ? reason : "unknown dlopen error");
    return -1;
  }
  const char *missing = NULL;
  api->face_landmarker_create = wb_symbol(handle, "MpFaceLandmarkerCreate", 1, &missing);
  api->face_landmarker_detect_image = wb_symbol(handle, "MpFaceLandmarkerDetectImage", 1, &missing);
  api->face_landmarker_detect_for_video = wb_symbol(handle, "MpFaceLandmarkerDetectForVideo", 1, &missing);
  api->face_landmarker_close_result = wb_symbol(handle, "MpFaceLandmarkerCloseResult", 1, &missing);
  api->face_landmarker_close = wb_symbol(handle, "MpFaceLandmarkerClose", 1, &missing);
  api->image_create_from_uint8_data = wb_symbol(handle, "MpImageCreateFromUint8Data", 1, &missing);
  api->image_free = wb_symbol(handle, "MpImageFree", 1, &missing);
  api->error_free = wb_symbol(handle, "MpErrorFree", 1, &missing);
  api->set_logging_callback = wb_symbol(handle, "MpSetLoggingCallback", 0, &missing);
  api->remove_logging_callback = wb_symbol(handle, "MpRemoveLoggingCallback", 0, &missing);
  if (missing != NULL) {
    snprintf(error, error_size, "%s has no function %s: not the MediaPipe Tasks C API this workbench speaks", path,
             missing);
    dlclose(handle);
    memset(api, 0, sizeof *api);
    return -1;
  }
  api->handle = handle;
  return 0;
}

void wb_mp_unload(wb_mp_api *api) {
  if (api->handle != NULL) dlclose(api->handle);
  memset(api, 0, sizeof *api);
}

int wb_mp_check_layouts(void) {
#if defined(__LP64__)
  return sizeof(wb_mp_base_options) == 72 && offsetof(wb_mp_base_options, model_asset_path) == 16 &&
         offsetof(wb_mp_base_options, file_descriptor) == 24 && offsetof(wb_mp_base_options, host_version) == 40 &&
         sizeof(wb_mp_face_landmarker_options) == 104 &&
         offsetof(wb_mp_face_landmarker_options, running_mode) == 72 &&
         offsetof(wb_mp_face_landmarker_options, min_tracking_confidence) == 88 &&
         offsetof(wb_mp_face_landmarker_options, output_face_blendshapes) == 92 &&
         offsetof(wb_mp_face_landmarker_options, output_facial_transformation_matrixes) == 93 &&
         offsetof(wb_mp_face_landmarker_options, result_callback) == 96 && sizeof(wb_mp_normalized_landmark) == 40 &&
         offsetof(wb_mp_normalized_landmark, visibility) == 16 && offsetof(wb_mp_normalized_landmark, name) == 32 &&
         sizeof(wb_mp_normalized_landmarks) == 16 && sizeof(wb_mp_category) == 24 &&
         sizeof(wb_mp_categories) == 16 && sizeof(wb_mp_matrix) == 16 &&
         sizeof(wb_mp_face_landmarker_result) == 48 &&
         offsetof(wb_mp_face_landmarker_result, facial_transformation_matrixes_count) == 40;
#else
  return 0;
#endif
}
