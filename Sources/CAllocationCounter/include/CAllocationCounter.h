#ifndef WB_ALLOCATION_COUNTER_H
#define WB_ALLOCATION_COUNTER_H

#include <stdint.h>

/// The number of malloc, calloc and realloc calls of the process so far.
/// Linked into an executable, this target's malloc, calloc and realloc take
/// the place of the C library's (symbol interposition) and count each call
/// before handing it to the C library's own allocator: for benchmarks that
/// say a hot path allocates nothing. glibc only (elsewhere it stays 0);
/// posix_memalign and aligned_alloc, which the Swift runtime uses for
/// blocks aligned to more than 16 bytes, are not counted.
uint64_t wb_allocation_count(void);

/// The same count for the calling thread alone: what one loop allocates,
/// whatever other threads of the process (a test runner's) do meanwhile.
uint64_t wb_thread_allocation_count(void);

#endif
