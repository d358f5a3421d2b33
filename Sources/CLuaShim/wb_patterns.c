/*
 * The instruction hook cannot interrupt a C function, and Lua's pattern
 * matcher backtracks: ("a"):rep(1e5):find(".-.-.-b") runs for hours inside
 * one call. Before string.find/match/gmatch/gsub run, estimate the worst
 * case of the backtracking matcher and refuse patterns whose estimate
 * exceeds the budget.
 *
 * Worst case: each start position (one when anchored) times, for every
 * variable-length item (x*, x+, x-, %bxy, a back-reference %1-%9), up to
 * n+1 alternatives; each optional item (x?) doubles it. Plain finds and
 * patterns without special characters are linear and always allowed.
 */
#include "wb_internal.h"

#include <math.h>
#include <string.h>

static const char special_characters[] = "^$*+?.([%-";

/* Skips one single-character class starting at p; returns the next byte. */
static const char *skip_class(const char *p, const char *end) {
  if (p >= end) return end;
  if (*p == '%') return (p + 2 <= end) ? p + 2 : end;
  if (*p == '[') {
    p++;
    if (p < end && *p == '^') p++;
    do {
      if (p >= end) return end;
      if (*p == '%' && p + 1 < end) p++;
      p++;
    } while (p < end && *p != ']');
    return (p < end) ? p + 1 : end;
  }
  return p + 1;
}

/* The estimated number of matcher steps, as a double (it can be huge). */
static double estimate_cost(const char *pattern, size_t pattern_length, size_t subject_length) {
  const char *p = pattern;
  const char *end = pattern + pattern_length;
  double n = (double)subject_length + 1.0;
  double cost;
  if (p < end && *p == '^') {
    cost = 1.0;
    p++;
  } else {
    cost = n;
  }
  int optional_items = 0;
  while (p < end) {
    switch (*p) {
    case '(':
    case ')':
      p++;
      continue;
    case '$':
      if (p + 1 == end) {
        p++;
        continue;
      }
      break;
    case '%':
      if (p + 1 < end) {
        char c = p[1];
        if (c == 'b') {
          cost *= n;
          p += (p + 4 <= end) ? 4 : (size_t)(end - p);
          continue;
        }
        if (c == 'f') {
          p = skip_class(p + 2, end);
          continue;
        }
        if (c >= '1' && c <= '9') {
          cost *= n;
          p += 2;
          continue;
        }
      }
      break;
    default:
      break;
    }
    const char *next = skip_class(p, end);
    if (next < end && (*next == '*' || *next == '+' || *next == '-')) {
      cost *= n;
      next++;
    } else if (next < end && *next == '?') {
      optional_items++;
      next++;
    }
    p = next;
    if (cost > 1e300) break;
  }
  if (optional_items > 0) cost *= pow(2.0, optional_items > 60 ? 60 : optional_items);
  return cost;
}

/* upvalue 1: the original function; upvalue 2: its name. */
static int guarded_pattern_function(lua_State *L) {
  wb_vm *vm = wb_vm_from_state(L);
  size_t subject_length = 0;
  size_t pattern_length = 0;
  const char *name = lua_tostring(L, lua_upvalueindex(2));
  luaL_checklstring(L, 1, &subject_length);
  const char *pattern = luaL_checklstring(L, 2, &pattern_length);
  int is_find = strcmp(name, "find") == 0;
  int plain = is_find && lua_toboolean(L, 4);
  int has_specials = 0;
  for (size_t i = 0; i < pattern_length; i++) {
    if (strchr(special_characters, pattern[i]) != NULL && pattern[i] != 0) {
      has_specials = 1;
      break;
    }
  }
  if (!plain && has_specials && vm != NULL && vm->limits.pattern_budget > 0) {
    size_t subject_from = 0;
    if ((is_find || strcmp(name, "match") == 0 || strcmp(name, "gmatch") == 0) && lua_isinteger(L, 3)) {
      lua_Integer init = lua_tointeger(L, 3);
      if (init > 1 && (size_t)init <= subject_length) subject_from = (size_t)init - 1;
    }
    double cost = estimate_cost(pattern, pattern_length, subject_length - subject_from);
    if (cost > vm->limits.pattern_budget) {
      /* lua_pushfstring knows no %e: format here. */
      char text[400];
      snprintf(text, sizeof text,
               "string.%s: pattern \"%.60s\" may take about %.1e matching steps on a %zu-byte subject "
               "(budget %.1e); simplify the pattern or shorten the subject",
               name, pattern, cost, subject_length - subject_from, vm->limits.pattern_budget);
      luaL_where(L, 1);
      lua_pushstring(L, text);
      lua_concat(L, 2);
      return lua_error(L);
    }
  }
  int arguments = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, arguments, LUA_MULTRET);
  return lua_gettop(L);
}

void wb_guard_string_patterns(lua_State *L) {
  static const char *const names[] = {"find", "match", "gmatch", "gsub", NULL};
  lua_getglobal(L, "string");
  for (int i = 0; names[i] != NULL; i++) {
    lua_getfield(L, -1, names[i]);
    lua_pushstring(L, names[i]);
    lua_pushcclosure(L, guarded_pattern_function, 2);
    lua_setfield(L, -2, names[i]);
  }
  lua_pop(L, 1);
}
