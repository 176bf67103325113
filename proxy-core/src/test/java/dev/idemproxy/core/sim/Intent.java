package dev.idemproxy.core.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One thing a simulated agent wants done: a call on a route, with what its duplicates share (the
 * body or the tool and arguments, the client's key when it sends one, its credentials, task and
 * deadline). Several clients, and a client's own retries, send the same intent: the duplicates.
 * An MCP intent's every request has a new JSON-RPC id. This class is immutable.
 *
 * @param clientKey    the Idempotency-Key sent, or null (the proxy derives or generates one)
 * @param deadlineMs   the X-Request-Timeout-Ms sent, or 0 for none
 * @param taskId       the X-Task-Id sent, or null
 * @param tool         an MCP intent's tool (null: a plain HTTP call on /orders); "tools/list" for a listing
 */
record Intent(int index, String method, String body, String clientKey, String auth, String taskId, long deadlineMs, String tool,
        String args) {

    static List<Intent> draw(SplittableRandom r) {
        int n = 1 + r.nextInt(3);
        List<Intent> out = new ArrayList<>(n + 1);
        for (int i = 0; i < n; i++) {
            out.add(one(i, r));
        }
        if (r.nextInt(8) == 0 && out.get(0).clientKey() != null && out.get(0).tool() == null) {
            Intent first = out.get(0);  // the same key with another body: 422
            out.add(new Intent(n, first.method(), "{\"item\":\"other\"}", first.clientKey(), first.auth(), first.taskId(),
                    first.deadlineMs(), null, null));
        }
        return out;
    }

    private static Intent one(int i, SplittableRandom r) {
        String auth = r.nextInt(4) == 0 ? "Bearer b" : "Bearer a";
        String key = r.nextInt(3) == 0 ? null : "k" + i + "-" + r.nextInt(1000);
        String task = r.nextInt(3) == 0 ? "task" + r.nextInt(2) : null;
        long deadline = r.nextInt(4) == 0 ? 200 + r.nextInt(8000) : 0;
        if (r.nextInt(3) == 0) {
            String tool = r.nextInt(6) == 0 ? "tools/list" : new String[] {"create_ticket", "create_ticket", "set_flag", "search_docs"}[r.nextInt(4)];
            return new Intent(i, "POST", null, r.nextInt(4) == 0 ? key : null, auth, task, deadline, tool,
                    "{\"title\":\"t" + i + "\"}");
        }
        String method = r.nextInt(6) == 0 ? "PUT" : "POST";
        return new Intent(i, method, "{\"item\":\"i" + i + "\",\"qty\":" + (1 + r.nextInt(5)) + "}", key, auth, task, deadline, null, null);
    }

    boolean mcp() {
        return tool != null;
    }

    /** The request's bytes; {@code rpcId} and {@code session} for an MCP intent. */
    byte[] request(int rpcId, String session) {
        String payload = !mcp() ? body
                : tool.equals("tools/list") ? "{\"jsonrpc\":\"2.0\",\"id\":" + rpcId + ",\"method\":\"tools/list\"}"
                : "{\"jsonrpc\":\"2.0\",\"id\":" + rpcId + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                        + "\",\"arguments\":" + args + "}}";
        StringBuilder b = new StringBuilder(method).append(mcp() ? " /mcp" : " /orders").append(" HTTP/1.1\r\nHost: sim\r\n")
                .append("Content-Type: application/json\r\nAuthorization: ").append(auth).append("\r\n");
        if (mcp()) {
            b.append("Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: ")
                    .append(session).append("\r\n");
        }
        if (clientKey != null) {
            b.append("Idempotency-Key: ").append(clientKey).append("\r\n");
        }
        if (taskId != null) {
            b.append("X-Task-Id: ").append(taskId).append("\r\n");
        }
        if (deadlineMs > 0) {
            b.append("X-Request-Timeout-Ms: ").append(deadlineMs).append("\r\n");
        }
        byte[] p = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        b.append("Content-Length: ").append(p.length).append("\r\n\r\n").append(payload);
        return HttpBytes.ascii(b.toString());
    }
}
