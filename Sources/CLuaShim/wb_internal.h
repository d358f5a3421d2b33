#ifndef WB_INTERNAL_H
#define WB_INTERNAL_H

#include "wb_vm.h"
#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>

#define WB_MAX_ROOTS 8

typedef struct wb_root {
  char *directory;
  char *display;
} wb_root;

typedef struct wb_node {
  int parent;
  int is_table;
  int was_present;
} wb_node;

typedef enum wb_trip {
  WB_TRIP_NONE = 0,
  WB_TRIP_INSTRUCTIONS = 1,
  WB_TRIP_MEMORY = 2,
  WB_TRIP_INTERRUPT = 3,
} wb_trip;

/* wb_arena.c: a state's memory in one region, its freed blocks reused by
   size class; a restorable state's copied out and back whole. */
enum { WB_ARENA_CLASSES = 40 };

typedef struct wb_arena {
  char *base; /* NULL: blocks come from malloc */
  size_t reserved;
  size_t top;
  /* The highest top since the last copy_in: pages below it may be in use. */
  size_t high;
  void *free_lists[WB_ARENA_CLASSES];
  /* Blocks from malloc because the region was full, still in use. */
  size_t outside_blocks;
} wb_arena;

typedef struct wb_arena_copy {
  wb_arena state;
  char *bytes;
} wb_arena_copy;

int wb_arena_reserve(wb_arena *arena, size_t bytes);
void wb_arena_release(wb_arena *arena);
void *wb_arena_resize(wb_arena *arena, void *pointer, size_t old_size, size_t new_size);
int wb_arena_copy_out(const wb_arena *arena, wb_arena_copy *copy);
int wb_arena_copy_in(wb_arena *arena, const wb_arena_copy *copy);
void wb_arena_copy_free(wb_arena_copy *copy);

/* What wb_vm_restore puts back besides the state's memory. */
typedef struct wb_saved_state {
  wb_arena_copy memory;
  int taken;
  wb_limits limits;
  size_t memory_in_use;
  size_t memory_peak;
  int node_count;
  wb_node *nodes;
  int ref_flow;
  int ref_driver;
  int ref_driver_state;
  int ref_bound;
} wb_saved_state;

struct wb_vm {
  lua_State *L;
  wb_limits limits;
  wb_arena arena;
  /* Made restorable with a cap: only then may the state be copied out and back. */
  int restorable;
  wb_saved_state snapshot;

  size_t memory_in_use;
  size_t memory_peak;
  int64_t instructions_used;
  /* Once a limit is hit the run is over: the hook fires on every
     instruction and raises again, so a script cannot pcall its way on. */
  wb_trip tripped;
  int running;
  char memory_file[128];
  int memory_line;

  wb_host_fn host_fn;
  void *host;
  /* The thread whose call the host is answering; NULL outside a host call. */
  lua_State *calling_state;
  char function_names[WB_MAX_FUNCTIONS][32];
  int function_count;
  char *reply;
  size_t reply_length;
  size_t reply_capacity;

  wb_root roots[WB_MAX_ROOTS];
  char library_prefix[256];
  char main_chunk[256];
  int root_count;

  wb_node *nodes;
  int node_count;
  int node_capacity;

  /* Registry references. */
  int ref_flow;
  int ref_measurements; /* the reused table m */
  int ref_node_tables;  /* node id + 1 -> cached table */
  int ref_node_keys;    /* node id + 1 -> key */
  int ref_driver;
  int ref_driver_state; /* driver.state */
  int ref_bound;        /* 2i-1 -> function, 2i -> self, as driver.bind(i) gave them */

  /* Last error. */
  wb_error error;
  char *error_message;
  char *error_traceback;
  char error_file[256];

  char *json;
  size_t json_length;
  char *reason;
};

/* wb_patterns.c */
void wb_guard_string_patterns(lua_State *L);
/* wb_json.c: pushes the JSON text of the `count` values from stack index
   `first` on: one value, or a JSON array of all of them when `as_array`. */
void wb_json_push(lua_State *L, int first, int count, int as_array);
/* wb_vm.c */
wb_vm *wb_vm_from_state(lua_State *L);

/* luaL_loadbufferx(L, source, length, name, "t"), from bytecode compiled
 * before in this process when the same name and source come again. */
int wb_load_text_chunk(lua_State *L, const char *source, size_t length, const char *name);

#endif
