/* libv4l2's calls are variadic (v4l2_ioctl) and cannot be imported into
 * Swift: these wrappers give them fixed signatures. */
#ifndef WB_V4L2_H
#define WB_V4L2_H
#include <linux/videodev2.h>
#include <stddef.h>
#include <sys/types.h>

int wb_v4l2_open(const char *path, int flags);
int wb_v4l2_close(int fd);
int wb_v4l2_ioctl(int fd, unsigned long request, void *argument);
void *wb_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, off_t offset);
int wb_v4l2_munmap(void *start, size_t length);

/* Waits until the device has a buffer to dequeue (or an error to report).
 * Returns 1 when ready, 0 on timeout, -1 with errno set on failure.
 * A wait interrupted by a signal (EINTR) returns 0 like a timeout: the
 * caller simply waits again, and a signal is no reason to give up. */
int wb_v4l2_wait_readable(int fd, int timeout_milliseconds);

/* The VIDIOC_* request numbers are built by _IOR/_IOWR macros, which Swift
 * does not import: they are exported here as constants. */
extern const unsigned long wb_vidioc_querycap;
extern const unsigned long wb_vidioc_enum_fmt;
extern const unsigned long wb_vidioc_enum_framesizes;
extern const unsigned long wb_vidioc_enum_frameintervals;
extern const unsigned long wb_vidioc_g_fmt;
extern const unsigned long wb_vidioc_s_fmt;
extern const unsigned long wb_vidioc_g_parm;
extern const unsigned long wb_vidioc_s_parm;
extern const unsigned long wb_vidioc_reqbufs;
extern const unsigned long wb_vidioc_querybuf;
extern const unsigned long wb_vidioc_qbuf;
extern const unsigned long wb_vidioc_dqbuf;
extern const unsigned long wb_vidioc_streamon;
extern const unsigned long wb_vidioc_streamoff;
#endif
