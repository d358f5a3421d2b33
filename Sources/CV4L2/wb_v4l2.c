#include "wb_v4l2.h"

#include <libv4l2.h>

int wb_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
int wb_v4l2_close(int fd) { return v4l2_close(fd); }
int wb_v4l2_ioctl(int fd, unsigned long request, void *argument) { return v4l2_ioctl(fd, request, argument); }
void *wb_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, off_t offset) {
  return v4l2_mmap(start, length, prot, flags, fd, offset);
}
int wb_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }
