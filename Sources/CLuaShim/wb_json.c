/* Lua values to JSON, for arguments that cross to the host. Runs inside
 * protected calls, so it may raise Lua errors.
 *
 * The text grows in a userdata at a fixed stack index rather than in a
 * luaL_Buffer: a luaL_Buffer must sit at the top of the stack whenever it
 * grows, and encoding nested tables pushes values above it. The userdata
 * is collected like any value if an error cuts the encoding short. */
#include "wb_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WB_JSON_MAX_DEPTH 32

typedef struct json_text {
  lua_State *L;
  int box;
  char *data;
  size_t length;
  size_t capacity;
} json_text;

static void reserve(json_text *text, size_t extra) {
  if (text->length + extra <= text->capacity) return;
  size_t capacity = text->capacity * 2;
  if (capacity < text->length + extra) capacity = text->length + extra;
  char *bigger = lua_newuserdatauv(text->L, capacity, 0);
  memcpy(bigger, text->data, text->length);
  lua_replace(text->L, text->box);
  text->data = bigger;
  text->capacity = capacity;
}

static void add(json_text *text, const char *bytes, size_t length) {
  reserve(text, length);
  memcpy(text->data + text->length, bytes, length);
  text->length += length;
}

static void add_string(json_text *text, const char *s) { add(text, s, strlen(s)); }

static void add_char(json_text *text, char c) { add(text, &c, 1); }

static void encode_string(json_text *text, const char *s, size_t length) {
  static const char hex[] = "0123456789abcdef";
  reserve(text, length + 2);
  add_char(text, '"');
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': add_string(text, "\\\""); break;
    case '\\': add_string(text, "\\\\"); break;
    case '\n': add_string(text, "\\n"); break;
    case '\r': add_string(text, "\\r"); break;
    case '\t': add_string(text, "\\t"); break;
    default:
      if (c < 0x20) {
        char escape[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        add(text, escape, 6);
      } else {
        add_char(text, (char)c);
      }
    }
  }
  add_char(text, '"');
}

/* A table is written as an array when its keys are exactly 1..n. */
static int array_length(lua_State *L, int index) {
  lua_Integer count = 0;
  lua_Integer max = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER || !lua_isinteger(L, -1)) {
      lua_pop(L, 1);
      return -1;
    }
    lua_Integer key = lua_tointeger(L, -1);
    if (key < 1) {
      lua_pop(L, 1);
      return -1;
    }
    if (key > max) max = key;
    count++;
  }
  return (count == max) ? (int)count : -1;
}

static int compare_keys(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void encode_value(json_text *text, int index, int depth);

/* Keys are written sorted: Lua's table order changes from run to run, and
   the same flow must give the same bytes. */
static void encode_object(json_text *text, int index, int depth) {
  lua_State *L = text->L;
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    count++;
  }
  /* keyed[key as text] = value; its keys keep the strings alive. */
  lua_createtable(L, 0, count);
  int keyed = lua_gettop(L);
  const char **names = lua_newuserdatauv(L, (size_t)(count > 0 ? count : 1) * sizeof *names, 0);
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    int key_type = lua_type(L, -2);
    if (key_type != LUA_TSTRING && key_type != LUA_TNUMBER) {
      luaL_error(L, "table keys must be strings or numbers, not %s", luaL_typename(L, -2));
    }
    lua_pushvalue(L, -2);
    lua_tolstring(L, -1, NULL); /* converts the copy, not the key lua_next walks */
    lua_insert(L, -2);
    lua_rawset(L, keyed);
  }
  int position = 0;
  lua_pushnil(L);
  while (lua_next(L, keyed) != 0) {
    lua_pop(L, 1);
    if (position < count) names[position++] = lua_tostring(L, -1);
  }
  qsort(names, (size_t)position, sizeof *names, compare_keys);
  add_char(text, '{');
  for (int i = 0; i < position; i++) {
    if (i > 0) add_char(text, ',');
    encode_string(text, names[i], strlen(names[i]));
    add_char(text, ':');
    lua_getfield(L, keyed, names[i]);
    encode_value(text, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
  }
  add_char(text, '}');
  lua_pop(L, 2);
}

static void encode_value(json_text *text, int index, int depth) {
  lua_State *L = text->L;
  if (depth > WB_JSON_MAX_DEPTH) luaL_error(L, "value nested deeper than %d levels (a cycle?)", WB_JSON_MAX_DEPTH);
  luaL_checkstack(L, 6, "value too deeply nested");
  switch (lua_type(L, index)) {
  case LUA_TNIL:
    add_string(text, "null");
    break;
  case LUA_TBOOLEAN:
    add_string(text, lua_toboolean(L, index) ? "true" : "false");
    break;
  case LUA_TNUMBER: {
    char number[64];
    if (lua_isinteger(L, index)) {
      snprintf(number, sizeof number, "%lld", (long long)lua_tointeger(L, index));
    } else {
      double value = lua_tonumber(L, index);
      if (!isfinite(value)) {
        snprintf(number, sizeof number, "null");
      } else {
        /* The shortest text that reads back as the same double, and a
           float stays a float (3.0, not 3). */
        for (int precision = 15; precision <= 17; precision++) {
          snprintf(number, sizeof number, "%.*g", precision, value);
          if (strtod(number, NULL) == value) break;
        }
        if (strpbrk(number, ".eE") == NULL) strcat(number, ".0");
      }
    }
    add_string(text, number);
    break;
  }
  case LUA_TSTRING: {
    size_t length;
    const char *s = lua_tolstring(L, index, &length);
    encode_string(text, s, length);
    break;
  }
  case LUA_TTABLE: {
    int length = array_length(L, index);
    if (length == 0) {
      /* An empty table is an empty object: the host reads both alike. */
      add_string(text, "{}");
    } else if (length > 0) {
      add_char(text, '[');
      for (int i = 1; i <= length; i++) {
        if (i > 1) add_char(text, ',');
        lua_rawgeti(L, index, i);
        encode_value(text, lua_gettop(L), depth + 1);
        lua_pop(L, 1);
      }
      add_char(text, ']');
    } else {
      encode_object(text, index, depth);
    }
    break;
  }
  case LUA_TFUNCTION:
    /* Functions stay in Lua; the host only learns that one is there. */
    add_string(text, "{\"$function\":true}");
    break;
  default:
    luaL_error(L, "cannot pass a %s to the host", luaL_typename(L, index));
  }
}

void wb_json_push(lua_State *L, int first, int count, int as_array) {
  first = lua_absindex(L, first);
  int last = first + count - 1;
  json_text text = {L, 0, NULL, 0, 256};
  text.data = lua_newuserdatauv(L, text.capacity, 0);
  text.box = lua_gettop(L);
  if (as_array) add_char(&text, '[');
  for (int i = first; i <= last; i++) {
    if (i > first) add_char(&text, ',');
    encode_value(&text, i, 0);
  }
  if (as_array) add_char(&text, ']');
  lua_pushlstring(L, text.data, text.length);
  lua_remove(L, text.box);
}
