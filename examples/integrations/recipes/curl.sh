#!/usr/bin/env bash
# Recipe: curl against idemproxy as a base URL. curl --retry retries a timed-out request
# (-m is per attempt); the proxy keeps the first attempt running and replays its answer.
#  a) the client sends its own Idempotency-Key
#  b) no key: the proxy derives one from [method, path, X-Task-Id, /title]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${PROXY_URL:?}" "${CLIENT_TIMEOUT_MS:=1000}" "${SLOW_MS:=1500}"
secs=$(awk "BEGIN{print $CLIENT_TIMEOUT_MS/1000}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
label="curl $(curl --version | head -1 | cut -d' ' -f2) --retry 2 -m $secs"
rc=0

# curl prints "Warning: ... Will retry in ..." once per retry; attempts = retries + 1.
attempts() { echo $(( $(grep -c 'Will retry' "$1" || true) + 1 )); }

# a) client key
id="ix_curl_key_$RANDOM$RANDOM"_slow$SLOW_MS
curl --no-progress-meter -o /dev/null -D "$tmp/a.h" -m "$secs" --retry 2 --retry-delay 1 \
  -X POST "$PROXY_URL/api/tickets" \
  -H 'Content-Type: application/json' -H "Idempotency-Key: order-$id" \
  -d "{\"title\":\"$id\"}" 2>"$tmp/a.err" || true
node "$here/report.mjs" "$label (Idempotency-Key)" "$id" "$tmp/a.h" "$(attempts "$tmp/a.err")" || rc=1

# b) derived key
id="ix_curl_derived_$RANDOM$RANDOM"_slow$SLOW_MS
curl --no-progress-meter -o /dev/null -D "$tmp/b.h" -m "$secs" --retry 2 --retry-delay 1 \
  -X POST "$PROXY_URL/api/tickets" \
  -H 'Content-Type: application/json' -H "X-Task-Id: task-$id" \
  -d "{\"title\":\"$id\",\"body\":\"first wording\"}" 2>"$tmp/b.err" || true
node "$here/report.mjs" "$label (no key, X-Task-Id)" "$id" "$tmp/b.h" "$(attempts "$tmp/b.err")" || rc=1
exit $rc
