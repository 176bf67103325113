-- wrk script for bench/cpu.sh: POST the body given as the second argument with a new
-- Idempotency-Key on every request ("cpu-NONCE-THREAD-COUNTER"; wrk ... URL -- NONCE BODY), so a
-- protecting proxy claims, forwards and stores a new record each time. done() is result.lua's.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
init = function(args)
  nonce = args[1] or tostring(os.time())
  wrk.body = args[2] or '{"userId":42,"op":"create"}'
  counter = 0
end
request = function()
  counter = counter + 1
  wrk.headers["Idempotency-Key"] = string.format("cpu-%s-%d-%d", nonce, tid or 0, counter)
  return wrk.format()
end
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
