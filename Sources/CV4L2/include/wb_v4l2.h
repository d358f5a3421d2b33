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
#endif
