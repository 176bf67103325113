"""Shared helpers for the Python recipes, the same as ../lib.mjs for the node ones.

Every recipe talks to an idemproxy that is already running (run.sh starts it) and asks the fake
upstream what it saw. The environment run.sh sets:
  PROXY_URL   http://127.0.0.1:<listen port>      ADMIN_URL  http://127.0.0.1:<admin port>
  FAKE_URL    http://127.0.0.1:<fake upstream port>
The helpers use urllib without proxies, so a recipe may set HTTP_PROXY for its client.
"""
import importlib.metadata
import json
import os
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime


def _need(name):
    value = os.environ.get(name)
    if not value:
        print(f"{name} is not set (run.sh sets it)", file=sys.stderr)
        sys.exit(2)
    return value.rstrip("/")


PROXY_URL = _need("PROXY_URL")
ADMIN_URL = _need("ADMIN_URL")
FAKE_URL = _need("FAKE_URL")
SLOW_MS = int(os.environ.get("SLOW_MS", "1500"))  # the fake answers the first call this late
CLIENT_TIMEOUT_MS = int(os.environ.get("CLIENT_TIMEOUT_MS", "1000"))  # the client gives up sooner
CLIENT_TIMEOUT_S = CLIENT_TIMEOUT_MS / 1000

_direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through HTTP_PROXY


def intent(recipe, slow=True):
    """A fresh intent marker; the fake upstream groups requests by it and answers its first one late."""
    return f"ix_{recipe}_{secrets.token_hex(4)}" + (f"_slow{SLOW_MS}" if slow else "")


def version(dist):
    return importlib.metadata.version(dist)


def _get_json(url):
    try:
        with _direct.open(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError:
        return None


def upstream_stats(intent_id):
    """What the fake upstream saw for one intent: {executions, requests: [{headers}]}."""
    return _get_json(f"{FAKE_URL}/__stats/{urllib.parse.quote(intent_id, safe='')}")


def receipt(call_id):
    """The proxy's receipt for a call id (admin API), or None."""
    if not call_id:
        return None
    return _get_json(f"{ADMIN_URL}/receipts/{urllib.parse.quote(call_id, safe='')}")


def key_kind(key):
    if not key:
        return "none"
    if key.startswith("d:"):
        return "derived"
    if key.startswith("g:"):
        return "generated"
    return "client's"


def with_retries(send, retry_on, max_attempts=3):
    """The agent's own retry loop, for clients that do not retry a timeout: (result, attempts)."""
    for attempt in range(1, max_attempts + 1):
        try:
            return send(), attempt
        except retry_on:
            if attempt == max_attempts:
                raise


SHOWN = ["x-stainless-retry-count", "x-stainless-timeout", "x-stainless-read-timeout"]
_failures = 0


def _changing(requests):
    """The names of the headers whose values differ between the attempts, or "none"."""
    if len(requests) < 2:
        return f"none ({len(requests)} attempt)"
    names = sorted({h for q in requests for h in q["headers"]})
    diff = [h for h in names if len({q["headers"].get(h, "-") for q in requests}) > 1]
    return ", ".join(diff) if diff else "none"


def _sent_at(requests):
    """When each attempt reached the upstream, from the first: "+0.00s, +1.46s"."""
    times = [datetime.fromisoformat(q["at"].replace("Z", "+00:00")) for q in requests]
    return ", ".join(f"+{(t - times[0]).total_seconds():.2f}s" for t in times)


def report_direct(sdk, stats, note=""):
    """Prints what the client sent on its own (direct run, no proxy)."""
    reqs = stats["requests"]
    keys = [q["headers"].get("idempotency-key", "-") for q in reqs]
    shown = [f" | {h}: [{', '.join(q['headers'].get(h, '-') for q in reqs)}]"
             for h in SHOWN if any(h in q["headers"] for q in reqs)]
    print(f"  direct  | {sdk}: upstream executions={stats['executions']}"
          f" | Idempotency-Key per attempt: [{', '.join(keys)}]"
          + "".join(shown) + f" | headers that change between attempts: {_changing(reqs)}"
          + f" | sent at: {_sent_at(reqs)}"
          + (f" | {note}" if note else ""), flush=True)


def report_proxied(sdk, *, stats, call_id, replayed, client_attempts, expect_replay=True, note=""):
    """Prints the proxied run's line and checks it: one execution, and a replay when the client retried."""
    global _failures
    rec = receipt(call_id)
    upstream_keys = list(dict.fromkeys(q["headers"].get("idempotency-key", "-") for q in stats["requests"]))
    key = rec["key"] if rec else (upstream_keys[0] if upstream_keys else None)
    ok = stats["executions"] == 1 and (not expect_replay or replayed)
    seen = f"{rec['status']} attempts={rec['attempts']}" if rec else "none"
    if not ok:
        _failures += 1
    print(f"  proxied | {sdk}: key used={key_kind(key)} ({key})"
          f" | upstream executions={stats['executions']}"
          f" | client attempts={client_attempts}"
          f" | replay={'yes (Idempotent-Replayed: true)' if replayed else 'no'}"
          f" | receipt={seen}"
          + (f" | {note}" if note else "")
          + f" => {'OK' if ok else 'FAIL'}", flush=True)


def report_expected(sdk, text, ok):
    """Prints a line for a case that is meant to fail, and counts it as a failure if it did not."""
    global _failures
    if not ok:
        _failures += 1
    print(f"  proxied | {sdk}: {text} => {'OK (expected)' if ok else 'FAIL'}", flush=True)


def report_check(sdk, text, ok):
    """Prints a proxied line checked by the recipe itself, and counts it as a failure if not ok."""
    global _failures
    if not ok:
        _failures += 1
    print(f"  proxied | {sdk}: {text} => {'OK' if ok else 'FAIL'}", flush=True)


def finish():
    sys.exit(1 if _failures else 0)
