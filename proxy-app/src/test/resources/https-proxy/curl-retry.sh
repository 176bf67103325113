#!/usr/bin/env bash
# curl through HTTPS_PROXY, trusting the proxy's CA (--cacert). A first POST times out, then the
# same call again. Usage: HTTPS_PROXY=http://127.0.0.1:PORT curl-retry.sh CA_PEM URL KEY BODY
set -u
ca=$1 url=$2 key=$3 body=$4
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
call() {
  curl -sS --cacert "$ca" --max-time "$1" -X POST -H 'Content-Type: application/json' -H "Idempotency-Key: $key" \
    --data "$body" -D "$out/head" -o "$out/body" "$url"
}
call 2; rc=$?
if [ "$rc" -eq 28 ]; then echo TIMEOUT; else echo "ERROR curl exit $rc"; fi
call 30 || { echo "ERROR curl exit $?"; exit 1; }
# -D writes the proxy's answer to the CONNECT first: the response's status line is the last one
echo "STATUS $(grep '^HTTP/' "$out/head" | tail -1 | awk '{print $2}')"
echo "REPLAYED $(tr -d '\r' < "$out/head" | awk -F': ' 'tolower($1)=="idempotent-replayed" {print $2}')"
echo "BODY $(cat "$out/body")"
