-- wrk script for bench/cpu.sh: POST the body given as the second argument with one
-- Idempotency-Key, "cpu-NONCE" (wrk ... URL -- NONCE BODY), which bench/cpu.sh stores with one
-- request before the run: every request is a duplicate answered from the store. done() is result.lua's.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
init = function(args)
  wrk.headers["Idempotency-Key"] = "cpu-" .. (args[1] or "0001")
  wrk.body = args[2] or '{"userId":42,"op":"create"}'
end
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
