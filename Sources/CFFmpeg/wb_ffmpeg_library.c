#define WB_FFMPEG_LOADER
#include "wb_ffmpeg_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define WB_STRING(x) #x
#define WB_SONAME(library, major) "lib" library ".so." WB_STRING(major)

/* The sonames of the FFmpeg this was compiled against: another major
 * version has another ABI. libavformat brings libavcodec and libavutil. */
static const char *const libraries[] = {
    WB_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
    WB_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR),
};
#define WB_LIBRARY_COUNT (sizeof libraries / sizeof libraries[0])

struct wb_ffmpeg_functions wb_ffmpeg_functions;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_message[512];

static void *find(void *const handles[WB_LIBRARY_COUNT], const char *name) {
  for (size_t index = 0; index < WB_LIBRARY_COUNT; index++) {
    void *symbol = dlsym(handles[index], name);
    if (symbol != NULL) return symbol;
  }
  snprintf(load_message, sizeof load_message, "FFmpeg's %s is missing from %s and %s", name, libraries[0],
           libraries[1]);
  return NULL;
}

static void load(void) {
  void *handles[WB_LIBRARY_COUNT];
  for (size_t index = 0; index < WB_LIBRARY_COUNT; index++) {
    handles[index] = dlopen(libraries[index], RTLD_NOW | RTLD_LOCAL);
    if (handles[index] == NULL) {
      const char *reason = dlerror();
      snprintf(load_message, sizeof load_message, "%s", reason != NULL ? reason : libraries[index]);
      return;
    }
  }
  /* The handles stay open for the life of the process: FFmpeg keeps global state. */
#define WB_FFMPEG_RESOLVE(name)                                                                                        \
  if ((wb_ffmpeg_functions.name = (__typeof__(wb_ffmpeg_functions.name))find(handles, #name)) == NULL) return;
  WB_FFMPEG_FUNCTIONS(WB_FFMPEG_RESOLVE)
#undef WB_FFMPEG_RESOLVE
  load_status = 0;
}

int wb_ffmpeg_load(char *message, size_t message_size) {
  pthread_once(&load_once, load);
  if (load_status != 0 && message != NULL && message_size > 0) snprintf(message, message_size, "%s", load_message);
  return load_status;
}
