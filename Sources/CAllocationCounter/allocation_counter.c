#include "CAllocationCounter.h"

#include <stddef.h>

#if defined(__GLIBC__)

// glibc's own allocator under its internal names: every call ends there,
// so memory from these and from memalign, free or malloc_usable_size mixes.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static uint64_t allocations;
// Initial-exec: reaching a thread's counter must never itself call malloc.
static __thread uint64_t thread_allocations __attribute__((tls_model("initial-exec")));

static inline void count_one(void) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  thread_allocations += 1;
}

void *malloc(size_t size) {
  count_one();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  count_one();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  count_one();
  return __libc_realloc(pointer, size);
}

uint64_t wb_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

uint64_t wb_thread_allocation_count(void) { return thread_allocations; }

#else

// Elsewhere a malloc of the executable does not replace the system's: nothing is counted.
uint64_t wb_allocation_count(void) { return 0; }

uint64_t wb_thread_allocation_count(void) { return 0; }

#endif
