local wb = require "wb"

local flow = wb.flow {
  name = "line",
  time_limt = 10,
  steps = { function(m, ctx) return true end },
}
return flow
