"""Recipe: the Anthropic Python SDK, pointed at idemproxy by its base URL.
    Anthropic(base_url="http://127.0.0.1:8080")      # no /v1: the SDK adds it
"""
import anthropic
from lib import (CLIENT_TIMEOUT_S, FAKE_URL, PROXY_URL, finish, intent, report_direct, report_proxied,
                 upstream_stats, version)

SDK = f"anthropic (python) {version('anthropic')}"
print(f"{SDK}: max_retries={anthropic.DEFAULT_MAX_RETRIES} (default), timeout={CLIENT_TIMEOUT_S}s", flush=True)


def run(base_url):
    attempts = []
    client = anthropic.Anthropic(
        api_key="sk-ant-fake-key",
        base_url=base_url,
        timeout=CLIENT_TIMEOUT_S,
        http_client=anthropic.DefaultHttpxClient(event_hooks={"request": [attempts.append]}),
    )
    ix = intent("pyanthropic")
    raw = client.messages.with_raw_response.create(
        model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": f"Summarise ticket {ix}"}])
    return ix, raw, len(attempts)


ix, _, _ = run(FAKE_URL)
report_direct(SDK, upstream_stats(ix))

ix, raw, attempts = run(PROXY_URL)
report_proxied(SDK, stats=upstream_stats(ix), call_id=raw.headers.get("x-call-id"),
               replayed=raw.headers.get("idempotent-replayed") == "true", client_attempts=attempts,
               note=f'answer: "{raw.parse().content[0].text}"')
finish()
