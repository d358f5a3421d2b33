/*
 * An example analytics sink plugin: --analytics csv:FILE writes the
 * analytics trace as CSV (timestamp, sessionId, category, event, status,
 * page, statusCode). Records are kept in memory by `accept` (which must not
 * block) and written when the run ends, through a temporary file renamed
 * into place. Built and installed by scripts/build-plugins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbench_analytics_sink.h"

enum { MAX_RECORDS = 100000 };

typedef struct csv_sink {
  char *path;
  char **rows;
  int32_t count;
  int32_t dropped;
} csv_sink;

/* The string value of "key" in a flat JSON object written by workbench
   (values without escaped quotes), or "" (null and missing alike). */
static void field(const char *json, int32_t length, const char *key, char *out, size_t size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  out[0] = 0;
  size_t pattern_length = strlen(pattern);
  for (int32_t i = 0; i + (int32_t)pattern_length <= length; i++) {
    if (memcmp(json + i, pattern, pattern_length) != 0) continue;
    const char *start = json + i + pattern_length;
    const char *end = memchr(start, '"', (size_t)(json + length - start));
    if (end == NULL) return;
    size_t n = (size_t)(end - start);
    if (n >= size) n = size - 1;
    memcpy(out, start, n);
    out[n] = 0;
    return;
  }
}

static void *csv_open(const char *destination, char *error, int32_t error_size) {
  const char *path = strncmp(destination, "csv:", 4) == 0 ? destination + 4 : destination;
  if (path[0] == 0) {
    snprintf(error, (size_t)error_size, "give a file: --analytics csv:FILE.csv");
    return NULL;
  }
  csv_sink *sink = calloc(1, sizeof *sink);
  if (sink == NULL) return NULL;
  sink->path = strdup(path);
  sink->rows = calloc(MAX_RECORDS, sizeof *sink->rows);
  if (sink->path == NULL || sink->rows == NULL) {
    free(sink->path);
    free(sink->rows);
    free(sink);
    snprintf(error, (size_t)error_size, "out of memory");
    return NULL;
  }
  return sink;
}

static int32_t csv_accept(void *state, const char *json, int32_t length) {
  csv_sink *sink = state;
  if (sink->count >= MAX_RECORDS) {
    sink->dropped++;
    return 1;
  }
  static const char *keys[] = {"timestamp", "sessionId", "category", "event", "status", "page", "statusCode"};
  char row[1024] = "";
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    char value[256];
    field(json, length, keys[k], value, sizeof value);
    if (k > 0) strncat(row, ",", sizeof row - strlen(row) - 1);
    strncat(row, value, sizeof row - strlen(row) - 1);
  }
  sink->rows[sink->count] = strdup(row);
  if (sink->rows[sink->count] == NULL) {
    sink->dropped++;
    return 1;
  }
  sink->count++;
  return 0;
}

static int32_t csv_close(void *state, char *summary, int32_t summary_size) {
  csv_sink *sink = state;
  int32_t status = 0;
  size_t temporary_size = strlen(sink->path) + 16;
  char *temporary = malloc(temporary_size);
  FILE *file = temporary ? (snprintf(temporary, temporary_size, "%s.tmp", sink->path), fopen(temporary, "w")) : NULL;
  if (file == NULL) {
    snprintf(summary, (size_t)summary_size, "cannot write %s", sink->path);
    status = 1;
  } else {
    fputs("timestamp,sessionId,category,event,status,page,statusCode\n", file);
    for (int32_t i = 0; i < sink->count; i++) fprintf(file, "%s\n", sink->rows[i]);
    if (fclose(file) != 0 || rename(temporary, sink->path) != 0) {
      snprintf(summary, (size_t)summary_size, "cannot write %s", sink->path);
      status = 1;
    } else {
      snprintf(summary, (size_t)summary_size, "%d rows in %s, %d dropped", sink->count, sink->path, sink->dropped);
    }
  }
  for (int32_t i = 0; i < sink->count; i++) free(sink->rows[i]);
  free(temporary);
  free(sink->rows);
  free(sink->path);
  free(sink);
  return status;
}

static const wb_analytics_sink csv_description = {
    .abi_version = WB_ANALYTICS_SINK_ABI_VERSION,
    .scheme = "csv",
    .summary = "the analytics trace as CSV (example plugin)",
    .open = csv_open,
    .accept = csv_accept,
    .close = csv_close,
};

const wb_analytics_sink *workbench_analytics_sink(void) { return &csv_description; }
