#include "CAllocationCounter.h"

#include <stddef.h>

#if defined(__GLIBC__)

// glibc's own allocator under its internal names: every call ends there,
// so memory from these and from memalign, free or malloc_usable_size mixes.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static uint64_t allocations;

void *malloc(size_t size) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_realloc(pointer, size);
}

uint64_t wb_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

#else

// Elsewhere a malloc of the executable does not replace the system's: nothing is counted.
uint64_t wb_allocation_count(void) { return 0; }

#endif
