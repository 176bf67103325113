-- wrk script: POST a 16 KiB JSON body (exactly 16384 bytes; the URL given to wrk), keep-alive.
-- bench/run.sh builds the same body for its sanity check: keep the two in step.
-- done() is bench/wrk/result.lua's: the run's result line and its latency histogram.
local head = '{"userId":42,"op":"create","pad":"'
local tail = '"}'
wrk.method = "POST"
wrk.body = head .. string.rep("x", 16384 - #head - #tail) .. tail
wrk.headers["Content-Type"] = "application/json"

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
