package dev.idemproxy.core.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulated upstream's application: a business endpoint ({@code /orders}), an MCP server
 * ({@code /mcp}: {@code tools/list} and {@code tools/call}) and a receipt endpoint
 * ({@code /receipts/{callId}}). Each request draws a {@link Reply} and its timing from the run's
 * random; every side effect is written in the {@link Ledger}. On a route tagged
 * {@code idempotent} it honours the key: an intent it has executed is answered again, not run
 * again. Not thread-safe.
 */
final class UpstreamBehaviour {
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
    private static final Pattern TOOL = Pattern.compile("\"name\":\"(\\w+)\"");
    private static final Pattern ARGS = Pattern.compile("\"arguments\":(\\{[^}]*\\})");
    /** The tool {@link #TOOLS_LIST} annotates read-only: once listed, the proxy forwards its calls unprotected. */
    static final String READ_ONLY_TOOL = "search_docs";
    static final String TOOLS_LIST = "{\"tools\":[{\"name\":\"search_docs\",\"annotations\":{\"readOnlyHint\":true}},"
            + "{\"name\":\"set_flag\",\"annotations\":{\"idempotentHint\":true}},{\"name\":\"create_ticket\"}]}";

    private final World world;
    private final SplittableRandom random;
    private final int[] weights;
    /** What an idempotent upstream answers again for an intent it executed. */
    private final Map<String, byte[]> remembered = new HashMap<>();
    private int executions;

    UpstreamBehaviour(World world, SplittableRandom random) {
        this.world = world;
        this.random = random;
        this.weights = Reply.drawWeights(random);
    }

    void handle(UpstreamServer s, HttpBytes.Message m) {
        String path = m.line().split(" ")[1];
        if (path.startsWith("/receipts/")) {
            receipt(s, path.substring("/receipts/".length()));
        } else if (path.startsWith("/mcp")) {
            mcp(s, m);
        } else {
            business(s, m, SimRoutes.ORDERS, m.header("Idempotency-Key") + "|" + m.header("Authorization"), null, null);
        }
    }

    private void receipt(UpstreamServer s, String callId) {
        String status = world.ledger.receiptStatus(callId);
        if (random.nextInt(10) == 0) {
            world.ledger.receiptAnswered(callId, "UNREADABLE", world.time.elapsedMillis());
            s.sendLater(delay(), HttpBytes.response(500, "Internal Server Error", List.of(), HttpBytes.ascii("oops")));
            return;
        }
        world.ledger.receiptAnswered(callId, status, world.time.elapsedMillis());
        String json = "{\"status\":\"" + status + "\"" + (status.equals("SUCCESS") ? ",\"result\":{\"call\":\"" + callId + "\"}" : "") + "}";
        s.sendLater(delay(), HttpBytes.response(200, "OK", json(), HttpBytes.ascii(json)));
    }

    private void mcp(UpstreamServer s, HttpBytes.Message m) {
        String body = m.text();
        Matcher id = ID.matcher(body);
        String rpcId = id.find() ? id.group(1) : "0";
        if (body.contains("\"tools/list\"")) {
            world.ledger.toolsListed();
            String json = "{\"jsonrpc\":\"2.0\",\"id\":" + rpcId + ",\"result\":" + TOOLS_LIST + "}";
            s.sendLater(delay(), HttpBytes.response(200, "OK", json(), HttpBytes.ascii(json)));
            return;
        }
        Matcher tool = TOOL.matcher(body);
        Matcher args = ARGS.matcher(body);
        String t = tool.find() ? tool.group(1) : "?";
        String a = args.find() ? args.group(1) : "{}";
        business(s, m, SimRoutes.TOOLS, "mcp:" + t + a + "|" + m.header("Authorization"), t, rpcId);
    }

    /** A business request of {@code intent}; {@code rpcId} non-null for an MCP tools/call. */
    private void business(UpstreamServer s, HttpBytes.Message m, String route, String intent, String tool, String rpcId) {
        String callId = m.header("X-Call-Id");
        String attempt = m.header("X-Attempt");
        int n = attempt == null ? 1 : Integer.parseInt(attempt);
        if (n >= 2) {
            world.ledger.retry(m.header("X-Task-Id"));
        }
        boolean tagged = world.routeTagged(route);
        if (tagged && remembered.containsKey(intent)) {
            s.sendLater(delay(), remembered.get(intent));
            return;
        }
        Reply reply = Reply.pick(weights, random);
        // An MCP server's 4xx is its transport refusing the message: nothing ran (the dialect's not-executed class).
        boolean refused = rpcId != null && (reply == Reply.CLIENT_ERROR || reply == Reply.CONFLICT);
        boolean executes = reply.executes && !refused && !(reply == Reply.HANG && random.nextBoolean());
        long execDelay = executes && random.nextInt(4) == 0 ? 1_000_000L * (1 + random.nextInt(3000)) : 0;
        String method = m.line().split(" ")[0];
        String result = "{\"intent\":" + executions++ + ",\"n\":" + n + "}";
        byte[] answer = answer(reply, route, result, rpcId);
        Runnable execute = () -> {
            world.ledger.executing(callId, -1);
            world.ledger.execute(intent, callId, n, route, method, tool, world.time.elapsedMillis());
            world.trace.step("execute", s.id(), n, intent);
            if (tagged && answer != null) {
                remembered.put(intent, answer);
            }
        };
        if (executes) {
            world.ledger.executing(callId, 1);
            if (execDelay == 0) {
                execute.run();
            } else {
                world.at(execDelay, "execute", execute);
            }
        }
        long respond = execDelay + delay();
        switch (reply) {
            case RESET_BEFORE -> s.close(0);
            case DROP_AFTER -> s.close(respond);
            case HANG -> { }
            case DROP_MID -> {
                byte[] head = HttpBytes.ascii("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"partial\":");
                s.sendLater(respond, head);
                s.close(respond + delay());
            }
            case STREAMED, SSE -> stream(s, reply, result, rpcId, respond);
            default -> {
                s.sendLater(respond, answer);
                if (random.nextInt(6) == 0) {
                    s.close(respond);
                }
            }
        }
    }

    private boolean promisedNotExecuted(String route, int status) {
        return world.route(route).notExecutedOn().contains(status);
    }

    private byte[] answer(Reply reply, String route, String result, String rpcId) {
        int status = switch (reply) {
            case OK, STREAMED, SSE -> random.nextBoolean() ? 200 : 201;
            case CLIENT_ERROR -> new int[] {400, 404, 422}[random.nextInt(3)];
            case CONFLICT -> 409;
            case THROTTLE -> 429;
            // honest: a status the route's notExecutedOn promises means nothing ran is never answered after running
            case ERROR_EXECUTED -> promisedNotExecuted(route, 503) ? new int[] {500, 502, 504}[random.nextInt(3)]
                    : new int[] {500, 502, 503, 504}[random.nextInt(4)];
            case ERROR_NOT_EXECUTED -> 503;
            default -> 0;
        };
        if (status == 0) {
            return null;
        }
        List<String[]> headers = json();
        if (status == 429) {
            headers.add(new String[] {"Retry-After", Integer.toString(random.nextInt(3))});
        }
        String body = rpcId == null || status >= 300 ? result : rpc(rpcId, reply, result);
        return HttpBytes.response(status, "S", headers, HttpBytes.ascii(body));
    }

    /** An MCP tool call's JSON-RPC answer: a result (isError false or true) or an error (executed codes only). */
    private String rpc(String rpcId, Reply reply, String result) {
        int x = random.nextInt(6);
        if (x == 0) {
            return "{\"jsonrpc\":\"2.0\",\"id\":" + rpcId + ",\"error\":{\"code\":-32602,\"message\":\"bad arguments\"}}";
        }
        return "{\"jsonrpc\":\"2.0\",\"id\":" + rpcId + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":" + quote(result)
                + "}],\"isError\":" + (x == 1) + "}}";
    }

    private void stream(UpstreamServer s, Reply reply, String result, String rpcId, long at) {
        boolean sse = reply == Reply.SSE || rpcId != null;
        String type = sse ? "text/event-stream" : "application/json";
        s.sendLater(at, HttpBytes.ascii("HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nTransfer-Encoding: chunked\r\n\r\n"));
        List<String> pieces = new ArrayList<>();
        if (rpcId != null) {
            pieces.add("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n");
            pieces.add("event: message\ndata: " + rpc(rpcId, reply, result) + "\n\n");
        } else if (sse) {
            pieces.add("data: " + result + "\n\n");
            pieces.add("data: done\n\n");
        } else {
            pieces.add(result.substring(0, 5));
            pieces.add(result.substring(5));
        }
        long t = at;
        for (String p : pieces) {
            t += delay();
            s.sendLater(t, HttpBytes.chunk(p));
        }
        s.sendLater(t + delay(), HttpBytes.ascii("0\r\n\r\n"));
    }

    /** Mostly none; sometimes a little; now and then a slow head past a try's timeout. */
    private long delay() {
        int x = random.nextInt(10);
        return x < 6 ? 0 : x < 9 ? 1_000_000L * random.nextInt(200) : 1_000_000L * (500 + random.nextInt(6000));
    }

    private static List<String[]> json() {
        List<String[]> h = new ArrayList<>();
        h.add(new String[] {"Content-Type", "application/json"});
        return h;
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
