/*
 * workbench estimator plugin ABI, version 1.
 *
 * A plugin is a shared library in plugins/ (any depth) that exports
 *
 *     const wb_plugin *workbench_plugin(void);
 *
 * returning a static description of the estimators it provides. workbench
 * loads every plugin with dlopen at start-up, checks `abi_version`, and
 * skips (and reports by name) any plugin that fails to load or has another
 * version: the run goes on without it.
 *
 * An estimator reads a decoded frame (8-bit gray or RGB, tightly packed
 * rows) and the numeric measurements it needs, and writes numeric
 * measurements. workbench calls it from one thread, frame after frame, with
 * the state its `create` returned. Measurement names are dotted paths
 * ("contrast.rms"); they appear to flows as m.contrast.rms.
 *
 * Rules: no call back into workbench; no exceptions or longjmp out of the
 * plugin; return quickly (the frame loop waits); keep allocations out of
 * `estimate`. See docs/plugins.md.
 */
#ifndef WORKBENCH_PLUGIN_H
#define WORKBENCH_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WB_PLUGIN_ABI_VERSION 1u

typedef enum wb_pixel_format {
  WB_PIXELS_GRAY8 = 0, /* one byte per pixel */
  WB_PIXELS_RGB8 = 1,  /* three bytes per pixel: R, G, B */
} wb_pixel_format;

typedef struct wb_plugin_image {
  int32_t width;
  int32_t height;
  int32_t format;    /* a wb_pixel_format */
  int32_t row_bytes; /* bytes from one row to the next */
  const uint8_t *pixels;
} wb_plugin_image;

/* Numeric values, one per name of a `needs` or `provides` list, in order. */
typedef struct wb_plugin_values {
  double *values;
  uint8_t *present; /* 1 when the value is there this frame */
  int32_t count;
} wb_plugin_values;

typedef struct wb_plugin_estimator {
  const char *name;    /* unique, e.g. "contrast" */
  const char *summary; /* one line for `workbench estimators` */
  /* NULL-terminated lists of measurement names. */
  const char *const *provides;
  const char *const *needs;
  int32_t image_format; /* the wb_pixel_format it wants */
  /* Per-run state; may return NULL if it keeps none. `options` is reserved
     (NULL in version 1). */
  void *(*create)(const char *options);
  void (*destroy)(void *state);
  /* Reads `image` and `needs` (values of the `needs` names), writes `out`
     (values of the `provides` names: set present[i] to 1 for each value
     written). `t` is the frame time in seconds. Returns 0, or non-zero when
     the frame could not be measured (everything it provides is then absent). */
  int32_t (*estimate)(void *state, const wb_plugin_image *image, double t, const wb_plugin_values *needs,
                      wb_plugin_values *out);
} wb_plugin_estimator;

typedef struct wb_plugin {
  uint32_t abi_version; /* WB_PLUGIN_ABI_VERSION */
  const char *name;
  const char *version;
  int32_t estimator_count;
  const wb_plugin_estimator *estimators;
} wb_plugin;

typedef const wb_plugin *(*wb_plugin_entry)(void);

#define WB_PLUGIN_ENTRY_SYMBOL "workbench_plugin"

#ifdef __cplusplus
}
#endif
#endif
