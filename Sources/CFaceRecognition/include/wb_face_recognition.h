// Face descriptors with dlib's ResNet face-recognition model: a C boundary
// over dlib's C++ API, so that no C++ exception ever reaches Swift. Every
// function catches what dlib throws and returns an error message instead.
// docs/gallery.md.
#ifndef WB_FACE_RECOGNITION_H
#define WB_FACE_RECOGNITION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Length of a descriptor.
#define WB_FACE_DESCRIPTOR_LENGTH 128
/// Side of the aligned face chip the network reads, pixels.
#define WB_FACE_CHIP_SIDE 150

/// A loaded model pair (recognition network, 5-point shape predictor).
/// Not thread-safe: one thread at a time per recognizer.
typedef struct wb_face_recognizer wb_face_recognizer;

/// Loads `recognition_model` (dlib_face_recognition_resnet_model_v1.dat)
/// and `shape_model` (shape_predictor_5_face_landmarks.dat). On failure
/// returns NULL with a message in `error`.
wb_face_recognizer *wb_face_recognizer_open(
  const char *recognition_model, const char *shape_model, char *error, size_t error_size);

void wb_face_recognizer_close(wb_face_recognizer *recognizer);

/// Sets the threads OpenBLAS (dlib's BLAS) may use, for the whole process.
/// Returns 0 when the BLAS in use is not OpenBLAS (nothing to set).
int wb_blas_set_threads(int threads);

/// The threads OpenBLAS uses now; -1 when the BLAS in use is not OpenBLAS.
int wb_blas_threads(void);

/// An rgb8 image: `stride` bytes per row.
typedef struct {
  const uint8_t *pixels;
  int32_t width;
  int32_t height;
  int32_t stride;
} wb_rgb_image;

/// The five alignment points of the face inside `box` (left, top, width,
/// height, pixels), found by the 5-point shape predictor, in dlib's order:
/// the outer and inner corner of the eye on the image's right, the outer
/// and inner corner of the eye on the image's left, the base of the nose.
/// `points` gets x0, y0, ..., x4, y4. Returns 0, or -1 with `error`.
int wb_face_recognizer_landmarks(
  wb_face_recognizer *recognizer, wb_rgb_image image, const double box[4], double points[10],
  char *error, size_t error_size);

/// The descriptor of the face whose five alignment points (dlib's order,
/// as above) are `points`. `chip`, when not NULL, gets the aligned
/// 150 × 150 rgb8 crop the network read. Returns 0, or -1 with `error`.
int wb_face_recognizer_describe(
  wb_face_recognizer *recognizer, wb_rgb_image image, const double points[10],
  float descriptor[WB_FACE_DESCRIPTOR_LENGTH], uint8_t *chip, char *error, size_t error_size);

/// Reads a PNG, BMP or JPEG file into a new rgb8 buffer of `*width` ×
/// `*height` (rows packed), to be given back with wb_face_image_free.
/// Returns NULL with `error` when the file cannot be read or decoded.
uint8_t *wb_face_image_load(const char *path, int32_t *width, int32_t *height, char *error, size_t error_size);

void wb_face_image_free(uint8_t *pixels);

#ifdef __cplusplus
}
#endif

#endif
