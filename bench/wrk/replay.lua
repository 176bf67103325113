-- wrk script: POST the small JSON body with one Idempotency-Key on every request. bench/run.sh
-- passes a nonce unique to each wrk run (wrk ... URL -- NONCE) and stores the key
-- "bench-replay-NONCE" with one request just before the run, so a protecting proxy answers every
-- request from its store (Idempotent-Replayed: true); a proxy that does not protect just forwards
-- it. Without a nonce the key is "bench-replay-0001". A static request: wrk builds it once, after
-- init().
-- done() prints one parseable line that bench/run.sh reads; latencies are in microseconds.
wrk.method = "POST"
wrk.body = '{"userId":42,"op":"create"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Idempotency-Key"] = "bench-replay-0001"

init = function(args)
  if args[1] then
    wrk.headers["Idempotency-Key"] = "bench-replay-" .. args[1]
  end
end

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
