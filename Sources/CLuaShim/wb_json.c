/* Lua values to JSON, for arguments that cross to the host. Runs inside
 * protected calls, so it may raise Lua errors. */
#include "wb_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WB_JSON_MAX_DEPTH 32

static void encode_string(luaL_Buffer *buffer, const char *s, size_t length) {
  static const char hex[] = "0123456789abcdef";
  luaL_addchar(buffer, '"');
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': luaL_addstring(buffer, "\\\""); break;
    case '\\': luaL_addstring(buffer, "\\\\"); break;
    case '\n': luaL_addstring(buffer, "\\n"); break;
    case '\r': luaL_addstring(buffer, "\\r"); break;
    case '\t': luaL_addstring(buffer, "\\t"); break;
    default:
      if (c < 0x20) {
        char escape[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
        luaL_addstring(buffer, escape);
      } else {
        luaL_addchar(buffer, (char)c);
      }
    }
  }
  luaL_addchar(buffer, '"');
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

void wb_json_encode(lua_State *L, int index, luaL_Buffer *buffer, int depth) {
  index = lua_absindex(L, index);
  if (depth > WB_JSON_MAX_DEPTH) luaL_error(L, "value nested deeper than %d levels (a cycle?)", WB_JSON_MAX_DEPTH);
  switch (lua_type(L, index)) {
  case LUA_TNIL:
    luaL_addstring(buffer, "null");
    break;
  case LUA_TBOOLEAN:
    luaL_addstring(buffer, lua_toboolean(L, index) ? "true" : "false");
    break;
  case LUA_TNUMBER: {
    char text[64];
    if (lua_isinteger(L, index)) {
      snprintf(text, sizeof text, "%lld", (long long)lua_tointeger(L, index));
    } else {
      double value = lua_tonumber(L, index);
      if (!isfinite(value)) {
        snprintf(text, sizeof text, "null");
      } else {
        /* The shortest text that reads back as the same double, and a
           float stays a float (3.0, not 3). */
        for (int precision = 15; precision <= 17; precision++) {
          snprintf(text, sizeof text, "%.*g", precision, value);
          if (strtod(text, NULL) == value) break;
        }
        if (strpbrk(text, ".eE") == NULL) strcat(text, ".0");
      }
    }
    luaL_addstring(buffer, text);
    break;
  }
  case LUA_TSTRING: {
    size_t length;
    const char *s = lua_tolstring(L, index, &length);
    encode_string(buffer, s, length);
    break;
  }
  case LUA_TTABLE: {
    luaL_checkstack(L, 4, "value too deeply nested");
    int length = array_length(L, index);
    if (length == 0) {
      /* An empty table is an empty object: the host reads both alike. */
      luaL_addstring(buffer, "{}");
    } else if (length > 0) {
      luaL_addchar(buffer, '[');
      for (int i = 1; i <= length; i++) {
        if (i > 1) luaL_addchar(buffer, ',');
        lua_rawgeti(L, index, i);
        wb_json_encode(L, -1, buffer, depth + 1);
        lua_pop(L, 1);
      }
      luaL_addchar(buffer, ']');
    } else {
      int first = 1;
      luaL_addchar(buffer, '{');
      lua_pushnil(L);
      while (lua_next(L, index) != 0) {
        if (!first) luaL_addchar(buffer, ',');
        first = 0;
        if (lua_type(L, -2) == LUA_TSTRING) {
          size_t key_length;
          const char *key = lua_tolstring(L, -2, &key_length);
          encode_string(buffer, key, key_length);
        } else if (lua_type(L, -2) == LUA_TNUMBER) {
          /* Copy the key: converting it in place would break lua_next. */
          lua_pushvalue(L, -2);
          size_t key_length;
          const char *key = lua_tolstring(L, -1, &key_length);
          encode_string(buffer, key, key_length);
          lua_pop(L, 1);
        } else {
          luaL_error(L, "table keys must be strings or numbers, not %s", luaL_typename(L, -2));
        }
        luaL_addchar(buffer, ':');
        wb_json_encode(L, -1, buffer, depth + 1);
        lua_pop(L, 1);
      }
      luaL_addchar(buffer, '}');
    }
    break;
  }
  case LUA_TFUNCTION:
    /* Functions stay in Lua; the host only learns that one is there. */
    luaL_addstring(buffer, "{\"$function\":true}");
    break;
  default:
    luaL_error(L, "cannot pass a %s to the host", luaL_typename(L, index));
  }
}
