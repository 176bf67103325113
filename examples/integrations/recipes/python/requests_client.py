"""Recipe: requests with HTTP_PROXY set, as an agent's environment would have it:
  a) at idemproxy as a base URL with the client's Idempotency-Key, NO_PROXY naming the proxy's host;
  b) the same call without NO_PROXY: requests sends it to the proxy in absolute-form
     (POST http://127.0.0.1:PORT/api/tickets), which no host-less route matches: 404 no-route;
  c) to http://tickets.internal through HTTP_PROXY (absolute-form, route `tickets-via-proxy`).
requests retries nothing by default; urllib3's Retry, mounted on the session, retries a POST's
read timeout only when told that every method may be retried (allowed_methods=None).
"""
import os

import requests
from lib import (CLIENT_TIMEOUT_S, FAKE_URL, PROXY_URL, finish, intent, report_direct, report_expected,
                 report_proxied, upstream_stats, version)
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

os.environ["HTTP_PROXY"] = PROXY_URL            # requests reads both on every request (trust_env)
os.environ["NO_PROXY"] = "127.0.0.1,localhost"
SDK = f"requests {version('requests')}"
RETRY = "Retry(total=2, allowed_methods=None)"
TARGET = "http://tickets.internal/api/tickets"


def session(retry):
    s = requests.Session()
    if retry:
        s.mount("http://", HTTPAdapter(max_retries=Retry(total=2, allowed_methods=None)))
    return s


def post(s, url, ix, headers):
    """(response, attempts); urllib3 keeps the retries it made on the response."""
    r = s.post(url, json={"title": ix}, headers=headers, timeout=CLIENT_TIMEOUT_S)
    return r, len(r.raw.retries.history) + 1 if r.raw.retries else 1


def report(label, ix, r, attempts):
    report_proxied(f"{SDK} {RETRY} {label}", stats=upstream_stats(ix), call_id=r.headers.get("x-call-id"),
                   replayed=r.headers.get("idempotent-replayed") == "true", client_attempts=attempts,
                   note=f"status {r.status_code}")


# On its own: the default session, then urllib3's Retry, each against a read timeout.
for retry, label in ((False, "default"), (True, RETRY)):
    ix = intent("requests_direct")
    try:
        post(session(retry), f"{FAKE_URL}/api/tickets", ix, {"Idempotency-Key": f"order-{ix}"})
        outcome = "answered"
    except requests.exceptions.RequestException as e:
        outcome = f"raised {type(e).__name__}"
    report_direct(f"{SDK} {label}", upstream_stats(ix), note=outcome)

# a) base URL, the client's key (route `tickets`)
ix = intent("requests_key")
report("base URL, NO_PROXY (Idempotency-Key)", ix,
       *post(session(True), f"{PROXY_URL}/api/tickets", ix, {"Idempotency-Key": f"order-{ix}"}))

# b) the same without NO_PROXY
del os.environ["NO_PROXY"]
r, _ = post(session(True), f"{PROXY_URL}/api/tickets", intent("requests_noproxy", slow=False), {})
problem = r.json().get("type", "") if r.headers.get("content-type", "").startswith("application/problem+json") else ""
report_expected(f"{SDK} base URL, HTTP_PROXY without NO_PROXY",
                f"{r.status_code} {problem} (the call went to the proxy in absolute-form for host 127.0.0.1: set NO_PROXY)",
                r.status_code == 404 and problem.endswith(":no-route"))
os.environ["NO_PROXY"] = "127.0.0.1,localhost"

# c) HTTP_PROXY, no key: derived from the task and the title
ix = intent("requests_proxy")
report("HTTP_PROXY (no key, X-Task-Id)", ix, *post(session(True), TARGET, ix, {"X-Task-Id": f"task-{ix}"}))
finish()
