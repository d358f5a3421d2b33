#include "wb_face_recognition.h"

#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_transforms.h>
#include <dlib/image_io.h>

#include <dlfcn.h>

#include <cstdio>
#include <exception>
#include <new>

namespace wb {

// The caller's pixels seen as a dlib image, without a copy. The functions
// dlib's generic image interface calls are found by argument-dependent
// lookup, so they live beside the type.
struct rgb_view {
  const uint8_t *pixels;
  long rows;
  long columns;
  long stride;
};

inline long num_rows(const rgb_view &image) { return image.rows; }
inline long num_columns(const rgb_view &image) { return image.columns; }
inline const void *image_data(const rgb_view &image) { return image.pixels; }
inline long width_step(const rgb_view &image) { return image.stride; }

}  // namespace wb

namespace dlib {
template <> struct image_traits<wb::rgb_view> {
  typedef rgb_pixel pixel_type;
};
}  // namespace dlib

namespace {

using namespace dlib;

// The network of dlib_face_recognition_resnet_model_v1.dat, as dlib's
// dnn_face_recognition_ex.cpp declares it: a ResNet-29 with half the filters,
// 150 × 150 input, a 128-d metric output.
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = add_prev1<block<N, BN, 1, tag1<SUBNET>>>;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<block<N, BN, 2, tag1<SUBNET>>>>>>;

template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, SUBNET>>>>>;

template <int N, typename SUBNET> using ares = relu<residual<block, N, affine, SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block, N, affine, SUBNET>>;

template <typename SUBNET> using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET> using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;

using recognition_network = loss_metric<fc_no_bias<
  128, avg_pool_everything<alevel0<alevel1<alevel2<alevel3<alevel4<
         max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;

void set_error(char *error, size_t error_size, const char *what) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", what);
}

// dlib's face chips: 150 px with 25% padding, as the model was trained.
chip_details chip_of(const double points[10]) {
  std::vector<point> parts;
  for (int i = 0; i < 5; ++i) parts.emplace_back(point(std::lround(points[2 * i]), std::lround(points[2 * i + 1])));
  rectangle box;
  for (const point &p : parts) box += p;
  return get_face_chip_details(full_object_detection(box, parts), WB_FACE_CHIP_SIDE, 0.25);
}

}  // namespace

struct wb_face_recognizer {
  recognition_network network;
  shape_predictor shapes;
  matrix<rgb_pixel> chip;
};

extern "C" wb_face_recognizer *wb_face_recognizer_open(
  const char *recognition_model, const char *shape_model, char *error, size_t error_size) {
  wb_face_recognizer *recognizer = nullptr;
  try {
    recognizer = new wb_face_recognizer();
    deserialize(recognition_model) >> recognizer->network;
    deserialize(shape_model) >> recognizer->shapes;
    if (recognizer->shapes.num_parts() != 5) {
      set_error(error, error_size, "the shape model does not give 5 points (use shape_predictor_5_face_landmarks.dat)");
      delete recognizer;
      return nullptr;
    }
    return recognizer;
  } catch (const std::exception &failure) {
    set_error(error, error_size, failure.what());
  } catch (...) {
    set_error(error, error_size, "unknown error while loading the models");
  }
  delete recognizer;
  return nullptr;
}

extern "C" void wb_face_recognizer_close(wb_face_recognizer *recognizer) { delete recognizer; }

// Looked up at run time: dlib links the system's BLAS, which Debian's
// alternatives may make OpenBLAS or the reference BLAS (no threads at all).
extern "C" int wb_blas_set_threads(int threads) {
  auto set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set == nullptr) return 0;
  set(threads);
  return 1;
}

extern "C" int wb_blas_threads(void) {
  auto get = reinterpret_cast<int (*)(void)>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return get == nullptr ? -1 : get();
}

static bool valid(const wb_rgb_image &image) {
  return image.pixels != nullptr && image.width > 0 && image.height > 0 && image.stride >= image.width * 3;
}

extern "C" int wb_face_recognizer_landmarks(
  wb_face_recognizer *recognizer, wb_rgb_image image, const double box[4], double points[10], char *error,
  size_t error_size) {
  if (recognizer == nullptr || !valid(image)) {
    set_error(error, error_size, "no recognizer or an empty image");
    return -1;
  }
  try {
    const wb::rgb_view view{image.pixels, image.height, image.width, image.stride};
    const rectangle face(std::lround(box[0]), std::lround(box[1]), std::lround(box[0] + box[2] - 1),
                         std::lround(box[1] + box[3] - 1));
    const full_object_detection shape = recognizer->shapes(view, face);
    for (unsigned long i = 0; i < 5; ++i) {
      points[2 * i] = shape.part(i).x();
      points[2 * i + 1] = shape.part(i).y();
    }
    return 0;
  } catch (const std::exception &failure) {
    set_error(error, error_size, failure.what());
  } catch (...) {
    set_error(error, error_size, "unknown error while finding the face's landmarks");
  }
  return -1;
}

extern "C" int wb_face_recognizer_describe(
  wb_face_recognizer *recognizer, wb_rgb_image image, const double points[10],
  float descriptor[WB_FACE_DESCRIPTOR_LENGTH], uint8_t *chip, char *error, size_t error_size) {
  if (recognizer == nullptr || !valid(image)) {
    set_error(error, error_size, "no recognizer or an empty image");
    return -1;
  }
  try {
    const wb::rgb_view view{image.pixels, image.height, image.width, image.stride};
    extract_image_chip(view, chip_of(points), recognizer->chip);
    const matrix<float, 0, 1> output = recognizer->network(recognizer->chip);
    if (output.size() != WB_FACE_DESCRIPTOR_LENGTH) {
      set_error(error, error_size, "the recognition model does not give 128 numbers");
      return -1;
    }
    for (long i = 0; i < WB_FACE_DESCRIPTOR_LENGTH; ++i) descriptor[i] = output(i);
    if (chip != nullptr) {
      for (long row = 0; row < WB_FACE_CHIP_SIDE; ++row) {
        for (long column = 0; column < WB_FACE_CHIP_SIDE; ++column) {
          const rgb_pixel &pixel = recognizer->chip(row, column);
          uint8_t *out = chip + (row * WB_FACE_CHIP_SIDE + column) * 3;
          out[0] = pixel.red;
          out[1] = pixel.green;
          out[2] = pixel.blue;
        }
      }
    }
    return 0;
  } catch (const std::exception &failure) {
    set_error(error, error_size, failure.what());
  } catch (...) {
    set_error(error, error_size, "unknown error while describing the face");
  }
  return -1;
}

extern "C" uint8_t *wb_face_image_load(
  const char *path, int32_t *width, int32_t *height, char *error, size_t error_size) {
  try {
    matrix<rgb_pixel> image;
    load_image(image, path);
    if (image.size() == 0) {
      set_error(error, error_size, "the image is empty");
      return nullptr;
    }
    uint8_t *pixels = new uint8_t[image.size() * 3];
    for (long row = 0; row < image.nr(); ++row) {
      for (long column = 0; column < image.nc(); ++column) {
        uint8_t *out = pixels + (row * image.nc() + column) * 3;
        out[0] = image(row, column).red;
        out[1] = image(row, column).green;
        out[2] = image(row, column).blue;
      }
    }
    *width = static_cast<int32_t>(image.nc());
    *height = static_cast<int32_t>(image.nr());
    return pixels;
  } catch (const std::exception &failure) {
    set_error(error, error_size, failure.what());
  } catch (...) {
    set_error(error, error_size, "unknown error while reading the image");
  }
  return nullptr;
}

extern "C" void wb_face_image_free(uint8_t *pixels) { delete[] pixels; }
