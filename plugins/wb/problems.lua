-- Mistakes found while a flow is being built are collected, not raised one
-- at a time, so that `workbench check` can list all of them at once.

local problems = { list = {} }

function problems.add(message)
  problems.list[#problems.list + 1] = message
end

-- Raises every collected problem as one error, one per line.
function problems.raise(level)
  if #problems.list == 0 then return end
  local text = table.concat(problems.list, "\n")
  problems.list = {}
  error(text, 0)
end

return problems
