#include "wb_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Compiled chunks, kept for the life of the process: an evaluation starts a
 * new VM for every session, and compiling the step library's text again each
 * time cost more than running the session. A chunk is found again only for
 * the same name and the very same source bytes (compared whole, so a flow
 * edited under --watch is compiled anew). The bytecode is made here from the
 * text, never read from a file: scripts still cannot load binary chunks. */

#define WB_CHUNK_SLOTS 64
#define WB_CHUNK_BYTES_LIMIT (32u << 20)

typedef struct {
  char *name;
  char *source;
  size_t source_length;
  char *bytecode;
  size_t bytecode_length;
} wb_chunk;

static wb_chunk chunks[WB_CHUNK_SLOTS];
static int chunk_count;
static size_t chunk_bytes;
static pthread_mutex_t chunk_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
  char *data;
  size_t length;
  size_t capacity;
  int failed;
} dump_buffer;

static int append_dump(lua_State *L, const void *bytes, size_t size, void *context) {
  (void)L;
  dump_buffer *buffer = context;
  if (buffer->failed) return 1;
  if (buffer->length + size > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity * 2 : 16384;
    while (capacity < buffer->length + size) capacity *= 2;
    char *grown = realloc(buffer->data, capacity);
    if (grown == NULL) {
      buffer->failed = 1;
      return 1;
    }
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->length, bytes, size);
  buffer->length += size;
  return 0;
}

/* A copy of the bytecode of `name` compiled from exactly `source`, or NULL. */
static char *find_chunk(const char *name, const char *source, size_t length, size_t *bytecode_length) {
  char *copy = NULL;
  pthread_mutex_lock(&chunk_lock);
  for (int i = 0; i < chunk_count; i++) {
    wb_chunk *chunk = &chunks[i];
    if (chunk->source_length == length && strcmp(chunk->name, name) == 0 && memcmp(chunk->source, source, length) == 0) {
      copy = malloc(chunk->bytecode_length);
      if (copy != NULL) {
        memcpy(copy, chunk->bytecode, chunk->bytecode_length);
        *bytecode_length = chunk->bytecode_length;
      }
      break;
    }
  }
  pthread_mutex_unlock(&chunk_lock);
  return copy;
}

/* Keeps the bytecode; takes `bytecode` over. Once the slots or the byte
 * budget are used up, chunks are compiled as before, each time. */
static void keep_chunk(const char *name, const char *source, size_t length, char *bytecode, size_t bytecode_length) {
  pthread_mutex_lock(&chunk_lock);
  size_t cost = length + bytecode_length;
  char *name_copy = chunk_count < WB_CHUNK_SLOTS && chunk_bytes + cost <= WB_CHUNK_BYTES_LIMIT ? strdup(name) : NULL;
  char *source_copy = name_copy != NULL ? malloc(length ? length : 1) : NULL;
  if (source_copy != NULL) {
    memcpy(source_copy, source, length);
    chunks[chunk_count++] = (wb_chunk){name_copy, source_copy, length, bytecode, bytecode_length};
    chunk_bytes += cost;
    bytecode = NULL;
  } else {
    free(name_copy);
  }
  pthread_mutex_unlock(&chunk_lock);
  free(bytecode);
}

int wb_load_text_chunk(lua_State *L, const char *source, size_t length, const char *name) {
  size_t bytecode_length = 0;
  char *bytecode = find_chunk(name, source, length, &bytecode_length);
  if (bytecode != NULL) {
    int status = luaL_loadbufferx(L, bytecode, bytecode_length, name, "b");
    free(bytecode);
    return status;
  }
  int status = luaL_loadbufferx(L, source, length, name, "t");
  if (status != LUA_OK) return status;
  dump_buffer dump = {0};
  if (lua_dump(L, append_dump, &dump, 0) == 0 && !dump.failed) {
    keep_chunk(name, source, length, dump.data, dump.length);
  } else {
    free(dump.data);
  }
  return LUA_OK;
}
