-- wrk script: GET /bench/get (the URL given to wrk), keep-alive.
-- done() prints one parseable line that bench/run.sh reads; latencies are in microseconds.
wrk.method = "GET"

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
