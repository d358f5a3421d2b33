-- luacheck's view of workbench Lua: flows, scenarios and the wb library run
-- in the sandbox of docs/flow-api.md (Lua 5.4 without io, debug, package,
-- dofile, loadfile, and with only os.clock, os.time and os.date).
stds.workbench = {
  globals = {},
  read_globals = {
    "assert", "collectgarbage", "error", "getmetatable", "ipairs", "load", "next", "pairs", "pcall", "print",
    "rawequal", "rawget", "rawlen", "rawset", "require", "select", "setmetatable", "tonumber", "tostring", "type",
    "xpcall", "_G", "_VERSION", "string", "table", "math", "utf8", "coroutine",
    os = { fields = { "clock", "time", "date" } },
  },
}
std = "workbench"
max_line_length = 170
-- A step's update(self, m, ctx) and start(self, ctx) take the protocol's
-- arguments whether or not they use them.
unused_args = false
