package dev.idemproxy.app.admin;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of receipts and dead letters (docs/admin-api.md), as ordered maps for Jackson. Times
 * are ISO-8601 strings; the scope hash of a record key is never shown. Stateless.
 */
final class CallRecordsJson {
    private CallRecordsJson() {
    }

    /** {callId, bizId, key, route, status, reason, httpStatus, attempts, createdAt, completedAt}, and an MCP call's tool. */
    static Map<String, Object> receipt(Receipt r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("callId", r.callId());
        m.put("bizId", r.bizId());
        m.put("key", r.key());
        m.put("route", r.route());
        m.put("status", r.status());
        m.put("reason", r.reason());
        m.put("httpStatus", r.httpStatus() == 0 ? null : r.httpStatus());  // none yet (PROCESSING), or none at all
        m.put("attempts", r.attempts());
        m.put("createdAt", iso(r.createdAt()));
        m.put("completedAt", iso(r.completedAt()));
        if (r.tool() != null) {
            m.put("tool", r.tool());  // an MCP tools/call's (docs/mcp.md); plain calls have none
        }
        return m;
    }

    /** {id, callId, taskId, bizId, key, route, reason, lastStatus, attempts, failedAt}. */
    static Map<String, Object> entry(DeadLetter d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", d.id());
        m.put("callId", d.callId());
        m.put("taskId", d.taskId());
        m.put("bizId", d.bizId());
        m.put("key", clientVisibleKey(d.recordKey()));
        m.put("route", d.recordKey().route());
        m.put("reason", d.reason());
        m.put("lastStatus", d.lastStatus() == 0 ? null : d.lastStatus());  // no HTTP status: the upstream never answered
        m.put("attempts", d.attempts());
        m.put("failedAt", iso(d.failedAt()));
        return m;
    }

    /**
     * The entry plus {@code request: {method, uri, headers: [{name, value}], body[, bodyEncoding]}},
     * shown through {@code redactor}: the store keeps what a replay needs, the API never shows it.
     */
    static Map<String, Object> entryWithRequest(DeadLetter d, Redactor redactor) {
        Map<String, Object> m = entry(d);
        m.put("request", request(d.request(), redactor));
        return m;
    }

    /**
     * The request as it may be shown (docs/security.md): the target's user-info and secret query
     * values, and every credential header's value (kept for replays or not), as {@code ***}. The
     * body is UTF-8 text when it decodes as such; otherwise base64 with {@code bodyEncoding: "base64"}.
     */
    static Map<String, Object> request(StoredRequest req, Redactor redactor) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", req.method());
        m.put("uri", redactor.url(req.uri()));
        List<Map<String, String>> headers = new ArrayList<>(req.headers().size());
        for (StoredHeader h : req.headers()) {
            Map<String, String> hm = new LinkedHashMap<>();
            hm.put("name", h.name());
            hm.put("value", redactor.header(h.name(), h.value()));
            headers.add(hm);
        }
        m.put("headers", headers);
        byte[] body = req.body();
        String text = utf8(body);
        if (text != null) {
            m.put("body", text);
        } else {
            m.put("body", Base64.getEncoder().encodeToString(body));
            m.put("bodyEncoding", "base64");
        }
        return m;
    }

    /**
     * The key as the client knows it: a client key without the store's {@code c:} prefix; a
     * derived ({@code d:…}) or generated ({@code g:…}) key as it is.
     */
    static String clientVisibleKey(RecordKey key) {
        String k = key.key();
        return dev.idemproxy.core.idempotency.StoredKey.shown(k);
    }

    private static String iso(Instant t) {
        return t == null ? null : t.toString();
    }

    /** The text, or null when the bytes are not valid UTF-8. */
    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
