#include "wb_internal.h"

#include <CInterrupts.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WB_HOOK_PERIOD 1000
#define WB_TRACEBACK_LEVELS 12

/* ---- the state's owner ------------------------------------------------- */

wb_vm *wb_vm_from_state(lua_State *L) {
  wb_vm *vm;
  memcpy(&vm, lua_getextraspace(L), sizeof vm);
  return vm;
}

static char *duplicate(const char *text, size_t length) {
  char *copy = malloc(length + 1);
  if (copy == NULL) return NULL;
  memcpy(copy, text, length);
  copy[length] = 0;
  return copy;
}

/* ---- memory cap --------------------------------------------------------- */

/* Notes where the script was when the cap was hit: memory errors bypass the
   message handler, so this is the only chance to learn the line. */
static void note_memory_position(wb_vm *vm) {
  if (vm->L == NULL || !vm->running || vm->memory_line != 0) return;
  lua_Debug ar;
  for (int level = 0; level < 16 && lua_getstack(vm->L, level, &ar); level++) {
    if (lua_getinfo(vm->L, "Sl", &ar) && ar.currentline > 0) {
      snprintf(vm->memory_file, sizeof vm->memory_file, "%s", ar.short_src);
      vm->memory_line = ar.currentline;
      return;
    }
  }
}

static void *limited_alloc(void *ud, void *pointer, size_t old_size, size_t new_size) {
  wb_vm *vm = ud;
  size_t previous = (pointer != NULL) ? old_size : 0;
  if (new_size == 0) {
    if (vm->arena.base != NULL) wb_arena_resize(&vm->arena, pointer, old_size, 0);
    else free(pointer);
    vm->memory_in_use -= previous;
    return NULL;
  }
  if (vm->limits.memory_limit > 0 && new_size > previous &&
      vm->memory_in_use - previous + new_size > vm->limits.memory_limit) {
    if (vm->running) {
      note_memory_position(vm);
      vm->tripped = WB_TRIP_MEMORY;
      /* The hook will refuse every further instruction of this run. */
      if (vm->L != NULL) lua_sethook(vm->L, lua_gethook(vm->L), LUA_MASKCOUNT, 1);
    }
    return NULL;
  }
  void *block = vm->arena.base != NULL ? wb_arena_resize(&vm->arena, pointer, previous, new_size)
                                        : realloc(pointer, new_size);
  if (block == NULL) return NULL;
  vm->memory_in_use = vm->memory_in_use - previous + new_size;
  if (vm->memory_in_use > vm->memory_peak) vm->memory_peak = vm->memory_in_use;
  return block;
}

/* ---- instruction budget and interruption -------------------------------- */

static void raise_at_current_line(lua_State *L, const char *what) {
  lua_Debug ar;
  if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
    lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, what);
  } else {
    lua_pushstring(L, what);
  }
  lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  wb_vm *vm = wb_vm_from_state(L);
  if (vm->tripped == WB_TRIP_NONE) {
    if (wb_interrupt_pending()) {
      vm->tripped = WB_TRIP_INTERRUPT;
    } else if (vm->limits.instruction_limit > 0) {
      vm->instructions_used += WB_HOOK_PERIOD;
      if (vm->instructions_used > vm->limits.instruction_limit) vm->tripped = WB_TRIP_INSTRUCTIONS;
    }
    if (vm->tripped == WB_TRIP_NONE) return;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  }
  switch (vm->tripped) {
  case WB_TRIP_INSTRUCTIONS: {
    char what[128];
    snprintf(what, sizeof what, "instruction limit exceeded (%lld instructions in one call)",
             (long long)vm->limits.instruction_limit);
    raise_at_current_line(L, what);
    break;
  }
  case WB_TRIP_MEMORY:
    raise_at_current_line(L, "memory limit exceeded");
    break;
  case WB_TRIP_INTERRUPT:
    raise_at_current_line(L, "interrupted");
    break;
  default:
    break;
  }
}

/* ---- errors ------------------------------------------------------------- */

static void clear_error(wb_vm *vm) {
  free(vm->error_message);
  free(vm->error_traceback);
  vm->error_message = NULL;
  vm->error_traceback = NULL;
  vm->error_file[0] = 0;
  vm->error.status = WB_OK;
  vm->error.message = "";
  vm->error.traceback = "";
  vm->error.file = vm->error_file;
  vm->error.line = 0;
}

static void set_error(wb_vm *vm, wb_status status, const char *message, const char *traceback) {
  free(vm->error_message);
  free(vm->error_traceback);
  vm->error_message = duplicate(message, strlen(message));
  vm->error_traceback = duplicate(traceback, strlen(traceback));
  vm->error.status = status;
  vm->error.message = vm->error_message ? vm->error_message : "out of memory";
  vm->error.traceback = vm->error_traceback ? vm->error_traceback : "";
  vm->error.file = vm->error_file;
}

/* Message handler: "file:line: message" plus a short traceback, and the
   innermost Lua position kept apart for the host. */
static int message_handler(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  /* The position kept apart is the flow's: the innermost Lua frame outside
     the step library, else the innermost Lua frame. */
  lua_Debug ar;
  vm->error_file[0] = 0;
  vm->error.line = 0;
  size_t prefix_length = strlen(vm->library_prefix);
  for (int level = 1; level < 32 && lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
    int in_library = prefix_length > 0 && strncmp(ar.short_src, vm->library_prefix, prefix_length) == 0;
    if (vm->error.line == 0 || !in_library) {
      snprintf(vm->error_file, sizeof vm->error_file, "%s", ar.short_src);
      vm->error.line = ar.currentline;
    }
    if (!in_library) break;
  }
  const char *message = lua_tostring(L, 1);
  if (message == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
      message = lua_tostring(L, -1);
    } else {
      /* error({...}) carries no position of its own, as error("...") does:
         give it the flow's, and its `message` field when it has one. */
      const char *detail = NULL;
      if (lua_type(L, 1) == LUA_TTABLE && lua_getfield(L, 1, "message") == LUA_TSTRING) {
        detail = lua_tostring(L, -1);
      }
      char where[300] = "";
      if (vm->error.line > 0) snprintf(where, sizeof where, "%s:%d: ", vm->error_file, vm->error.line);
      if (detail) {
        message = lua_pushfstring(L, "%s%s", where, detail);
      } else {
        message = lua_pushfstring(
          L, "%serror raised with a %s value, not a message (give error a string: error(\"what went wrong\"))",
          where, luaL_typename(L, 1));
      }
    }
  }
  luaL_traceback(L, L, message, 1);
  return 1;
}

/* Runs `function` with `arguments` under the message handler. The results
   stay on the stack on success; on failure the error record is filled. */
static wb_status protected_call(wb_vm *vm, int arguments, int results) {
  lua_State *L = vm->L;
  int function_index = lua_gettop(L) - arguments;
  lua_pushcfunction(L, message_handler);
  lua_insert(L, function_index);
  vm->instructions_used = 0;
  vm->memory_line = 0;
  vm->running = 1;
  vm->error_file[0] = 0;
  vm->error.line = 0;
  int code = lua_pcall(L, arguments, results, function_index);
  vm->running = 0;
  lua_remove(L, function_index);
  if (code == LUA_OK && vm->tripped == WB_TRIP_NONE) return WB_OK;

  wb_status status = WB_ERR_RUNTIME;
  if (vm->tripped == WB_TRIP_INSTRUCTIONS) status = WB_ERR_INSTRUCTIONS;
  else if (vm->tripped == WB_TRIP_MEMORY || code == LUA_ERRMEM) status = WB_ERR_MEMORY;
  else if (vm->tripped == WB_TRIP_INTERRUPT) status = WB_ERR_INTERRUPTED;

  if (code == LUA_OK) {
    /* The script swallowed the limit's error; the run still ends. */
    lua_pop(L, results == LUA_MULTRET ? 0 : results);
    const char *what = status == WB_ERR_MEMORY ? "memory limit exceeded (the error was caught by pcall)"
                       : status == WB_ERR_INTERRUPTED ? "interrupted"
                                                      : "instruction limit exceeded (the error was caught by pcall)";
    set_error(vm, status, what, "");
    return status;
  }
  if (code == LUA_ERRMEM || status == WB_ERR_MEMORY) {
    char text[256];
    if (vm->memory_line > 0) {
      snprintf(vm->error_file, sizeof vm->error_file, "%s", vm->memory_file);
      vm->error.line = vm->memory_line;
      snprintf(text, sizeof text, "%s:%d: memory limit exceeded (%zu bytes)", vm->memory_file,
               vm->memory_line, vm->limits.memory_limit);
    } else {
      snprintf(text, sizeof text, "memory limit exceeded (%zu bytes)", vm->limits.memory_limit);
    }
    lua_pop(L, 1);
    set_error(vm, WB_ERR_MEMORY, text, "");
    return WB_ERR_MEMORY;
  }
  /* The handler wrote "message\nstack traceback:\n..."; split it. */
  const char *message = lua_tostring(L, -1);
  const char *newline = message ? strstr(message, "\nstack traceback:") : NULL;
  if (message == NULL) {
    set_error(vm, status, "(error without a message)", "");
  } else if (newline != NULL) {
    size_t head = (size_t)(newline - message);
    char *text = duplicate(message, head);
    set_error(vm, status, text ? text : message, newline + 1);
    free(text);
  } else {
    set_error(vm, status, message, "");
  }
  lua_pop(L, 1);
  return status;
}

/* ---- require ------------------------------------------------------------ */

static int native_function(lua_State *L);

/* `where` of wb.native: a host function like the others (the host answers
   it by calling this), so it reads the stack and raises nothing. */
size_t wb_vm_caller_position(wb_vm *vm, int level, char *out, size_t capacity) {
  if (capacity == 0) return 0;
  out[0] = 0;
  lua_State *L = vm->calling_state;
  if (L == NULL) return 0;
  lua_Debug ar;
  size_t prefix_length = strlen(vm->library_prefix);
  int written = -1;
  /* The step library passes calls on (a plain-table flow reaches wb.flow
     through wb.runtime): the position wanted is the first one outside it. */
  for (; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) break;
    if (prefix_length > 0 && strncmp(ar.short_src, vm->library_prefix, prefix_length) == 0) continue;
    written = snprintf(out, capacity, "%s:%d: ", ar.short_src, ar.currentline);
    break;
  }
  /* `return wb.flow { ... }` is a tail call: the flow's frame is gone, but
     the mistake is still in the flow file. */
  if (written < 0 && vm->main_chunk[0] != 0) written = snprintf(out, capacity, "%s: ", vm->main_chunk);
  if (written < 0) return 0;
  return (size_t)written < capacity ? (size_t)written : capacity - 1;
}

int wb_vm_add_function(wb_vm *vm, const char *name) {
  size_t length = strlen(name);
  if (length == 0 || length >= sizeof vm->function_names[0] || vm->function_count >= WB_MAX_FUNCTIONS) return 0;
  for (int i = 0; i < vm->function_count; i++) {
    if (strcmp(vm->function_names[i], name) == 0) return 0;
  }
  memcpy(vm->function_names[vm->function_count], name, length + 1);
  return ++vm->function_count;
}

/* The id of the host function `name`, 0 when the host offers none. */
static int function_id(const wb_vm *vm, const char *name) {
  for (int i = 0; i < vm->function_count; i++) {
    if (strcmp(vm->function_names[i], name) == 0) return i + 1;
  }
  return 0;
}

static void push_native_module(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  lua_createtable(L, 0, vm->function_count);
  for (int i = 0; i < vm->function_count; i++) {
    lua_pushinteger(L, i + 1);
    lua_pushcclosure(L, native_function, 1);
    lua_setfield(L, -2, vm->function_names[i]);
  }
}

static int is_valid_module_name(const char *name, size_t length) {
  if (length == 0 || length > 200 || name[0] == '.' || name[length - 1] == '.') return 0;
  for (size_t i = 0; i < length; i++) {
    char c = name[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
             c == '-' || (c == '.' && name[i + 1] != '.');
    if (!ok) return 0;
  }
  return 1;
}

static char *read_whole_file(const char *path, size_t *length, int *error_number) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) {
    *error_number = errno;
    return NULL;
  }
  size_t capacity = 8192, used = 0;
  char *buffer = malloc(capacity);
  while (buffer != NULL) {
    size_t got = fread(buffer + used, 1, capacity - used, file);
    used += got;
    if (used < capacity) break;
    capacity *= 2;
    char *bigger = realloc(buffer, capacity);
    if (bigger == NULL) free(buffer);
    buffer = bigger;
  }
  *error_number = ferror(file) ? EIO : 0;
  fclose(file);
  if (buffer == NULL) *error_number = ENOMEM;
  if (*error_number != 0) {
    free(buffer);
    return NULL;
  }
  *length = used;
  return buffer;
}

#define WB_REQUIRED_FILES "wb.required_files"

/* Notes a file require() read, in the registry: raises only on memory errors,
 * inside the protected call of require. */
static void note_required_file(lua_State *L, const char *path) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, WB_REQUIRED_FILES) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, WB_REQUIRED_FILES);
  }
  lua_pushstring(L, path);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_pop(L, 1);
}

/* require(name): only text modules inside the require roots; no C modules. */
static int sandboxed_require(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  size_t name_length;
  const char *name = luaL_checklstring(L, 1, &name_length);
  lua_settop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* 2 */
  lua_getfield(L, 2, name);
  if (lua_toboolean(L, -1)) return 1;
  lua_pop(L, 1);
  if (strcmp(name, "wb.native") == 0) {
    push_native_module(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, name);
    return 1;
  }
  if (!is_valid_module_name(name, name_length)) {
    return luaL_error(L, "module name '%s' is not allowed (use letters, digits, '_', '-' and dots)", name);
  }
  char relative[256];
  snprintf(relative, sizeof relative, "%s", name);
  for (char *c = relative; *c; c++)
    if (*c == '.') *c = '/';

  char tried[2048] = "";
  size_t tried_length = 0;
  static const char *const patterns[] = {"%s/%s.lua", "%s/%s/init.lua"};
  for (int i = 0; i < vm->root_count; i++) {
    for (int p = 0; p < 2; p++) {
      char path[1024];
      char chunk[512];
      snprintf(path, sizeof path, patterns[p], vm->roots[i].directory, relative);
      snprintf(chunk, sizeof chunk, patterns[p], vm->roots[i].display, relative);
      size_t length;
      int error_number;
      char *source = read_whole_file(path, &length, &error_number);
      if (source == NULL) {
        if (error_number != ENOENT && error_number != ENOTDIR && error_number != EISDIR) {
          return luaL_error(L, "cannot read module '%s' from %s: %s", name, chunk, strerror(error_number));
        }
        if (tried_length < sizeof tried - 1) {
          tried_length += (size_t)snprintf(tried + tried_length, sizeof tried - tried_length, "\n\tno file %s", chunk);
        }
        continue;
      }
      lua_pushfstring(L, "@%s", chunk); /* 3 */
      int status = wb_load_text_chunk(L, source, length, lua_tostring(L, 3));
      free(source);
      /* Before a load error is raised: a module that does not load is watched all the same. */
      note_required_file(L, path);
      if (status != LUA_OK) return lua_error(L);
      lua_pushstring(L, name);
      lua_call(L, 1, 1); /* 4 */
      if (lua_isnil(L, 4)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
      }
      lua_pushvalue(L, 4);
      lua_setfield(L, 2, name);
      return 1;
    }
  }
  return luaL_error(L, "module '%s' not found in the flow's folder, configs/ or plugins/:%s", name, tried);
}

/* ---- sandbox ------------------------------------------------------------ */

/* load(chunk [, name [, mode [, env]]]): text chunks only. */
static int text_only_load(lua_State *L) {
  int arguments = lua_gettop(L);
  if (arguments >= 3 && !lua_isnil(L, 3)) {
    const char *mode = luaL_checkstring(L, 3);
    if (strcmp(mode, "t") != 0) return luaL_error(L, "load: only text chunks are allowed (mode \"t\")");
  }
  lua_settop(L, arguments < 3 ? 3 : arguments);
  lua_pushstring(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* collectgarbage: "collect", "count" and "step" only, so a script cannot
   switch the collector off or change its tuning. */
static int limited_collectgarbage(lua_State *L) {
  const char *option = luaL_optstring(L, 1, "collect");
  if (strcmp(option, "collect") != 0 && strcmp(option, "count") != 0 && strcmp(option, "step") != 0) {
    return luaL_error(L, "collectgarbage(\"%s\") is not allowed in flows", option);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* print(...) goes to the log at info level, never to stdout. */
static int print_to_log(lua_State *L) {
  int arguments = lua_gettop(L);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (int i = 1; i <= arguments; i++) {
    if (i > 1) luaL_addchar(&buffer, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  int log = function_id(wb_vm_from_state(L), "log");
  if (log == 0) return 0;
  lua_pushinteger(L, log);
  lua_pushcclosure(L, native_function, 1);
  lua_pushstring(L, "info");
  lua_pushvalue(L, -3);
  lua_call(L, 2, 0);
  return 0;
}

/* Reading a global the sandbox removed says so, instead of the puzzling
   "attempt to index a nil value". Other missing globals stay nil. */
static int missing_global(lua_State *L) {
  const char *name = lua_tostring(L, 2);
  static const char *const removed[] = {"io", "debug", "package", "dofile", "loadfile", NULL};
  for (int i = 0; name != NULL && removed[i]; i++) {
    if (strcmp(name, removed[i]) == 0) {
      return luaL_error(L, "'%s' is not available in flows: the sandbox has no file, process or debug access", name);
    }
  }
  return 0;
}

static int missing_os_function(lua_State *L) {
  const char *name = lua_tostring(L, 2);
  return luaL_error(L, "os.%s is not available in flows: only os.clock, os.time and os.date are",
                    name ? name : "?");
}

static void explain_removed_globals(lua_State *L) {
  lua_pushglobaltable(L);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, missing_global);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  lua_getglobal(L, "os");
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, missing_os_function);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
}

static void open_sandbox(lua_State *L) {
  static const luaL_Reg libraries[] = {
      {LUA_GNAME, luaopen_base},        {LUA_TABLIBNAME, luaopen_table}, {LUA_STRLIBNAME, luaopen_string},
      {LUA_MATHLIBNAME, luaopen_math},  {LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_COLIBNAME, luaopen_coroutine},
      {LUA_OSLIBNAME, luaopen_os},      {NULL, NULL},
  };
  for (const luaL_Reg *library = libraries; library->func != NULL; library++) {
    luaL_requiref(L, library->name, library->func, 1);
    lua_pop(L, 1);
  }
  /* os: only the clock and the calendar. */
  lua_getglobal(L, "os");
  lua_createtable(L, 0, 3);
  static const char *const os_kept[] = {"clock", "time", "date", NULL};
  for (int i = 0; os_kept[i]; i++) {
    lua_getfield(L, -2, os_kept[i]);
    lua_setfield(L, -2, os_kept[i]);
  }
  lua_setglobal(L, "os");
  lua_pop(L, 1);
  /* Keep only the os table we built in package.loaded too. */
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getglobal(L, "os");
  lua_setfield(L, -2, "os");
  lua_pop(L, 1);

  static const char *const removed[] = {"dofile", "loadfile", NULL};
  for (int i = 0; removed[i]; i++) {
    lua_pushnil(L);
    lua_setglobal(L, removed[i]);
  }
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);

  lua_getglobal(L, "load");
  lua_pushcclosure(L, text_only_load, 1);
  lua_setglobal(L, "load");
  lua_getglobal(L, "collectgarbage");
  lua_pushcclosure(L, limited_collectgarbage, 1);
  lua_setglobal(L, "collectgarbage");
  lua_pushcfunction(L, print_to_log);
  lua_setglobal(L, "print");
  lua_pushcfunction(L, sandboxed_require);
  lua_setglobal(L, "require");

  wb_guard_string_patterns(L);
  explain_removed_globals(L);
}

/* Only reached by a Lua error outside any protected call, which the host
   never makes on purpose: say what happened before aborting. */
static int panic(lua_State *L) {
  const char *message = lua_tostring(L, -1);
  fprintf(stderr, "workbench: unprotected Lua error: %s\n", message ? message : "(no message)");
  fflush(stderr);
  return 0; /* Lua aborts after the panic function returns. */
}

static int new_reference_table(lua_State *L) {
  lua_newtable(L);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

static int open_state(lua_State *L) {
  wb_vm *vm = lua_touserdata(L, 1);
  open_sandbox(L);
  lua_newtable(L);
  vm->ref_measurements = luaL_ref(L, LUA_REGISTRYINDEX);
  vm->ref_node_tables = new_reference_table(L);
  vm->ref_node_keys = new_reference_table(L);
  return 0;
}

wb_vm *wb_vm_new(const wb_limits *limits, wb_host_fn host_fn, void *host) {
  return wb_vm_new_restorable(limits, host_fn, host, 0, 0);
}

wb_vm *wb_vm_new_restorable(const wb_limits *limits, wb_host_fn host_fn, void *host, int restorable,
                            size_t region_bytes) {
  wb_vm *vm = calloc(1, sizeof *vm);
  if (vm == NULL) return NULL;
  /* Every state gets a region, restorable or not: its freed blocks are
     reused by class, so a flow stepping frame after frame stops calling
     malloc once its garbage settles. Past the region, blocks come from
     malloc (and the state can no longer be copied), which is slower but
     never wrong; without it (the reservation refused), from realloc. A
     restorable state's region has room for the cap's worth of blocks
     rounded up to their classes, and then some, at least 1 GiB as a flow's
     own settings may raise the cap after this. Any other state's is twice
     its cap and 16 MiB (256 MiB without a cap): freed blocks are kept for
     reuse and never merged, and that bounds what the state holds. */
  vm->restorable = restorable && limits->memory_limit > 0;
  if (limits->memory_limit <= ((size_t)1 << 34)) {
    size_t room;
    if (vm->restorable) {
      room = limits->memory_limit * 4 + ((size_t)16 << 20);
      if (room < ((size_t)1 << 30)) room = (size_t)1 << 30;
    } else {
      room = limits->memory_limit > 0 ? limits->memory_limit * 2 + ((size_t)16 << 20) : (size_t)256 << 20;
    }
    (void)wb_arena_reserve(&vm->arena, region_bytes > 0 ? region_bytes : room);
  }
  vm->limits = *limits;
  vm->host_fn = host_fn;
  vm->host = host;
  vm->ref_flow = LUA_NOREF;
  vm->ref_driver = LUA_NOREF;
  vm->ref_driver_state = LUA_NOREF;
  vm->ref_bound = LUA_NOREF;
  clear_error(vm);
  /* No cap while the standard libraries open: they are the host's. */
  size_t cap = vm->limits.memory_limit;
  vm->limits.memory_limit = 0;
  lua_State *L = lua_newstate(limited_alloc, vm);
  if (L == NULL) {
    wb_arena_release(&vm->arena);
    free(vm);
    return NULL;
  }
  memcpy(lua_getextraspace(L), &vm, sizeof vm);
  lua_atpanic(L, panic);
  lua_pushcfunction(L, open_state);
  lua_pushlightuserdata(L, vm);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    lua_close(L);
    wb_arena_release(&vm->arena);
    free(vm);
    return NULL;
  }
  vm->L = L;
  vm->limits.memory_limit = cap;
  lua_sethook(L, count_hook, LUA_MASKCOUNT, WB_HOOK_PERIOD);
  return vm;
}

void wb_vm_close(wb_vm *vm) {
  if (vm == NULL) return;
  vm->running = 0;
  if (vm->L != NULL) lua_close(vm->L);
  wb_arena_release(&vm->arena);
  wb_arena_copy_free(&vm->snapshot.memory);
  free(vm->snapshot.nodes);
  for (int i = 0; i < vm->root_count; i++) {
    free(vm->roots[i].directory);
    free(vm->roots[i].display);
  }
  free(vm->nodes);
  free(vm->reply);
  free(vm->error_message);
  free(vm->error_traceback);
  free(vm->json);
  free(vm->reason);
  free(vm);
}

int wb_vm_add_require_root(wb_vm *vm, const char *directory, const char *display) {
  if (vm->root_count >= WB_MAX_ROOTS) return -1;
  vm->roots[vm->root_count].directory = duplicate(directory, strlen(directory));
  vm->roots[vm->root_count].display = duplicate(display, strlen(display));
  vm->root_count++;
  return 0;
}

static int seed_random(lua_State *L) {
  lua_getglobal(L, "math");
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, (lua_Integer)lua_tointeger(L, 1));
  lua_call(L, 1, 0);
  return 0;
}

void wb_vm_seed_random(wb_vm *vm, int64_t seed) {
  lua_pushcfunction(vm->L, seed_random);
  lua_pushinteger(vm->L, (lua_Integer)seed);
  lua_pcall(vm->L, 1, 0, 0);
}

/* ---- running chunks ----------------------------------------------------- */

static wb_status load_failed(wb_vm *vm, int code) {
  const char *message = lua_tostring(vm->L, -1);
  set_error(vm, code == LUA_ERRSYNTAX ? WB_ERR_SYNTAX : (code == LUA_ERRMEM ? WB_ERR_MEMORY : WB_ERR_RUNTIME),
            message ? message : "cannot load chunk", "");
  /* Syntax errors read "file:line: message"; keep the position apart too. */
  if (message != NULL) {
    const char *colon = strchr(message, ':');
    if (colon != NULL) {
      size_t file_length = (size_t)(colon - message);
      if (file_length >= sizeof vm->error_file) file_length = sizeof vm->error_file - 1;
      memcpy(vm->error_file, message, file_length);
      vm->error_file[file_length] = 0;
      vm->error.line = atoi(colon + 1);
    }
  }
  lua_pop(vm->L, 1);
  return vm->error.status;
}

static wb_status run_loaded_chunk(wb_vm *vm) {
  wb_status status = protected_call(vm, 0, 1);
  if (status != WB_OK) return status;
  if (vm->ref_flow != LUA_NOREF) luaL_unref(vm->L, LUA_REGISTRYINDEX, vm->ref_flow);
  vm->ref_flow = luaL_ref(vm->L, LUA_REGISTRYINDEX);
  return WB_OK;
}

wb_status wb_vm_run_string(wb_vm *vm, const char *code, size_t length, const char *chunk_name) {
  clear_error(vm);
  char name[300];
  snprintf(name, sizeof name, "@%s", chunk_name);
  vm->running = 1;
  int load = luaL_loadbufferx(vm->L, code, length, name, "t");
  vm->running = 0;
  if (load != LUA_OK) return load_failed(vm, load);
  return run_loaded_chunk(vm);
}

wb_status wb_vm_run_file(wb_vm *vm, const char *path, const char *chunk_name) {
  clear_error(vm);
  snprintf(vm->main_chunk, sizeof vm->main_chunk, "%s", chunk_name);
  size_t length;
  int error_number;
  char *source = read_whole_file(path, &length, &error_number);
  if (source == NULL) {
    char text[600];
    snprintf(text, sizeof text, "cannot read %s: %s", chunk_name, strerror(error_number));
    set_error(vm, WB_ERR_FILE, text, "");
    return WB_ERR_FILE;
  }
  /* A "#!" first line is allowed, as in the stand-alone interpreter. */
  size_t skip = 0;
  if (length > 1 && source[0] == '#' && source[1] == '!') {
    while (skip < length && source[skip] != '\n') skip++;
  }
  char name[300];
  snprintf(name, sizeof name, "@%s", chunk_name);
  vm->running = 1;
  /* Keep the shebang's newline so that line numbers stay right. */
  int load = wb_load_text_chunk(vm->L, source + skip, length - skip, name);
  vm->running = 0;
  free(source);
  if (load != LUA_OK) return load_failed(vm, load);
  return run_loaded_chunk(vm);
}

/* ---- host calls --------------------------------------------------------- */

void wb_vm_reply(wb_vm *vm, const char *text, size_t length) {
  if (length + 1 > vm->reply_capacity) {
    size_t capacity = length + 1 < 256 ? 256 : length + 1;
    char *bigger = realloc(vm->reply, capacity);
    if (bigger == NULL) {
      vm->reply_length = 0;
      return;
    }
    vm->reply = bigger;
    vm->reply_capacity = capacity;
  }
  memcpy(vm->reply, text, length);
  vm->reply[length] = 0;
  vm->reply_length = length;
}

/* Errors found by the host are the flow's mistakes: name the flow's line,
   not the line of the step library that passed the call on. */
static void push_position_outside_library(lua_State *L, wb_vm *vm) {
  lua_Debug ar;
  size_t prefix_length = strlen(vm->library_prefix);
  for (int level = 1; level < 32 && lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
    if (prefix_length > 0 && strncmp(ar.short_src, vm->library_prefix, prefix_length) == 0) continue;
    lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
    return;
  }
  luaL_where(L, 1);
}

void wb_vm_set_library_prefix(wb_vm *vm, const char *prefix) {
  snprintf(vm->library_prefix, sizeof vm->library_prefix, "%s", prefix);
}

/* upvalue 1: the native function id. */
static int native_function(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  int id = (int)lua_tointeger(L, lua_upvalueindex(1));
  int arguments = lua_gettop(L);
  wb_json_push(L, 1, arguments, 1);
  size_t length;
  const char *json = lua_tolstring(L, -1, &length);
  vm->reply_length = 0;
  /* The host answers without touching Lua, but may read this thread's stack
     (wb_vm_caller_position): a coroutine's, when one made the call. */
  vm->calling_state = L;
  int failed = vm->host_fn(vm->host, id, json, length);
  vm->calling_state = NULL;
  if (failed) {
    push_position_outside_library(L, vm);
    lua_pushlstring(L, vm->reply ? vm->reply : "host error", vm->reply ? vm->reply_length : 10);
    lua_concat(L, 2);
    return lua_error(L);
  }
  if (vm->reply_length == 0) return 0;
  lua_pushliteral(L, "return ");
  lua_pushlstring(L, vm->reply, vm->reply_length);
  lua_concat(L, 2);
  size_t code_length;
  const char *code = lua_tolstring(L, -1, &code_length);
  if (luaL_loadbufferx(L, code, code_length, "=host", "t") != LUA_OK) return lua_error(L);
  int base = lua_gettop(L) - 1;
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - base;
}

/* ---- the driver ---------------------------------------------------------- */

typedef struct driver_open {
  const char *module;
  const char *function;
} driver_open;

static int open_driver(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  const driver_open *open = lua_touserdata(L, 1);
  lua_settop(L, 0);
  lua_getglobal(L, "require");
  lua_pushstring(L, open->module);
  lua_call(L, 1, 1);
  if (!lua_istable(L, -1)) return luaL_error(L, "module '%s' is not a table", open->module);
  lua_getfield(L, -1, open->function);
  if (!lua_isfunction(L, -1)) return luaL_error(L, "module '%s' has no function '%s'", open->module, open->function);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_flow);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_measurements);
  lua_call(L, 2, 2); /* description, driver */
  if (!lua_istable(L, -2) || !lua_istable(L, -1)) {
    return luaL_error(L, "%s.%s must return a description and a driver", open->module, open->function);
  }
  if (vm->ref_driver != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, vm->ref_driver);
  if (vm->ref_driver_state != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, vm->ref_driver_state);
  if (vm->ref_bound != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, vm->ref_bound);
  lua_getfield(L, -1, "state");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
  }
  vm->ref_driver_state = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  vm->ref_bound = luaL_ref(L, LUA_REGISTRYINDEX);
  vm->ref_driver = luaL_ref(L, LUA_REGISTRYINDEX);
  wb_json_push(L, -1, 1, 0);
  return 1;
}

/* Runs `producer` (which leaves one JSON string on the stack; `argument`
   reaches it as a light userdata) in protected mode and keeps the text in
   vm->json until the next call. */
static wb_status keep_json(wb_vm *vm, lua_CFunction producer, void *argument, const char *missing,
                           const char **json_out, size_t *json_length) {
  clear_error(vm);
  if (vm->ref_flow == LUA_NOREF) {
    set_error(vm, WB_ERR_API, missing, "");
    return WB_ERR_API;
  }
  lua_pushcfunction(vm->L, producer);
  lua_pushlightuserdata(vm->L, argument);
  wb_status status = protected_call(vm, 1, 1);
  if (status != WB_OK) return status;
  size_t length;
  const char *json = lua_tolstring(vm->L, -1, &length);
  free(vm->json);
  vm->json = duplicate(json, length);
  vm->json_length = length;
  lua_pop(vm->L, 1);
  *json_out = vm->json;
  *json_length = vm->json_length;
  return WB_OK;
}

wb_status wb_vm_open_driver(wb_vm *vm, const char *module, const char *function, const char **json_out,
                            size_t *json_length) {
  driver_open open = {module, function};
  return keep_json(vm, open_driver, &open, "no flow was loaded", json_out, json_length);
}

static int returned_json(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_flow);
  wb_json_push(L, -1, 1, 0);
  return 1;
}

wb_status wb_vm_returned_json(wb_vm *vm, const char **json_out, size_t *json_length) {
  return keep_json(vm, returned_json, NULL, "no chunk was run", json_out, json_length);
}

/* Calls driver[function](argument) where argument is a Lua expression from
   the host (or nil). */
static int call_driver_value(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  const char *name = lua_tostring(L, 1);
  const char *argument = lua_touserdata(L, 2);
  lua_settop(L, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_driver);
  if (!lua_istable(L, 1)) return 0;
  lua_getfield(L, 1, name);
  if (!lua_isfunction(L, 2)) return 0;
  if (argument != NULL) {
    lua_pushfstring(L, "return %s", argument);
    if (luaL_loadbufferx(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=host", "t") != LUA_OK) return lua_error(L);
    lua_remove(L, -2);
    lua_call(L, 0, 1);
  } else {
    lua_pushnil(L);
  }
  lua_call(L, 1, 0);
  return 0;
}

wb_status wb_vm_call_driver_value(wb_vm *vm, const char *function, const char *argument_lua) {
  clear_error(vm);
  if (vm->ref_driver == LUA_NOREF) return WB_OK;
  lua_State *L = vm->L;
  lua_pushcfunction(L, call_driver_value);
  lua_pushstring(L, function);
  lua_pushlightuserdata(L, (void *)argument_lua);
  return protected_call(vm, 2, 0);
}

/* ---- measurements and steps --------------------------------------------- */

int wb_vm_schema_add(wb_vm *vm, int parent, const char *key, size_t key_length, int64_t index, int is_table) {
  if (parent < -1 || parent >= vm->node_count) return -1;
  if (parent >= 0 && !vm->nodes[parent].is_table) return -1;
  if (vm->node_count == vm->node_capacity) {
    int capacity = vm->node_capacity ? vm->node_capacity * 2 : 64;
    wb_node *bigger = realloc(vm->nodes, (size_t)capacity * sizeof *bigger);
    if (bigger == NULL) return -1;
    vm->nodes = bigger;
    vm->node_capacity = capacity;
  }
  lua_State *L = vm->L;
  int id = vm->node_count;
  /* Host-owned bookkeeping: not charged to the script's memory cap. */
  size_t cap = vm->limits.memory_limit;
  vm->limits.memory_limit = 0;
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_node_keys);
  if (index != 0) lua_pushinteger(L, (lua_Integer)index);
  else lua_pushlstring(L, key, key_length);
  lua_rawseti(L, -2, id + 1);
  lua_pop(L, 1);
  if (is_table) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_node_tables);
    lua_newtable(L);
    lua_rawseti(L, -2, id + 1);
    lua_pop(L, 1);
  }
  vm->limits.memory_limit = cap;
  vm->nodes[id].parent = parent;
  vm->nodes[id].is_table = is_table;
  vm->nodes[id].was_present = 0;
  vm->node_count++;
  return id;
}

static void fill_measurements(lua_State *L, wb_vm *vm, const wb_frame *call) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_measurements);
  int m = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_node_tables);
  int tables = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_node_keys);
  int keys = lua_gettop(L);
  lua_pushliteral(L, "t");
  lua_pushnumber(L, call->t);
  lua_rawset(L, m);
  lua_pushliteral(L, "frame");
  lua_pushinteger(L, (lua_Integer)call->index);
  lua_rawset(L, m);

  int count = call->slot_count < vm->node_count ? call->slot_count : vm->node_count;
  int current_parent = -1;
  lua_pushvalue(L, m); /* the parent table of the nodes being written */
  for (int i = 0; i < count; i++) {
    const wb_slot *slot = &call->slots[i];
    wb_node *node = &vm->nodes[i];
    if (node->parent != current_parent) {
      lua_pop(L, 1);
      if (node->parent < 0) lua_pushvalue(L, m);
      else lua_rawgeti(L, tables, node->parent + 1);
      current_parent = node->parent;
    }
    if (node->is_table) {
      int present = slot->kind == WB_TABLE;
      if (present == node->was_present) continue;
      node->was_present = present;
      lua_rawgeti(L, keys, i + 1);
      if (present) lua_rawgeti(L, tables, i + 1);
      else lua_pushnil(L);
      lua_rawset(L, -3);
      continue;
    }
    lua_rawgeti(L, keys, i + 1);
    switch (slot->kind) {
    case WB_FALSE: lua_pushboolean(L, 0); break;
    case WB_TRUE: lua_pushboolean(L, 1); break;
    case WB_INTEGER: lua_pushinteger(L, (lua_Integer)slot->integer); break;
    case WB_NUMBER: lua_pushnumber(L, slot->number); break;
    case WB_STRING: lua_pushlstring(L, slot->string, (size_t)slot->string_length); break;
    default: lua_pushnil(L); break;
    }
    lua_rawset(L, -3);
  }
  lua_settop(L, m);
}

typedef struct driver_call {
  const char *function;
  int64_t index;
  const double *numbers;
  int number_count;
} driver_call;

/* Pushes driver[name]; its calls are once per step, not per frame. */
static void push_driver_function(lua_State *L, wb_vm *vm, const char *name) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_driver);
  if (!lua_istable(L, -1)) luaL_error(L, "no driver was opened");
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) luaL_error(L, "the driver has no function '%s'", name);
}

static int call_driver(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  const driver_call *call = lua_touserdata(L, 1);
  lua_settop(L, 0);
  push_driver_function(L, vm, call->function);
  lua_pushinteger(L, (lua_Integer)call->index);
  for (int i = 0; i < call->number_count; i++) lua_pushnumber(L, call->numbers[i]);
  lua_call(L, 1 + call->number_count, 3);
  return 3;
}

typedef struct bound_call {
  int64_t index;
  const wb_frame *frame;
  const char *state_key;
  double state_number;
} bound_call;

/* Asks driver.bind(index) for the function and self of `index` and keeps
   them in the bound table at stack index `bound`. */
static void bind(lua_State *L, wb_vm *vm, int bound, int64_t index) {
  push_driver_function(L, vm, "bind");
  lua_pushinteger(L, (lua_Integer)index);
  lua_call(L, 1, 2);
  if (!lua_isfunction(L, -2)) luaL_error(L, "driver.bind(%d) must return a function and its self", (int)index);
  lua_rawseti(L, bound, 2 * index);
  lua_rawseti(L, bound, 2 * index - 1);
}

static int call_bound(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  const bound_call *call = lua_touserdata(L, 1);
  lua_settop(L, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_bound); /* 1 */
  if (!lua_istable(L, 1)) return luaL_error(L, "no driver was opened");
  if (lua_rawgeti(L, 1, 2 * call->index - 1) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    bind(L, vm, 1, call->index);
    lua_rawgeti(L, 1, 2 * call->index - 1);
  }
  lua_rawgeti(L, 1, 2 * call->index);      /* self */
  fill_measurements(L, vm, call->frame);   /* m */
  lua_rawgeti(L, LUA_REGISTRYINDEX, vm->ref_driver_state);
  if (call->state_key != NULL) {
    lua_pushstring(L, call->state_key);
    lua_pushnumber(L, call->state_number);
    lua_rawset(L, -3);
  }
  lua_call(L, 3, 3);
  return 3;
}

/* Reads the three results a protected call left into `result`. */
static void read_results(lua_State *L, wb_vm *vm, wb_call_result *result) {
  int first = lua_type(L, -3);
  if (first == LUA_TBOOLEAN) {
    result->kind = lua_toboolean(L, -3) ? WB_RESULT_TRUE : WB_RESULT_FALSE;
  } else if (first != LUA_TNIL) {
    result->kind = WB_RESULT_OTHER;
    result->other_type = lua_typename(L, first);
  }
  if (lua_type(L, -2) == LUA_TSTRING) {
    size_t length;
    const char *text = lua_tolstring(L, -2, &length);
    free(vm->reason);
    vm->reason = duplicate(text, length);
    result->string = vm->reason;
  }
  if (lua_type(L, -1) == LUA_TNUMBER) {
    result->integer = (int64_t)lua_tointeger(L, -1);
    result->has_integer = 1;
  }
  lua_pop(L, 3);
}

static void clear_result(wb_call_result *result) {
  result->kind = WB_RESULT_NIL;
  result->other_type = NULL;
  result->string = NULL;
  result->has_integer = 0;
}

wb_status wb_vm_call_driver(wb_vm *vm, const char *function, int64_t index, const double *numbers,
                            int number_count, wb_call_result *result) {
  driver_call call = {function, index, numbers, number_count};
  clear_result(result);
  clear_error(vm);
  lua_pushcfunction(vm->L, call_driver);
  lua_pushlightuserdata(vm->L, &call);
  wb_status status = protected_call(vm, 1, 3);
  if (status == WB_OK) read_results(vm->L, vm, result);
  return status;
}

wb_status wb_vm_call_bound(wb_vm *vm, int64_t index, const wb_frame *frame, const char *state_key,
                           double state_number, wb_call_result *result) {
  bound_call call = {index, frame, state_key, state_number};
  clear_result(result);
  clear_error(vm);
  lua_pushcfunction(vm->L, call_bound);
  lua_pushlightuserdata(vm->L, &call);
  wb_status status = protected_call(vm, 1, 3);
  if (status == WB_OK) read_results(vm->L, vm, result);
  return status;
}

void wb_vm_set_limits(wb_vm *vm, const wb_limits *limits) { vm->limits = *limits; }

/* ---- snapshots ---------------------------------------------------------- */

int wb_vm_snapshot(wb_vm *vm) {
  wb_saved_state *snapshot = &vm->snapshot;
  snapshot->taken = 0;
  if (!vm->restorable || vm->running || wb_arena_copy_out(&vm->arena, &snapshot->memory) != 0) return -1;
  wb_node *nodes = realloc(snapshot->nodes, (size_t)(vm->node_count ? vm->node_count : 1) * sizeof *nodes);
  if (nodes == NULL) return -1;
  if (vm->node_count > 0) memcpy(nodes, vm->nodes, (size_t)vm->node_count * sizeof *nodes);
  snapshot->nodes = nodes;
  snapshot->node_count = vm->node_count;
  snapshot->limits = vm->limits;
  snapshot->memory_in_use = vm->memory_in_use;
  snapshot->memory_peak = vm->memory_peak;
  snapshot->ref_flow = vm->ref_flow;
  snapshot->ref_driver = vm->ref_driver;
  snapshot->ref_driver_state = vm->ref_driver_state;
  snapshot->ref_bound = vm->ref_bound;
  snapshot->taken = 1;
  return 0;
}

int wb_vm_restore(wb_vm *vm) {
  const wb_saved_state *snapshot = &vm->snapshot;
  if (!vm->restorable || !snapshot->taken || vm->running || wb_arena_copy_in(&vm->arena, &snapshot->memory) != 0)
    return -1;
  /* The schema's nodes only ever grow, so the array holds the snapshot's. */
  if (snapshot->node_count > 0) memcpy(vm->nodes, snapshot->nodes, (size_t)snapshot->node_count * sizeof *vm->nodes);
  vm->node_count = snapshot->node_count;
  vm->limits = snapshot->limits;
  vm->memory_in_use = snapshot->memory_in_use;
  vm->memory_peak = snapshot->memory_peak;
  vm->ref_flow = snapshot->ref_flow;
  vm->ref_driver = snapshot->ref_driver;
  vm->ref_driver_state = snapshot->ref_driver_state;
  vm->ref_bound = snapshot->ref_bound;
  vm->instructions_used = 0;
  vm->tripped = WB_TRIP_NONE;
  vm->memory_line = 0;
  vm->memory_file[0] = 0;
  vm->calling_state = NULL;
  clear_error(vm);
  return 0;
}

size_t wb_vm_snapshot_bytes(const wb_vm *vm) { return vm->snapshot.taken ? vm->snapshot.memory.state.top : 0; }

const wb_error *wb_vm_last_error(const wb_vm *vm) { return &vm->error; }
size_t wb_vm_memory_in_use(const wb_vm *vm) { return vm->memory_in_use; }
size_t wb_vm_memory_peak(const wb_vm *vm) { return vm->memory_peak; }

/* Outside a protected call: no memory cap, so that nothing here can raise. */
int wb_vm_required_file_count(wb_vm *vm) {
  lua_State *L = vm->L;
  size_t cap = vm->limits.memory_limit;
  vm->limits.memory_limit = 0;
  int count = 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, WB_REQUIRED_FILES) == LUA_TTABLE) count = (int)lua_rawlen(L, -1);
  lua_pop(L, 1);
  vm->limits.memory_limit = cap;
  return count;
}

size_t wb_vm_required_file(wb_vm *vm, int i, char *out, size_t capacity) {
  lua_State *L = vm->L;
  size_t cap = vm->limits.memory_limit;
  vm->limits.memory_limit = 0;
  size_t length = 0;
  if (capacity > 0) out[0] = '\0';
  if (lua_getfield(L, LUA_REGISTRYINDEX, WB_REQUIRED_FILES) == LUA_TTABLE &&
      lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TSTRING && capacity > 0) {
    const char *path = lua_tolstring(L, -1, &length);
    if (length >= capacity) length = capacity - 1;
    memcpy(out, path, length);
    out[length] = '\0';
  } else {
    length = 0;
  }
  lua_settop(L, 0);
  vm->limits.memory_limit = cap;
  return length;
}
