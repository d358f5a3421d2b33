/*
 * The C side of the Lua boundary.
 *
 * Lua raises errors with longjmp, and a longjmp across Swift frames is
 * undefined behaviour. Every entry point here therefore runs Lua inside a
 * protected call and reports failure as a status plus a wb_error record;
 * Swift only ever calls functions of this header, never a raising Lua API.
 *
 * Calls from Lua into the host go through wb_host_fn. Arguments reach the
 * host as JSON text; the host answers with a Lua expression (or an error
 * message), which C turns into Lua values. The host never touches the Lua
 * stack, so a memory error can never unwind through it.
 */
#ifndef WB_VM_H
#define WB_VM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wb_vm wb_vm;

typedef enum wb_status {
  WB_OK = 0,
  WB_ERR_SYNTAX = 1,        /* the chunk does not compile */
  WB_ERR_RUNTIME = 2,       /* a Lua error (or an error raised by the host) */
  WB_ERR_MEMORY = 3,        /* the memory cap was reached */
  WB_ERR_INSTRUCTIONS = 4,  /* the instruction budget of one call was spent */
  WB_ERR_INTERRUPTED = 5,   /* SIGINT/SIGTERM arrived while Lua ran */
  WB_ERR_FILE = 6,          /* a file could not be read */
  WB_ERR_API = 7,           /* the script returned something unusable */
} wb_status;

typedef struct wb_limits {
  /* Bytes the state may hold; 0 means no cap. */
  size_t memory_limit;
  /* VM instructions per call into the script; 0 means no budget. */
  int64_t instruction_limit;
  /* Largest estimated step count of one string-pattern operation. */
  double pattern_budget;
} wb_limits;

/* What went wrong in the last failed call. Strings are owned by the VM. */
typedef struct wb_error {
  wb_status status;
  const char *message;    /* "file:line: message" when a position is known */
  const char *traceback;  /* "stack traceback:\n\t..." or "" */
  const char *file;       /* chunk name of the innermost Lua frame, or "" */
  int line;               /* its current line, or 0 */
} wb_error;

/*
 * Host callback. `function_id` is the id wb_vm_add_function gave the native
 * function the script called,
 * `args_json` is a JSON array of its arguments. Reply with wb_vm_reply (a Lua
 * expression giving the return values, e.g. "true", "{a=1}", "" for none)
 * and return 0, or with wb_vm_reply and return non-zero to raise the reply
 * text as a Lua error at the script's line.
 */
typedef int (*wb_host_fn)(void *host, int function_id, const char *args_json, size_t args_len);

wb_vm *wb_vm_new(const wb_limits *limits, wb_host_fn host_fn, void *host);

/*
 * A state that can be copied out and put back (`restorable` non-zero and a
 * memory cap). Every state's memory is one reserved region whose freed
 * blocks are reused (wb_arena.c); a restorable one's can be copied whole, as
 * long as no block outgrew it. wb_vm_snapshot copies the
 * state as it is; wb_vm_restore makes it that state again, whatever ran in
 * between, for the price of a memcpy. Both return 0, or -1 when they cannot:
 * a state that is not restorable (made with `restorable` zero or no cap,
 * or whose reservation failed), no snapshot taken, a call running, or blocks that outgrew the region (close
 * the state and make a new one). Take a snapshot outside any call. A
 * restore also puts back the limits the snapshot was taken with. The region
 * is `region_bytes` (0: for a restorable state four times the cap and 16 MiB,
 * at least 1 GiB, as a flow's own settings may raise the cap later; for any
 * other, twice the cap and 16 MiB, or 256 MiB without a cap; only pages in
 * use cost memory).
 */
wb_vm *wb_vm_new_restorable(const wb_limits *limits, wb_host_fn host_fn, void *host, int restorable,
                            size_t region_bytes);
int wb_vm_snapshot(wb_vm *vm);
int wb_vm_restore(wb_vm *vm);
/* The bytes the snapshot holds; 0 when none was taken. */
size_t wb_vm_snapshot_bytes(const wb_vm *vm);

/* Offers a host function to scripts, as a field of the table require
   "wb.native" returns; a function named "log" also receives print(...).
   Returns its id (1, 2, ...), or 0 when the name is empty, too long (over
   31 bytes), already taken, or there are WB_MAX_FUNCTIONS already. Add them
   before the first script runs. */
enum { WB_MAX_FUNCTIONS = 32 };
int wb_vm_add_function(wb_vm *vm, const char *name);

/* While the host answers a call: "file:line: " of the function `level`
   frames up the calling thread's stack (1: the caller of the host
   function), skipping the step library's frames (wb_vm_set_library_prefix),
   else "<main chunk>: ", written NUL-terminated into `out` (cut at
   capacity). Returns its length; 0 outside a host call. Reads the stack
   only: raises nothing, so Swift may call it. */
size_t wb_vm_caller_position(wb_vm *vm, int level, char *out, size_t capacity);
void wb_vm_close(wb_vm *vm);
void wb_vm_set_limits(wb_vm *vm, const wb_limits *limits);

/* Where `require` looks, in order. `display` prefixes chunk names in errors. */
int wb_vm_add_require_root(wb_vm *vm, const char *directory, const char *display);

/* Chunks whose name starts with `prefix` are the step library: errors the
   host raises name the first line outside it. */
void wb_vm_set_library_prefix(wb_vm *vm, const char *prefix);

/* Sets the seed of math.random so that runs are reproducible. */
void wb_vm_seed_random(wb_vm *vm, int64_t seed);

/* Loads and runs a text chunk; its first result is kept as the "flow" value. */
wb_status wb_vm_run_file(wb_vm *vm, const char *path, const char *chunk_name);
wb_status wb_vm_run_string(wb_vm *vm, const char *code, size_t length, const char *chunk_name);

/*
 * Calls require(module)[function](value, m) on the kept value and the
 * reused measurement table. It must return a plain description (serialised
 * to JSON in *json_out, owned by the VM) and a driver: a table of functions
 * the host calls with wb_vm_call_driver and wb_vm_call_driver_value.
 */
wb_status wb_vm_open_driver(wb_vm *vm, const char *module, const char *function, const char **json_out,
                            size_t *json_length);
/* The value the last chunk returned, as JSON (a scenario file's table).
   Functions and other values JSON cannot hold are an error. */
wb_status wb_vm_returned_json(wb_vm *vm, const char **json_out, size_t *json_length);

/* Calls driver[function](value), `value` a Lua expression from the host (or
   NULL for nil); nothing when there is no driver or no such function. */
wb_status wb_vm_call_driver_value(wb_vm *vm, const char *function, const char *argument_lua);

/* ---- measurements ------------------------------------------------------ */

/* A measurement value for one schema node in one frame. */
typedef enum wb_value_kind {
  WB_ABSENT = 0,
  WB_FALSE = 1,
  WB_TRUE = 2,
  WB_INTEGER = 3,
  WB_NUMBER = 4,
  WB_STRING = 5,
  WB_TABLE = 6, /* a table node that is present in this frame */
} wb_value_kind;

typedef struct wb_slot {
  int32_t kind;
  int32_t string_length;
  int64_t integer;
  double number;
  const char *string;
} wb_slot;

/*
 * Adds a node to the measurement tree and returns its id (0, 1, 2, ...).
 * `parent` is -1 for the top level. A string key when `index` is 0, else
 * the integer key `index`. Parents must be added before their children.
 */
int wb_vm_schema_add(wb_vm *vm, int parent, const char *key, size_t key_length, int64_t index, int is_table);

/* One frame of measurements: a slot per schema node, and m.t, m.frame. */
typedef struct wb_frame {
  const wb_slot *slots;
  int32_t slot_count;
  double t;
  int64_t index;
} wb_frame;

/* The first result of a driver call, by kind. */
typedef enum wb_result_kind {
  WB_RESULT_NIL = 0,
  WB_RESULT_TRUE = 1,
  WB_RESULT_FALSE = 2,
  WB_RESULT_OTHER = 3,
} wb_result_kind;

/* Up to three results: the first by kind (with its type name when it is
   another kind), a string second (owned by the VM, or NULL), a number third. */
typedef struct wb_call_result {
  int32_t kind;
  const char *other_type;
  const char *string;
  int64_t integer;
  int32_t has_integer;
} wb_call_result;

/*
 * Calls driver[function](index, numbers...) in one protected call; `index`
 * reaches Lua as an integer.
 */
wb_status wb_vm_call_driver(wb_vm *vm, const char *function, int64_t index, const double *numbers,
                            int number_count, wb_call_result *result);

/*
 * The call the host makes on every frame, with no lookup on the way: the
 * function and self that driver.bind(index) returned (asked once per index)
 * are called as function(self, m, state), with m refilled from `frame`,
 * after state[state_key] = state_number (`state` is driver.state, a table).
 */
wb_status wb_vm_call_bound(wb_vm *vm, int64_t index, const wb_frame *frame, const char *state_key,
                           double state_number, wb_call_result *result);

/* ---- host replies and errors ------------------------------------------- */

void wb_vm_reply(wb_vm *vm, const char *text, size_t length);
const wb_error *wb_vm_last_error(const wb_vm *vm);

/* Memory in use by the state, and the most it has used, in bytes. */
size_t wb_vm_memory_in_use(const wb_vm *vm);
size_t wb_vm_memory_peak(const wb_vm *vm);

/* The files require() has read, in order (the paths as found, for a watcher
 * that reloads the flow when one changes): how many, and the i-th (0-based)
 * copied into `out` (NUL-terminated, cut at capacity); returns its length,
 * or 0 past the end. */
int wb_vm_required_file_count(wb_vm *vm);
size_t wb_vm_required_file(wb_vm *vm, int i, char *out, size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
