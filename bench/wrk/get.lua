-- wrk script: GET /bench/get (the URL given to wrk), keep-alive.
-- done() is bench/wrk/result.lua's: the run's result line and its latency histogram.
wrk.method = "GET"

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
