#!/usr/bin/env bash
# Recipe: idemproxy as a plain HTTP proxy for curl. The target host tickets.internal does not
# resolve; curl sends the request in absolute-form to the proxy, whose route `tickets-via-proxy`
# matches on the URI's host.
#  a) curl -x http://127.0.0.1:8080 http://tickets.internal/...
#  b) http_proxy=http://127.0.0.1:8080 curl http://tickets.internal/...   (curl reads lower-case http_proxy only)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${PROXY_URL:?}" "${CLIENT_TIMEOUT_MS:=1000}" "${SLOW_MS:=1500}"
secs=$(awk "BEGIN{print $CLIENT_TIMEOUT_MS/1000}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ver=$(curl --version | head -1 | cut -d' ' -f2)
rc=0
attempts() { echo $(( $(grep -c 'Will retry' "$1" || true) + 1 )); }

id="ix_curlx_$RANDOM$RANDOM"_slow$SLOW_MS
curl --no-progress-meter -o /dev/null -D "$tmp/a.h" -m "$secs" --retry 2 --retry-delay 1 \
  -x "$PROXY_URL" -X POST http://tickets.internal/api/tickets \
  -H 'Content-Type: application/json' -H "X-Task-Id: task-$id" -d "{\"title\":\"$id\"}" 2>"$tmp/a.err" || true
node "$here/report.mjs" "curl $ver -x PROXY --retry 2" "$id" "$tmp/a.h" "$(attempts "$tmp/a.err")" || rc=1

id="ix_curlenv_$RANDOM$RANDOM"_slow$SLOW_MS
http_proxy="$PROXY_URL" curl --no-progress-meter -o /dev/null -D "$tmp/b.h" -m "$secs" --retry 2 --retry-delay 1 \
  -X POST http://tickets.internal/api/tickets \
  -H 'Content-Type: application/json' -H "X-Task-Id: task-$id" -d "{\"title\":\"$id\"}" 2>"$tmp/b.err" || true
node "$here/report.mjs" "curl $ver http_proxy=PROXY --retry 2" "$id" "$tmp/b.h" "$(attempts "$tmp/b.err")" || rc=1
exit $rc
