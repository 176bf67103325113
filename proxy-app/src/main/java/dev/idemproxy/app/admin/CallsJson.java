package dev.idemproxy.app.admin;

import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.tries.HeadField;
import dev.idemproxy.core.tries.RequestHead;
import dev.idemproxy.core.tries.ResponseHead;
import dev.idemproxy.core.tries.Try;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of {@code GET /calls} and {@code GET /calls/{callId}} (docs/admin-api.md), as
 * ordered maps for Jackson: a receipt ({@link CallRecordsJson#receipt}) plus its task id and, for
 * one call, its tries and heads. Heads were redacted when they were kept. Stateless.
 */
final class CallsJson {
    private CallsJson() {
    }

    /** A listed call: the receipt, its task id and how many tries it made. */
    static Map<String, Object> summary(Receipt r) {
        Map<String, Object> m = CallRecordsJson.receipt(r);
        m.put("taskId", r.taskId());
        return m;
    }

    /** One call: the summary, {@code tries}, {@code triesOmitted}, {@code request} and {@code response}. */
    static Map<String, Object> call(Receipt r) {
        Map<String, Object> m = summary(r);
        List<Map<String, Object>> tries = new ArrayList<>(r.tries().tries().size());
        for (Try t : r.tries().tries()) {
            tries.add(tryOf(t));
        }
        m.put("tries", tries);
        m.put("triesOmitted", r.tries().omitted());
        m.put("request", request(r.request()));
        m.put("response", response(r.response()));
        return m;
    }

    static Map<String, Object> tryOf(Try t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("try", t.number());
        m.put("startMs", t.startMs());
        m.put("ms", t.ms());
        m.put("status", t.status() == 0 ? null : t.status());
        m.put("failure", t.failure());
        m.put("class", t.outcomeClass().spelling());
        m.put("next", t.next() == null ? null : t.next().spelling());
        m.put("waitMs", t.waitMs() < 0 ? null : t.waitMs());
        m.put("why", t.why());
        if (t.checked()) {
            m.put("checkMs", t.checkMs() < 0 ? null : t.checkMs());
            m.put("afterCheck", t.afterCheck() == null ? null : t.afterCheck().spelling());
            m.put("afterCheckWhy", t.afterCheckWhy());
        }
        return m;
    }

    private static Map<String, Object> request(RequestHead h) {
        if (h == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", h.method());
        m.put("uri", h.uri());
        m.put("headers", fields(h.headers()));
        return m;
    }

    private static Map<String, Object> response(ResponseHead h) {
        if (h == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", h.status() == 0 ? null : h.status());
        m.put("headers", fields(h.headers()));
        return m;
    }

    private static List<Map<String, String>> fields(List<HeadField> fields) {
        List<Map<String, String>> out = new ArrayList<>(fields.size());
        for (HeadField f : fields) {
            Map<String, String> hm = new LinkedHashMap<>();
            hm.put("name", f.name());
            hm.put("value", f.value());
            out.add(hm);
        }
        return out;
    }
}
