package dev.idemproxy.app.it;

import static dev.idemproxy.core.testing.UpstreamAction.respond;
import static dev.idemproxy.core.testing.UpstreamAction.respondChunked;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.testing.FreePorts;
import dev.idemproxy.core.testing.RawHttp;
import dev.idemproxy.core.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT §9 and §12 "Logs" on the real process's standard output: a call line carries its
 * method, path, upstream and byte counts after the contract's fields; client text (keys, business
 * ids, paths) cannot forge a field or a line, in the text layout or the JSON one; identifiers
 * sent as UTF-8 are logged as the text they are.
 */
class LogLinesIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A field value: a JSON string in quotes, or a run without spaces, {@code ]} or quotes. */
    private static final String VALUE = "(\"(?:[^\"\\\\]|\\\\.)*\"|[^\\s\\]\"]*)";
    private static final Pattern PREFIX = Pattern.compile("^\\[call=" + VALUE + "]\\[biz=" + VALUE + "]\\[try=(\\d+)] (.*)$");
    private static final Pattern FIELD = Pattern.compile("(\\w+)=" + VALUE + "( |$)");
    /** A business id that tries to end its field, start a forged one and break the line (U+0085, NEL). */
    private static final String FORGING_BIZ = "o-1] outcome=forged\u0085東京 next";
    private static final String FORGING_KEY = "a=b]c";

    @TempDir
    Path dir;

    private int port;

    @Test
    void textCallLinesCarryTheNewFieldsAndNoClientTextForgesAFieldOrALine() throws Exception {
        List<String> stdout;
        String forgingCall;
        try (TestUpstream upstream = TestUpstream.start(); ChildProxy child = start(upstream, "text")) {
            forgingCall = sendAll(upstream);
            stdout = stopAndCollect(child, " calls - \\[call=", 5);
        }

        for (String line : stdout) {
            assertThat(line).as("every line is one whole log line").matches("^\\d{4}-\\d{2}-\\d{2}T.*");
            assertThat(line).doesNotContain("\u0085").doesNotContain("\u2028");
        }
        List<Map<String, String>> calls = new ArrayList<>();
        for (String line : stdout) {
            int at = line.indexOf(" calls - ");
            if (at >= 0) {
                calls.add(parse(line.substring(at + " calls - ".length())));
            }
        }
        assertThat(calls).hasSize(5);
        for (Map<String, String> c : calls) {
            assertThat(List.copyOf(c.keySet()).subList(0, 13)).containsExactly("call", "biz", "try", "route", "key", "status",
                    "outcome", "ms", "method", "path", "upstream", "in", "out");
        }

        Map<String, String> forged = only(calls, "call", forgingCall);
        assertThat(forged.get("biz")).isEqualTo(FORGING_BIZ);
        assertThat(forged.get("key")).isEqualTo(FORGING_KEY);
        assertThat(forged).containsEntry("route", "orders").containsEntry("status", "201").containsEntry("outcome", "executed")
                .containsEntry("method", "POST").containsEntry("path", "/orders/x]y")
                .containsEntry("upstream", "127.0.0.1:" + upstreamPort).containsEntry("in", "7").containsEntry("out", "8");
        assertThat(only(calls, "path", "/orders/2").get("biz")).as("bytes that are not UTF-8").isEqualTo("o-\uFFFD\uFFFD");
        assertThat(only(calls, "path", "/files/big")).containsEntry("outcome", "forwarded").containsEntry("method", "GET")
                .containsEntry("in", "0").containsEntry("out", "3000");
        assertThat(only(calls, "path", "/files/up")).containsEntry("method", "POST").containsEntry("in", "500")
                .containsEntry("out", "2");
        Map<String, String> refused = only(calls, "route", "none");
        assertThat(refused).containsEntry("path", "/nowhere?token=***").containsEntry("upstream", "-")
                .containsEntry("status", "404").containsEntry("reason", "no_route");
        assertThat(Long.parseLong(refused.get("out"))).isPositive();
    }

    @Test
    void jsonCallLinesCarryTheSameFieldsTypedAndEveryLineIsValidJson() throws Exception {
        List<String> stdout;
        String forgingCall;
        try (TestUpstream upstream = TestUpstream.start(); ChildProxy child = start(upstream, "json")) {
            forgingCall = sendAll(upstream);
            stdout = stopAndCollect(child, "\"logger\":\"idemproxy\\.calls\"", 5);
        }

        List<JsonNode> calls = new ArrayList<>();
        for (String line : stdout) {
            assertThat(line).doesNotContain("\u0085").doesNotContain("\u2028");
            JsonNode json = JSON.readTree(line);
            if (json.get("logger").asText().equals("idemproxy.calls")) {
                calls.add(json);
            }
        }
        assertThat(calls).hasSize(5);
        JsonNode forged = calls.stream().filter(c -> forgingCall.equals(c.get("call").textValue())).findFirst().orElseThrow();
        assertThat(forged.get("biz").textValue()).isEqualTo(FORGING_BIZ);
        assertThat(forged.get("key").textValue()).isEqualTo(FORGING_KEY);
        assertThat(forged.get("method").textValue()).isEqualTo("POST");
        assertThat(forged.get("path").textValue()).isEqualTo("/orders/x]y");
        assertThat(forged.get("upstream").textValue()).isEqualTo("127.0.0.1:" + upstreamPort);
        assertThat(forged.get("in").isIntegralNumber()).isTrue();
        assertThat(forged.get("in").longValue()).isEqualTo(7);
        assertThat(forged.get("out").longValue()).isEqualTo(8);
        assertThat(parse(forged.get("message").textValue())).as("the message is the text line")
                .containsEntry("biz", FORGING_BIZ).containsEntry("in", "7");
        JsonNode refused = calls.stream().filter(c -> "none".equals(c.get("route").textValue())).findFirst().orElseThrow();
        assertThat(refused.get("upstream").isNull()).isTrue();
        assertThat(refused.get("path").textValue()).isEqualTo("/nowhere?token=***");
    }

    private int upstreamPort;

    /** The calls both tests make; returns the call id of the one whose key and business id try to forge fields. */
    private String sendAll(TestUpstream upstream) throws Exception {
        upstreamPort = upstream.port();
        upstream.enqueue(respond(201, "created!"));
        RawHttp.Response forged = send(request("POST /orders/x]y", "Idempotency-Key: " + FORGING_KEY,
                "X-Biz-Id: " + new String(FORGING_BIZ.getBytes(UTF_8), ISO_8859_1), "{\"n\":1}"));
        assertThat(forged.status()).isEqualTo(201);

        upstream.enqueue(respond(201, "created"));
        byte[] notUtf8 = request("POST /orders/2", "Idempotency-Key: k-2", "X-Biz-Id: o-\u00ff\u00fe", "{\"n\":2}");
        assertThat(send(notUtf8).status()).isEqualTo(201);

        upstream.enqueue(respondChunked(200, List.of(new byte[1000], new byte[1000], new byte[1000])));
        assertThat(send(request("GET /files/big", null, null, null)).body()).hasSize(3000);

        upstream.enqueue(respond(200, "ok"));
        assertThat(send(request("POST /files/up", null, null, "x".repeat(500))).bodyAsString()).isEqualTo("ok");

        assertThat(send(request("GET /nowhere?token=t0k", null, null, null)).status()).isEqualTo(404);
        return forged.header("X-Call-Id");
    }

    /** A request's bytes, headers written as ISO-8859-1 so that each char is the byte it stands for. */
    private byte[] request(String line, String header1, String header2, String body) {
        StringBuilder head = new StringBuilder(line).append(" HTTP/1.1\r\nHost: 127.0.0.1:").append(port).append("\r\n");
        for (String h : new String[] {header1, header2}) {
            if (h != null) {
                head.append(h).append("\r\n");
            }
        }
        if (body != null) {
            head.append("Content-Type: application/json\r\nContent-Length: ").append(body.getBytes(UTF_8).length).append("\r\n");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.append("\r\n").toString().getBytes(ISO_8859_1));
        if (body != null) {
            out.writeBytes(body.getBytes(UTF_8));
        }
        return out.toByteArray();
    }

    private RawHttp.Response send(byte[] request) throws Exception {
        try (RawHttp http = RawHttp.connect("127.0.0.1", port)) {
            return http.write(request).readResponse();
        }
    }

    /** A call line's message as its fields in order, quoted values read as the JSON strings they are. */
    static Map<String, String> parse(String message) throws Exception {
        Matcher m = PREFIX.matcher(message);
        assertThat(m.matches()).as("a call line: %s", message).isTrue();
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("call", value(m.group(1)));
        fields.put("biz", value(m.group(2)));
        fields.put("try", m.group(3));
        String rest = m.group(4);
        Matcher f = FIELD.matcher(rest);
        int at = 0;
        while (at < rest.length()) {
            assertThat(f.find(at) && f.start() == at).as("a field at %d of %s", at, rest).isTrue();
            assertThat(fields.put(f.group(1), value(f.group(2)))).as("field %s once in %s", f.group(1), message).isNull();
            at = f.end();
        }
        return fields;
    }

    private static String value(String raw) throws Exception {
        return raw.startsWith("\"") ? JSON.readValue(raw, String.class) : raw;
    }

    private static Map<String, String> only(List<Map<String, String>> calls, String field, String value) {
        List<Map<String, String>> found = calls.stream().filter(c -> value.equals(c.get(field))).toList();
        assertThat(found).as("%s=%s in %s", field, value, calls).hasSize(1);
        return found.get(0);
    }

    private ChildProxy start(TestUpstream upstream, String format) throws Exception {
        int[] ports = FreePorts.pick(2);
        port = ports[0];
        Path config = dir.resolve("idemproxy.yaml");
        Files.writeString(config, "listen: 127.0.0.1:" + ports[0] + "\nadmin: { listen: 127.0.0.1:" + ports[1] + " }\n"
                + "store: { type: memory }\nroutes:\n"
                + "  - name: orders\n    match: { pathPrefix: /orders }\n    upstream: " + upstream.uri() + "\n"
                + "    idempotency: { enabled: true }\n    ids: { bizId: [header:X-Biz-Id] }\n"
                + "  - name: files\n    match: { pathPrefix: /files }\n    upstream: " + upstream.uri() + "\n");
        ChildProxy child = ChildProxy.start(dir, "run", "--config", config.toString(), "--log-format", format);
        child.awaitLine("listening on");
        return child;
    }

    /** Waits for {@code count} call lines, stops the child with SIGTERM (which writes what is queued) and returns its stdout. */
    private static List<String> stopAndCollect(ChildProxy child, String callLine, int count) throws Exception {
        child.awaitLines(callLine, count, Duration.ofSeconds(10));
        child.signal("TERM");
        assertThat(child.waitFor(Duration.ofSeconds(20))).isEqualTo(0);
        child.awaitStreamsClosed(Duration.ofSeconds(10));
        return child.stdout();
    }
}
