-- wrk script for bench/cpu.sh: an MCP tools/call of create_ticket whose arguments differ on every
-- request ("n": "NONCE-THREAD-COUNTER"; wrk ... URL -- NONCE), so an MCP route derives a new key
-- from them and claims, forwards and stores a new record each time; the JSON-RPC id counts up.
-- The body is about the size of the plain POST's body and Idempotency-Key together. done() is result.lua's.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
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
  wrk.body = string.format('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_ticket",'
    .. '"arguments":{"title":"printer 3","n":"cpu-%s-%d-%d"}}}', counter, nonce, tid or 0, counter)
  return wrk.format()
end
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
