-- wrk script for bench/cpu.sh: POST the body given as the second argument (wrk ... URL -- NONCE BODY),
-- no Idempotency-Key. done() is result.lua's.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
init = function(args)
  wrk.body = args[2] or '{"userId":42,"op":"create"}'
end
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
