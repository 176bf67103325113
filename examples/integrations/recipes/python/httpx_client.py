"""Recipe: httpx with HTTP_PROXY set, as an agent's environment would have it:
  a) at idemproxy as a base URL with the client's Idempotency-Key (NO_PROXY keeps that call off the proxy
     path: without it httpx would send it to the proxy in absolute-form, see requests_client.py);
  b) to http://tickets.internal through HTTP_PROXY (absolute-form), a name only the proxy's route
     `tickets-via-proxy` (match.host) knows.
httpx retries no timeout by itself (its transport's `retries` covers connection failures only), so
the agent's loop retries.
"""
import os

import httpx
from lib import (CLIENT_TIMEOUT_S, FAKE_URL, PROXY_URL, finish, intent, report_direct, report_proxied,
                 upstream_stats, version, with_retries)

os.environ["HTTP_PROXY"] = PROXY_URL            # httpx reads both when a client is made (trust_env)
os.environ["NO_PROXY"] = "127.0.0.1,localhost"
SDK = f"httpx {version('httpx')}"
TARGET = "http://tickets.internal/api/tickets"


def post(client, url, ix, headers):
    return client.post(url, json={"title": ix}, headers=headers)


# On its own: HTTPTransport(retries=2) and a read timeout.
ix = intent("httpx_direct")
with httpx.Client(transport=httpx.HTTPTransport(retries=2), timeout=CLIENT_TIMEOUT_S) as c:
    try:
        post(c, f"{FAKE_URL}/api/tickets", ix, {"Idempotency-Key": f"order-{ix}"})
        outcome = "answered"
    except httpx.TimeoutException as e:
        outcome = f"raised {type(e).__name__}, no retry"
report_direct(f"{SDK} HTTPTransport(retries=2)", upstream_stats(ix), note=outcome)

with httpx.Client(timeout=CLIENT_TIMEOUT_S) as c:
    # a) base URL, the client's key (route `tickets`)
    ix = intent("httpx_key")
    r, attempts = with_retries(
        lambda: post(c, f"{PROXY_URL}/api/tickets", ix, {"Idempotency-Key": f"order-{ix}"}), httpx.TimeoutException)
    report_proxied(f"{SDK} base URL, NO_PROXY (Idempotency-Key)", stats=upstream_stats(ix),
                   call_id=r.headers.get("x-call-id"), replayed=r.headers.get("idempotent-replayed") == "true",
                   client_attempts=attempts, note=f"status {r.status_code}")

    # b) HTTP_PROXY, no key: derived from the task and the title
    ix = intent("httpx_proxy")
    r, attempts = with_retries(lambda: post(c, TARGET, ix, {"X-Task-Id": f"task-{ix}"}), httpx.TimeoutException)
    report_proxied(f"{SDK} HTTP_PROXY (no key, X-Task-Id)", stats=upstream_stats(ix),
                   call_id=r.headers.get("x-call-id"), replayed=r.headers.get("idempotent-replayed") == "true",
                   client_attempts=attempts, note=f"status {r.status_code}")
finish()
