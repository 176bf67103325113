-- wrk script: POST the small JSON body with a new Idempotency-Key on every request, so a
-- protecting proxy claims, forwards and stores a new record each time (a proxy that does not
-- protect just forwards the same request). The key is "pp-NONCE-THREAD-COUNTER": bench/run.sh
-- passes a nonce unique to each wrk run (wrk ... URL -- NONCE), the thread id comes from setup().
-- done() prints one parseable line that bench/run.sh reads; latencies are in microseconds.
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
