local wb = require "wb"

local limit = wb.setting("flow.time_limit")
local other = wb.setting("flow.time_limt")
return wb.flow { name = "s", steps = { function() return true end } }
