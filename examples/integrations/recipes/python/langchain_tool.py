"""Recipe: a LangChain (Python) tool whose implementation calls a "create ticket" HTTP API through
idemproxy. LangChain never retries a tool by itself; `.with_retry()` (RunnableRetry) is the usual
way to add retries, and the tool's HTTP call gets a timeout. The tool sends no Idempotency-Key: it
names its agent task in X-Task-Id, and the proxy derives the key from [method, path, X-Task-Id, /title].
"""
import httpx
from langchain_core.tools import tool
from lib import (CLIENT_TIMEOUT_S, FAKE_URL, PROXY_URL, finish, intent, report_direct, report_proxied,
                 upstream_stats, version)

SDK = f"langchain-core {version('langchain-core')} @tool + with_retry"
print(f"{SDK}: stop_after_attempt=3, httpx timeout={CLIENT_TIMEOUT_S}s", flush=True)


def create_ticket_tool(base_url, task_id, seen):
    @tool
    def create_ticket(title: str, body: str) -> str:
        """Open a support ticket."""
        seen["attempts"] += 1
        r = httpx.post(f"{base_url}/api/tickets", json={"title": title, "body": body},
                       headers={"X-Task-Id": task_id}, timeout=CLIENT_TIMEOUT_S)
        seen["response"] = r
        r.raise_for_status()
        return r.text

    return create_ticket.with_retry(stop_after_attempt=3)


def run(base_url):
    seen = {"attempts": 0}
    ix = intent("pylangchain")
    # The agent's retry may reword free text; the key is derived from the title only.
    out = create_ticket_tool(base_url, f"task-{ix}", seen).invoke({"title": ix, "body": "Printer on fire"})
    return ix, out, seen


ix, _, _ = run(FAKE_URL)
report_direct(SDK, upstream_stats(ix))

ix, out, seen = run(PROXY_URL)
r = seen["response"]
report_proxied(SDK, stats=upstream_stats(ix), call_id=r.headers.get("x-call-id"),
               replayed=r.headers.get("idempotent-replayed") == "true", client_attempts=seen["attempts"],
               note=f"tool output: {out}")
finish()
