-- wrk script: POST the small JSON body with a new Idempotency-Key on every request, so a
-- protecting proxy claims, forwards and stores a new record each time (a proxy that does not
-- protect just forwards the same request). The key is "pp-NONCE-THREAD-COUNTER": bench/run.sh
-- passes a nonce unique to each wrk run (wrk ... URL -- NONCE), the thread id comes from setup().
-- done() is bench/wrk/result.lua's: the run's result line and its latency histogram.
wrk.method = "POST"
wrk.body = '{"userId":42,"op":"create"}'
wrk.headers["Content-Type"] = "application/json"

local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

init = function(args)
  nonce = args[1] or tostring(os.time())
  counter = 0
end

request = function()
  counter = counter + 1
  wrk.headers["Idempotency-Key"] = string.format("pp-%s-%d-%d", nonce, tid or 0, counter)
  return wrk.format()
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
