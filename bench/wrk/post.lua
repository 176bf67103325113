-- wrk script: POST a small JSON body (the URL given to wrk), keep-alive.
-- done() is bench/wrk/result.lua's: the run's result line and its latency histogram.
wrk.method = "POST"
wrk.body = '{"userId":42,"op":"create"}'
wrk.headers["Content-Type"] = "application/json"

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
