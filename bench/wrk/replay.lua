-- wrk script: POST the small JSON body with one Idempotency-Key on every request. bench/run.sh
-- passes a nonce unique to each wrk run (wrk ... URL -- NONCE) and stores the key
-- "bench-replay-NONCE" with one request just before the run, so a protecting proxy answers every
-- request from its store (Idempotent-Replayed: true); a proxy that does not protect just forwards
-- it. Without a nonce the key is "bench-replay-0001". A static request: wrk builds it once, after
-- init().
-- done() is bench/wrk/result.lua's: the run's result line and its latency histogram.
wrk.method = "POST"
wrk.body = '{"userId":42,"op":"create"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Idempotency-Key"] = "bench-replay-0001"

init = function(args)
  if args[1] then
    wrk.headers["Idempotency-Key"] = "bench-replay-" .. args[1]
  end
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
