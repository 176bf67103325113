-- The done() of every bench/wrk scenario script, which loads this file with dofile. It prints two
-- parseable lines that bench/run.sh and bench/paired-runs.py read; latencies are in microseconds:
--   BENCH_RESULT rps=… p50_us=… p99_us=… p999_us=… requests=… duration_us=… err_…=…
--   BENCH_HIST VALUE:COUNT VALUE:COUNT …   (every latency wrk recorded, as its exact histogram)
-- The histogram lets runs be pooled: the percentiles of many interleaved runs taken together,
-- which no median of per-run percentiles gives.
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
  -- #latency is the number of distinct values recorded; latency(i) the i-th smallest and its count
  local parts = {}
  for i = 1, #latency do
    local value, count = latency(i)
    parts[i] = string.format("%d:%d", value, count)
  end
  io.write("BENCH_HIST ", table.concat(parts, " "), "\n")
end
