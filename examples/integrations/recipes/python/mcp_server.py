"""The MCP server of the MCP recipe: the official Python SDK's MCPServer over Streamable HTTP.

    python mcp_server.py PORT SLOW_MS
Tools: create_ticket(title) answers its first call per title SLOW_MS late, so the client times out
and retries; executions(title) (read-only) says how often create_ticket ran for a title.
Prints "LISTENING PORT" as it starts (run.sh then waits for the port). SSE answers (the SDK's default), both protocol generations.
"""
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

PORT, SLOW_S = int(sys.argv[1]), int(sys.argv[2]) / 1000
counts = {}
server = MCPServer("tickets")


@server.tool()
async def create_ticket(title: str) -> str:
    """Creates a ticket (a side effect: never run it twice for one intent)."""
    counts[title] = counts.get(title, 0) + 1
    if counts[title] == 1:
        await anyio.sleep(SLOW_S)
    return f"created ticket #{counts[title]} for {title}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def executions(title: str) -> int:
    """How many times create_ticket ran for this title."""
    return counts.get(title, 0)


async def main():
    print(f"LISTENING {PORT}", flush=True)
    await server.run_streamable_http_async(port=PORT)


anyio.run(main)
