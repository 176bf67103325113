"""Recipe: the official MCP Python SDK (mcp) calling a tool through idemproxy's MCP route.
    Client("http://127.0.0.1:8080/mcp")    # the MCP server's URL, pointed at the sidecar
The server (mcp_server.py, the same SDK) answers the first create_ticket of an intent late; the
agent times out (read_timeout_seconds=1) and calls the tool again in a new session, as a
restarted agent would. Once per protocol generation: session-based ("legacy") and sessionless
(2026-07-28). Direct, the tool runs twice; through the proxy, once, and the retry gets its answer.
"""
import asyncio
import logging
import os

from lib import CLIENT_TIMEOUT_S, PROXY_URL, finish, intent, report_check, version
from mcp import Client

SDK = f"mcp (python) {version('mcp')}"
SERVER_URL = os.environ["MCP_SERVER_URL"]
# The first call's late answer reaches a session the timeout closed; the SDK logs that with a traceback.
logging.getLogger("mcp").setLevel(logging.CRITICAL)


async def call(url, mode, title, timeout=None):
    async with Client(url, mode=mode) as client:
        result = await client.call_tool("create_ticket", {"title": title}, read_timeout_seconds=timeout)
        return result.content[0].text


async def executions(title):
    async with Client(SERVER_URL + "/mcp") as client:
        return int((await client.call_tool("executions", {"title": title})).content[0].text)


async def agent(url, mode, title):
    """The agent's call: times out, then retried once in a new session. Returns the retry's answer."""
    try:
        await call(url, mode, title, timeout=CLIENT_TIMEOUT_S)
        return "first call answered in time (not a retry)"
    except Exception:  # the SDK raises its timeout inside an exception group
        return await call(url, mode, title)


async def main():
    for mode in ("legacy", "2026-07-28"):
        direct = intent(f"pymcp-{mode}")
        answer = await agent(SERVER_URL + "/mcp", mode, direct)
        print(f"  direct  | {SDK} {mode}: create_ticket executions={await executions(direct)} | retry got: \"{answer}\"",
              flush=True)
        proxied = intent(f"pymcp-{mode}")
        answer = await agent(PROXY_URL + "/mcp", mode, proxied)
        runs = await executions(proxied)
        report_check(f"{SDK} {mode}", f"create_ticket executions={runs} | retry got: \"{answer}\"",
                        runs == 1 and answer.startswith("created ticket #1 "))


asyncio.run(main())
finish()
