-- wrk script for bench/cpu.sh: the same MCP tools/call of create_ticket on every request
-- ("n": "cpu-NONCE"; wrk ... URL -- NONCE), which bench/cpu.sh stores with one request before the
-- run: every request is a duplicate, answered from the store with its own JSON-RPC id (it counts
-- up). done() is result.lua's.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
init = function(args)
  nonce = args[1] or "0001"
  counter = 0
end
request = function()
  counter = counter + 1
  wrk.body = string.format('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_ticket",'
    .. '"arguments":{"title":"printer 3","n":"cpu-%s"}}}', counter, nonce)
  return wrk.format()
end
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "result.lua")
