-- wrk script for bench/soak.sh: a mixed, paced load against the soak config's routes.
--   wrk ... -s bench/wrk/soak.lua URL -- DELAY_MS SEED
-- Each connection waits about DELAY_MS (0.5x..1.5x, random) between its requests. Per request,
-- by weight out of 100:
--   unique   40  POST /tickets/plain, a new Idempotency-Key            (executed, stored; DLQ on ambiguous)
--   repeat   20  one of this thread's last 64 plain/retry requests again, same key and body (replay or wait)
--   retry    15  POST /tickets/retry, a new key; route tagged idempotent (5xx/reset/late are retried)
--   derived  17  POST /tickets/derived, no key: derived from the intent; each intent is sent 3 times
--   dead      5  POST /dead/x: the route's upstream port is closed (connect-failure retries, DLQ)
--   noroute   3  POST /nowhere (404 no-route, answered by the proxy)
-- Intent numbers (what the demo upstream keys its fault plan on) cycle within a bounded range so
-- that the upstream's own per-intent counters stay bounded. done() prints one SOAK_RESULT line.

local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("tid", next_id)
  table.insert(threads, thread)
end

local delay_ms = 20
local tid = 0
local n = 0
local ring = {}
local ring_size = 64
local ring_n = 0
local derived_n = 0
local kinds = { "unique", "repeat", "retry", "derived", "dead", "noroute" }
local weights = { 40, 20, 15, 17, 5, 3 }
local last_kind = nil
-- counters, read by done() through thread:get
sent_unique, sent_repeat, sent_retry, sent_derived, sent_dead, sent_noroute = 0, 0, 0, 0, 0, 0
s2xx, s3xx, s4xx, s5xx, s409, s422, s429, s502, s503, s504, s_other = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
replayed = 0

function init(args)
  delay_ms = tonumber(args[1] or "20")
  local seed = tonumber(args[2] or "42")
  tid = tonumber(wrk.thread:get("tid")) or 1
  math.randomseed(seed * 7919 + tid)
end

local function intent(i)
  -- bounded: at most 40000 distinct intents per thread and kind
  return string.format("intent-%d", tid * 200000 + (i % 40000))
end

local function post(path, headers, body)
  headers["Content-Type"] = "application/json"
  headers["X-Task-Id"] = string.format("task-%d-%d", tid, math.floor(n / 200))
  return wrk.format("POST", path, headers, body)
end

local function fresh(path, kindbase)
  local key = string.format("soak-%d-%d-%d", tid, n, math.random(0, 999999))
  local body = string.format('{"intentId":"%s","orderId":"order-%d-%d","n":%d}', intent(kindbase + n), tid, n, n)
  local req = { path = path, key = key, body = body }
  ring[(ring_n % ring_size) + 1] = req
  ring_n = ring_n + 1
  return post(path, { ["Idempotency-Key"] = key }, body)
end

local function pick()
  local r = math.random(1, 100)
  for i, w in ipairs(weights) do
    r = r - w
    if r <= 0 then return kinds[i] end
  end
  return kinds[1]
end

function request()
  n = n + 1
  local kind = pick()
  if kind == "repeat" and ring_n == 0 then kind = "unique" end
  last_kind = kind
  if kind == "unique" then
    sent_unique = sent_unique + 1
    return fresh("/tickets/plain", 0)
  elseif kind == "repeat" then
    sent_repeat = sent_repeat + 1
    local req = ring[math.random(1, math.min(ring_n, ring_size))]
    return post(req.path, { ["Idempotency-Key"] = req.key }, req.body)
  elseif kind == "retry" then
    sent_retry = sent_retry + 1
    return fresh("/tickets/retry", 10000)
  elseif kind == "derived" then
    sent_derived = sent_derived + 1
    derived_n = derived_n + 1
    local body = string.format('{"intentId":"%s","n":%d}', intent(20000 + math.floor(derived_n / 3)), n)
    return post("/tickets/derived", {}, body)
  elseif kind == "dead" then
    sent_dead = sent_dead + 1
    return fresh("/dead/x", 30000)
  else
    sent_noroute = sent_noroute + 1
    return post("/nowhere", {}, '{"n":' .. n .. '}')
  end
end

function delay()
  return math.floor(delay_ms * (0.5 + math.random()))
end

function response(status, headers, body)
  if status >= 200 and status < 300 then s2xx = s2xx + 1
  elseif status < 400 then s3xx = s3xx + 1
  elseif status < 500 then s4xx = s4xx + 1
  elseif status < 600 then s5xx = s5xx + 1
  else s_other = s_other + 1 end
  if status == 409 then s409 = s409 + 1 end
  if status == 422 then s422 = s422 + 1 end
  if status == 429 then s429 = s429 + 1 end
  if status == 502 then s502 = s502 + 1 end
  if status == 503 then s503 = s503 + 1 end
  if status == 504 then s504 = s504 + 1 end
  if headers["Idempotent-Replayed"] == "true" or headers["idempotent-replayed"] == "true" then
    replayed = replayed + 1
  end
end

local fields = { "sent_unique", "sent_repeat", "sent_retry", "sent_derived", "sent_dead", "sent_noroute",
  "s2xx", "s3xx", "s4xx", "s5xx", "s409", "s422", "s429", "s502", "s503", "s504", "s_other", "replayed" }

function done(summary, latency, requests)
  local total = {}
  for _, f in ipairs(fields) do total[f] = 0 end
  for _, t in ipairs(threads) do
    for _, f in ipairs(fields) do total[f] = total[f] + (tonumber(t:get(f)) or 0) end
  end
  local parts = {}
  for _, f in ipairs(fields) do table.insert(parts, f .. "=" .. total[f]) end
  io.write(string.format("SOAK_RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d " ..
    "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d %s\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status,
    summary.errors.timeout, table.concat(parts, " ")))
end
