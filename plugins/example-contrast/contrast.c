/*
 * An example estimator plugin: RMS contrast and mean brightness of the
 * frame's luma, in [0, 1]. A replayed photo on a screen or a printed copy
 * often has less contrast than a live face; flows can use contrast.rms
 * as one signal among others.
 *
 * Built with the package (`swift build` makes libWorkbenchContrastPlugin.so)
 * and installed into plugins/ by scripts/build-plugins.
 */
#include <math.h>
#include <stddef.h>

#include "workbench_plugin.h"

static const char *const provided[] = {"contrast.rms", "contrast.mean", NULL};
static const char *const needed[] = {NULL};

static int32_t estimate(void *state, const wb_plugin_image *image, double t, const wb_plugin_values *needs,
                        wb_plugin_values *out) {
  (void)state;
  (void)t;
  (void)needs;
  if (image->width <= 0 || image->height <= 0 || out->count < 2) return 1;
  /* Every second pixel of every second row is plenty for a global figure. */
  double sum = 0, squares = 0, count = 0;
  for (int32_t y = 0; y < image->height; y += 2) {
    const uint8_t *row = image->pixels + (size_t)y * (size_t)image->row_bytes;
    for (int32_t x = 0; x < image->width; x += 2) {
      double value = row[x] / 255.0;
      sum += value;
      squares += value * value;
      count += 1;
    }
  }
  double mean = sum / count;
  double variance = squares / count - mean * mean;
  out->values[0] = sqrt(variance > 0 ? variance : 0);
  out->values[1] = mean;
  out->present[0] = 1;
  out->present[1] = 1;
  return 0;
}

static const wb_plugin_estimator estimators[] = {
    {
        .name = "contrast",
        .summary = "RMS contrast and mean brightness of the luma (example plugin)",
        .provides = provided,
        .needs = needed,
        .image_format = WB_PIXELS_GRAY8,
        .create = NULL,
        .destroy = NULL,
        .estimate = estimate,
    },
};

static const wb_plugin plugin = {
    .abi_version = WB_PLUGIN_ABI_VERSION,
    .name = "example-contrast",
    .version = "1.0.0",
    .estimator_count = 1,
    .estimators = estimators,
};

const wb_plugin *workbench_plugin(void) { return &plugin; }
