/*
 * A Lua state's memory in one reserved region. Its freed blocks are reused,
 * so a flow that makes and drops tables every frame stops calling malloc
 * once its garbage settles. And the whole state can be copied out and back:
 * a flow loaded once, then given to each session of an evaluation as it was
 * right after loading, for the price of a memcpy instead of a new state, the
 * step library and the flow's own chunk.
 *
 * Blocks come in power-of-two classes from 16 bytes; a freed block goes on
 * its class's list and is reused by the next request of that class. Lua
 * passes the size of a block whenever it frees or resizes one, so blocks
 * carry no header. Everything the allocator keeps (the top and the lists)
 * is in wb_arena, which a snapshot copies with the bytes.
 *
 * When the region is full, blocks come from malloc instead and the arena
 * counts them: a state with such blocks cannot be copied (its memory is no
 * longer in one place), and the owner loads it again instead.
 */
#include "wb_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { WB_ARENA_MIN_SHIFT = 4 };

static int size_class(size_t size) {
  if (size <= ((size_t)1 << WB_ARENA_MIN_SHIFT)) return 0;
  int bits = 64 - __builtin_clzll((unsigned long long)(size - 1));
  return bits - WB_ARENA_MIN_SHIFT;
}

static size_t class_size(int class_index) { return (size_t)1 << (class_index + WB_ARENA_MIN_SHIFT); }

int wb_arena_reserve(wb_arena *arena, size_t bytes) {
  memset(arena, 0, sizeof *arena);
  /* NORESERVE: only the pages a state touches cost memory. */
  void *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) return -1;
  arena->base = region;
  arena->reserved = bytes;
  return 0;
}

void wb_arena_release(wb_arena *arena) {
  if (arena->base != NULL) munmap(arena->base, arena->reserved);
  arena->base = NULL;
}

static int inside(const wb_arena *arena, const void *pointer) {
  const char *address = pointer;
  return address >= arena->base && address < arena->base + arena->reserved;
}

static void *take(wb_arena *arena, size_t size) {
  int class_index = size_class(size);
  if (class_index < WB_ARENA_CLASSES) {
    void *head = arena->free_lists[class_index];
    if (head != NULL) {
      memcpy(&arena->free_lists[class_index], head, sizeof(void *));
      return head;
    }
    size_t length = class_size(class_index);
    if (arena->reserved - arena->top >= length) {
      void *block = arena->base + arena->top;
      arena->top += length;
      if (arena->top > arena->high) arena->high = arena->top;
      return block;
    }
  }
  void *block = malloc(size);
  if (block != NULL) arena->outside_blocks++;
  return block;
}

static void give_back(wb_arena *arena, void *pointer, size_t size) {
  if (!inside(arena, pointer)) {
    free(pointer);
    arena->outside_blocks--;
    return;
  }
  int class_index = size_class(size);
  memcpy(pointer, &arena->free_lists[class_index], sizeof(void *));
  arena->free_lists[class_index] = pointer;
}

void *wb_arena_resize(wb_arena *arena, void *pointer, size_t old_size, size_t new_size) {
  if (new_size == 0) {
    if (pointer != NULL) give_back(arena, pointer, old_size);
    return NULL;
  }
  if (pointer == NULL) return take(arena, new_size);
  /* A block that shrinks stays where it is (freed later as the smaller
     size, a larger block on a smaller class's list is fine): shrinking never
     fails and never moves a block out of the region. */
  if (inside(arena, pointer) && size_class(new_size) <= size_class(old_size)) return pointer;
  void *block = take(arena, new_size);
  if (block == NULL) return NULL;
  memcpy(block, pointer, old_size < new_size ? old_size : new_size);
  give_back(arena, pointer, old_size);
  return block;
}

int wb_arena_copy_out(const wb_arena *arena, wb_arena_copy *copy) {
  if (arena->base == NULL || arena->outside_blocks != 0) return -1;
  char *bytes = realloc(copy->bytes, arena->top ? arena->top : 1);
  if (bytes == NULL) return -1;
  memcpy(bytes, arena->base, arena->top);
  copy->bytes = bytes;
  copy->state = *arena;
  return 0;
}

int wb_arena_copy_in(wb_arena *arena, const wb_arena_copy *copy) {
  if (arena->base == NULL || copy->bytes == NULL || arena->outside_blocks != 0) return -1;
  memcpy(arena->base, copy->bytes, copy->state.top);
  /* Pages a session used above the copy go back to the system, so that a
     state restored many times holds what one session needed at most once. */
  size_t page = 4096;
  size_t from = (copy->state.top + page - 1) & ~(page - 1);
  if (arena->high > from + ((size_t)1 << 20)) (void)madvise(arena->base + from, arena->high - from, MADV_DONTNEED);
  *arena = copy->state;
  arena->high = copy->state.top;
  return 0;
}

void wb_arena_copy_free(wb_arena_copy *copy) {
  free(copy->bytes);
  copy->bytes = NULL;
}
