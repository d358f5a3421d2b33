/*
 * Presentation-attack models (ONNX) run by OpenCV's DNN module. Every C++
 * exception stops here: a failure is a NULL or -1 and a message.
 */
#ifndef WB_PAD_H
#define WB_PAD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wb_pad_net wb_pad_net;

/* Where opening a model failed. */
enum { WB_PAD_READING = 1, WB_PAD_CHECKING = 2 };

/* Loads the ONNX model at `path` and checks it with one inference on a
   blank input of 1 × channels × height × width. NULL on failure, with
   OpenCV's reason in `error` and in `stage` whether reading the file or
   running the blank input failed. */
wb_pad_net *wb_pad_open(const char *path, int channels, int height, int width, int *stage, char *error,
                        size_t error_capacity);

/* The number of values of the model's first output. */
int wb_pad_output_count(const wb_pad_net *net);

/* Runs the model on one input, channels × height × width floats (NCHW), and
   copies up to `capacity` output values. Returns the number of output
   values, or -1 with the reason in `error`. */
int wb_pad_run(wb_pad_net *net, const float *input, float *output, int capacity, char *error, size_t error_capacity);

void wb_pad_close(wb_pad_net *net);

/* Threads OpenCV uses for inference (process-wide); 0 is OpenCV's default. */
void wb_pad_set_threads(int threads);

/* OpenCV's version, "4.6.0" (its DNN module is there whenever this library
 * links: it links against it). */
const char *wb_pad_opencv_version(void);

#ifdef __cplusplus
}
#endif
#endif
