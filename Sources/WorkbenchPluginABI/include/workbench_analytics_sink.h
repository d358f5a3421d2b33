/*
 * workbench analytics sink plugin ABI, version 1.
 *
 * A sink plugin is a shared library in plugins/ (any depth) that exports
 *
 *     const wb_analytics_sink *workbench_analytics_sink(void);
 *
 * It handles the `--analytics` destinations whose URL scheme is `scheme`
 * (for example "csv" for --analytics csv:out/trace.csv). workbench opens it
 * once per run with the whole destination text, hands it every analytics
 * record as one line of JSON (docs/analytics.md), and closes it when the
 * run ends.
 *
 * Rules: `accept` is called from the frame loop and must not block (buffer,
 * and write or send from a thread of your own); no call back into
 * workbench; no exceptions or longjmp out of the plugin. See
 * docs/analytics.md.
 */
#ifndef WORKBENCH_ANALYTICS_SINK_H
#define WORKBENCH_ANALYTICS_SINK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WB_ANALYTICS_SINK_ABI_VERSION 1u

typedef struct wb_analytics_sink {
  uint32_t abi_version; /* WB_ANALYTICS_SINK_ABI_VERSION */
  const char *scheme;   /* the URL scheme it handles, lower case, e.g. "csv" */
  const char *summary;  /* one line about it */
  /* Opens a sink for `destination` (the whole --analytics text). On failure
     returns NULL with a message in `error` (NUL-terminated, at most
     `error_size` bytes). */
  void *(*open)(const char *destination, char *error, int32_t error_size);
  /* One record, UTF-8 JSON of `length` bytes (not NUL-terminated). Returns 0,
     or non-zero when the record was dropped (counted by the plugin). */
  int32_t (*accept)(void *state, const char *record_json, int32_t length);
  /* Delivers what is left and frees the state. Writes one line about what
     it did into `summary`. Returns 0, or non-zero with the reason in
     `summary`. */
  int32_t (*close)(void *state, char *summary, int32_t summary_size);
} wb_analytics_sink;

typedef const wb_analytics_sink *(*wb_analytics_sink_entry)(void);

#define WB_ANALYTICS_SINK_ENTRY_SYMBOL "workbench_analytics_sink"

#ifdef __cplusplus
}
#endif

#endif
