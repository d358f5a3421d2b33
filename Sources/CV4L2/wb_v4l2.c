#include "wb_v4l2.h"

#include <errno.h>
#include <libv4l2.h>
#include <poll.h>

int wb_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
int wb_v4l2_close(int fd) { return v4l2_close(fd); }
int wb_v4l2_ioctl(int fd, unsigned long request, void *argument) { return v4l2_ioctl(fd, request, argument); }
void *wb_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, off_t offset) {
  return v4l2_mmap(start, length, prot, flags, fd, offset);
}
int wb_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

int wb_v4l2_wait_readable(int fd, int timeout_milliseconds) {
  struct pollfd entry = {.fd = fd, .events = POLLIN | POLLPRI};
  int result = poll(&entry, 1, timeout_milliseconds);
  if (result < 0) return errno == EINTR ? 0 : -1;
  if (result == 0) return 0;
  /* POLLERR and POLLHUP also count as ready: the dequeue that follows
   * reports the real reason (ENODEV after an unplug) with its errno. */
  if (entry.revents & POLLNVAL) {
    errno = EBADF;
    return -1;
  }
  return 1;
}

const unsigned long wb_vidioc_querycap = VIDIOC_QUERYCAP;
const unsigned long wb_vidioc_enum_fmt = VIDIOC_ENUM_FMT;
const unsigned long wb_vidioc_enum_framesizes = VIDIOC_ENUM_FRAMESIZES;
const unsigned long wb_vidioc_enum_frameintervals = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long wb_vidioc_g_fmt = VIDIOC_G_FMT;
const unsigned long wb_vidioc_s_fmt = VIDIOC_S_FMT;
const unsigned long wb_vidioc_g_parm = VIDIOC_G_PARM;
const unsigned long wb_vidioc_s_parm = VIDIOC_S_PARM;
const unsigned long wb_vidioc_reqbufs = VIDIOC_REQBUFS;
const unsigned long wb_vidioc_querybuf = VIDIOC_QUERYBUF;
const unsigned long wb_vidioc_qbuf = VIDIOC_QBUF;
const unsigned long wb_vidioc_dqbuf = VIDIOC_DQBUF;
const unsigned long wb_vidioc_streamon = VIDIOC_STREAMON;
const unsigned long wb_vidioc_streamoff = VIDIOC_STREAMOFF;
