-- wrk script: POST a 16 KiB JSON body (exactly 16384 bytes; the URL given to wrk), keep-alive.
-- bench/run.sh builds the same body for its sanity check: keep the two in step.
-- done() prints one parseable line that bench/run.sh reads; latencies are in microseconds.
local head = '{"userId":42,"op":"create","pad":"'
local tail = '"}'
wrk.method = "POST"
wrk.body = head .. string.rep("x", 16384 - #head - #tail) .. tail
wrk.headers["Content-Type"] = "application/json"

done = function(summary, latency, requests)
  local secs = summary.duration / 1000000
  io.write(string.format(
    "BENCH_RESULT rps=%.2f p50_us=%d p99_us=%d p999_us=%d requests=%d duration_us=%d " ..
    "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
    summary.requests / secs,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    summary.requests, summary.duration,
    summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout))
end
