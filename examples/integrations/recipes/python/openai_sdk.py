"""Recipe: the OpenAI Python SDK, pointed at idemproxy by its base URL.
    OpenAI(base_url="http://127.0.0.1:8080/v1")
The fake upstream answers the first call late, the SDK times out (timeout=1s) and retries on its own.
Last, HTTP_PROXY set without NO_PROXY: the SDK (httpx2) sends the base-URL call to the proxy as a
proxy request for host 127.0.0.1, which no host-less route matches (404 no-route).
"""
import os

import openai
from lib import (CLIENT_TIMEOUT_S, FAKE_URL, PROXY_URL, finish, intent, report_direct, report_expected,
                 report_proxied, upstream_stats, version)

SDK = f"openai (python) {version('openai')}"
print(f"{SDK}: max_retries={openai.DEFAULT_MAX_RETRIES} (default), timeout={CLIENT_TIMEOUT_S}s", flush=True)


def run(base_url, slow=True):
    attempts = []
    client = openai.OpenAI(
        api_key="sk-fake-key",
        base_url=base_url,
        timeout=CLIENT_TIMEOUT_S,
        # only counts the SDK's attempts; the SDK's own defaults otherwise
        http_client=openai.DefaultHttpxClient(event_hooks={"request": [attempts.append]}),
    )
    ix = intent("pyopenai", slow=slow)
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": f"Summarise ticket {ix}"}])
    return ix, raw, len(attempts)


# 1. Direct, to see what the SDK does on its own.
ix, _, _ = run(f"{FAKE_URL}/v1")
report_direct(SDK, upstream_stats(ix))

# 2. Through idemproxy.
ix, raw, attempts = run(f"{PROXY_URL}/v1")
report_proxied(SDK, stats=upstream_stats(ix), call_id=raw.headers.get("x-call-id"),
               replayed=raw.headers.get("idempotent-replayed") == "true", client_attempts=attempts,
               note=f'answer: "{raw.parse().choices[0].message.content}"')

# 3. The agent's environment sets HTTP_PROXY, and NO_PROXY does not name the proxy.
os.environ["HTTP_PROXY"] = PROXY_URL
try:
    run(f"{PROXY_URL}/v1", slow=False)
    seen, ok = "answered", False
except openai.NotFoundError as e:
    problem = e.body.get("type", "") if isinstance(e.body, dict) else str(e.body)
    seen, ok = f"404 {problem}", problem.endswith(":no-route")
del os.environ["HTTP_PROXY"]
report_expected(f"{SDK} base_url, HTTP_PROXY without NO_PROXY",
                f"{seen} (the call went to the proxy in absolute-form for host 127.0.0.1: set NO_PROXY)", ok)
finish()
