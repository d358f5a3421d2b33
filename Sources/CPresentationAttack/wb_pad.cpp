#include "wb_pad.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

struct wb_pad_net {
  cv::dnn::Net net;
  cv::Mat input;
  int channels;
  int height;
  int width;
  int outputs;
};

namespace {

void say(char *error, size_t capacity, const char *text) {
  if (error == nullptr || capacity == 0) return;
  std::snprintf(error, capacity, "%s", text);
}

// OpenCV's messages read "OpenCV(4.6.0) /path/file.cpp:123: error: (-2:Unspecified
// error) what happened in function 'name'": keep what happened and the function.
void say(char *error, size_t capacity, const cv::Exception &exception) {
  const std::string &what = exception.err.empty() ? exception.msg : exception.err;
  if (exception.func.empty()) {
    say(error, capacity, what.c_str());
  } else {
    std::snprintf(error, capacity, "%s (in %s)", what.c_str(), exception.func.c_str());
  }
}

// Errors are returned, never logged: OpenCV's own log lines on stderr would
// only repeat them.
void quiet() {
  static const bool silenced = [] {
    cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    return true;
  }();
  (void)silenced;
}

// Runs `body`, turning any exception into a message: false when one was thrown.
template <typename Body> bool guarded(char *error, size_t capacity, Body body) {
  try {
    body();
    return true;
  } catch (const cv::Exception &exception) {
    say(error, capacity, exception);
  } catch (const std::exception &exception) {
    say(error, capacity, exception.what());
  } catch (...) {
    say(error, capacity, "an unknown error");
  }
  return false;
}

int forward(wb_pad_net *net, float *output, int capacity) {
  net->net.setInput(net->input);
  cv::Mat result = net->net.forward();
  if (!result.isContinuous()) result = result.clone();
  if (result.depth() != CV_32F) result.convertTo(result, CV_32F);
  int count = static_cast<int>(result.total() * result.channels());
  if (output != nullptr) {
    int copied = count < capacity ? count : capacity;
    std::memcpy(output, result.ptr<float>(), static_cast<size_t>(copied) * sizeof(float));
  }
  return count;
}

}  // namespace

extern "C" wb_pad_net *wb_pad_open(const char *path, int channels, int height, int width, int *stage, char *error,
                                   size_t error_capacity) {
  quiet();
  *stage = WB_PAD_READING;
  if (channels < 1 || height < 1 || width < 1) {
    say(error, error_capacity, "the input size must be at least 1 in every dimension");
    return nullptr;
  }
  wb_pad_net *net = new (std::nothrow) wb_pad_net();
  if (net == nullptr) {
    say(error, error_capacity, "out of memory");
    return nullptr;
  }
  bool opened = guarded(error, error_capacity, [&] {
    net->net = cv::dnn::readNetFromONNX(path);
    if (net->net.empty()) throw std::runtime_error("the file holds no network");
    net->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    *stage = WB_PAD_CHECKING;
    int sizes[4] = {1, channels, height, width};
    net->input = cv::Mat(4, sizes, CV_32F, cv::Scalar(0));
    net->channels = channels;
    net->height = height;
    net->width = width;
    net->outputs = forward(net, nullptr, 0);
  });
  if (opened) return net;
  delete net;
  return nullptr;
}

extern "C" int wb_pad_output_count(const wb_pad_net *net) { return net->outputs; }

extern "C" int wb_pad_run(wb_pad_net *net, const float *input, float *output, int capacity, char *error,
                          size_t error_capacity) {
  int count = -1;
  guarded(error, error_capacity, [&] {
    std::memcpy(net->input.ptr<float>(), input,
                static_cast<size_t>(net->channels) * net->height * net->width * sizeof(float));
    count = forward(net, output, capacity);
  });
  return count;
}

extern "C" void wb_pad_close(wb_pad_net *net) { delete net; }

extern "C" const char *wb_pad_opencv_version(void) { return CV_VERSION; }

extern "C" void wb_pad_set_threads(int threads) {
  try {
    cv::setNumThreads(threads > 0 ? threads : -1);
  } catch (...) {
  }
}
