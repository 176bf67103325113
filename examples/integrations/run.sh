#!/usr/bin/env bash
# Runs every integration recipe for real: builds the jar if it is missing, installs the pinned npm
# packages and the pinned Python packages (a venv in .venv) if needed, starts fake-upstream.mjs and
# idemproxy (idemproxy.yaml) on free loopback ports, runs each recipe against them and prints, per
# client, the key the proxy used, the upstream executions per intent (must be 1 through the proxy)
# and whether the client's retry got a replay. PYTHON names the interpreter that makes the venv
# (default python3). Exit status: 0 when every recipe passed (a skipped one says why).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jar="$root/proxy-app/target/idemproxy.jar"
cd "$here"

if [[ ! -f "$jar" ]]; then
  echo "== building $jar"
  (cd "$root" && mvn -q -B -o package -DskipTests)
fi
if [[ ! -d node_modules ]]; then
  echo "== npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
# The Python venv, made when missing and brought up to date when a requirements file changed (the
# venv keeps a copy of each one it installed; pip's output goes to .venv/pip.log, shown on failure).
# LangChain goes in apart: when pip cannot install it, pip's reason is kept in
# .venv/langchain-skipped and its recipe is skipped (delete .venv to try again).
venv="$here/.venv"
if [[ ! -x "$venv/bin/python" ]]; then
  echo "== ${PYTHON:-python3} -m venv .venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi
if ! cmp -s requirements.txt "$venv/requirements.txt"; then
  echo "== pip install -r requirements.txt"
  "$venv/bin/pip" install -r requirements.txt >"$venv/pip.log" 2>&1 || { cat "$venv/pip.log"; exit 1; }
  cp requirements.txt "$venv/requirements.txt"
fi
if ! cmp -s requirements-langchain.txt "$venv/requirements-langchain.txt"; then
  echo "== pip install -r requirements-langchain.txt"
  if "$venv/bin/pip" install -r requirements-langchain.txt >"$venv/pip.log" 2>&1; then
    rm -f "$venv/langchain-skipped"
  else
    { echo -n "pip could not install $(grep -v '^[#-]' requirements-langchain.txt | xargs): "
      grep '^ERROR' "$venv/pip.log" | tail -1; } >"$venv/langchain-skipped"
  fi
  cp requirements-langchain.txt "$venv/requirements-langchain.txt"
fi
# The recipes set the proxy variables they test; none from the caller's environment may leak in.
unset HTTP_PROXY http_proxy HTTPS_PROXY https_proxy ALL_PROXY all_proxy NO_PROXY no_proxy

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ "${KEEP_WORK:-}" == 1 ]]; then echo "logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

node fake-upstream.mjs --port 0 >"$work/fake.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q '^LISTENING' "$work/fake.log" 2>/dev/null && break; sleep 0.1; done
FAKE_UPSTREAM_PORT=$(awk '/^LISTENING/{print $2; exit}' "$work/fake.log")
[[ -n "$FAKE_UPSTREAM_PORT" ]] || { echo "fake upstream did not start"; cat "$work/fake.log"; exit 1; }

MCP_SERVER_PORT=$(free_port)
"$venv/bin/python" recipes/python/mcp_server.py "$MCP_SERVER_PORT" "${SLOW_MS:-1500}" >"$work/mcp-server.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MCP_SERVER_PORT/mcp") != 000 ]] && break; sleep 0.1; done
export MCP_SERVER_PORT MCP_SERVER_URL="http://127.0.0.1:$MCP_SERVER_PORT"

IDEMPROXY_PORT=$(free_port)
IDEMPROXY_ADMIN_PORT=$(free_port)
export FAKE_UPSTREAM_PORT IDEMPROXY_PORT IDEMPROXY_ADMIN_PORT IDEMPROXY_DATA="$work/idemproxy-data"
java -jar "$jar" run --config idemproxy.yaml >"$work/idemproxy.log" 2>&1 &
pids+=($!)
export PROXY_URL="http://127.0.0.1:$IDEMPROXY_PORT" ADMIN_URL="http://127.0.0.1:$IDEMPROXY_ADMIN_PORT"
export FAKE_URL="http://127.0.0.1:$FAKE_UPSTREAM_PORT"
export SLOW_MS="${SLOW_MS:-1500}" CLIENT_TIMEOUT_MS="${CLIENT_TIMEOUT_MS:-1000}"
for _ in $(seq 100); do curl -sf "$ADMIN_URL/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -sf "$ADMIN_URL/readyz" >/dev/null || { echo "idemproxy did not become ready"; cat "$work/idemproxy.log"; exit 1; }

echo "== idemproxy $(java -jar "$jar" --version 2>/dev/null | head -1) on $PROXY_URL (admin $ADMIN_URL), fake upstream on $FAKE_URL"
echo "== node $(node --version), $("$venv/bin/python" --version); the fake upstream answers each intent's first call after ${SLOW_MS}ms, clients time out after ${CLIENT_TIMEOUT_MS}ms"

failed=()
recipe() {
  local name=$1; shift
  echo
  echo "-- $name"
  if ! "$@"; then failed+=("$name"); fi
}
recipe "OpenAI SDK, base URL"       node recipes/openai.mjs
recipe "Anthropic SDK, base URL"    node recipes/anthropic.mjs
recipe "Stripe SDK, host/port"      node recipes/stripe.mjs
recipe "LangChain tool"             node recipes/langchain.mjs
recipe "curl, base URL"             recipes/curl.sh
recipe "curl, HTTP proxy"           recipes/http-proxy-curl.sh
recipe "node, HTTP_PROXY"           node recipes/http-proxy-node.mjs

export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
py="$venv/bin/python"
recipe "OpenAI Python SDK, base URL"    "$py" recipes/python/openai_sdk.py
recipe "Anthropic Python SDK, base URL" "$py" recipes/python/anthropic_sdk.py
recipe "httpx: base URL, HTTP_PROXY"    "$py" recipes/python/httpx_client.py
recipe "requests: base URL, HTTP_PROXY" "$py" recipes/python/requests_client.py
recipe "MCP Python SDK, server URL"     "$py" recipes/python/mcp_sdk.py
skipped=()
if [[ -s "$venv/langchain-skipped" ]]; then
  echo; echo "-- LangChain Python tool"
  echo "  skipped | $(cat "$venv/langchain-skipped")"
  skipped+=("LangChain Python tool")
else
  recipe "LangChain Python tool"        "$py" recipes/python/langchain_tool.py
fi

echo
echo "-- idemproxy metrics after the run"
curl -s "$ADMIN_URL/metrics" | grep -E '^idemproxy_(requests_total|replays_total|key_conflicts_total|dlq_entries|upstream_duration_seconds_count)' | sort || true

echo
if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  echo "-- idemproxy log"; cat "$work/idemproxy.log"
  exit 1
fi
echo "ALL RECIPES PASSED${skipped[*]:+ (skipped: ${skipped[*]})}"
