package dev.idemproxy.app.admin;

import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.RecordKey;
import dev.idemproxy.core.store.StoredHeader;
import dev.idemproxy.core.store.StoredRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/** Receipts and dead letters for admin tests. */
public final class CallRecordsFixture {
    public static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");

    private CallRecordsFixture() {
    }

    public static Receipt receipt(String callId, String bizId, int secondsAfterT0) {
        Instant created = T0.plusSeconds(secondsAfterT0);
        return new Receipt(callId, bizId, "order-key-" + callId, "tickets", "FAILED", "retries-exhausted", 503, 3,
                created, created.plusMillis(1500));
    }

    public static RecordKey clientKey(String key) {
        return new RecordKey("tickets", "5c0pe-hash", "c:" + key);
    }

    public static StoredRequest request() {
        return new StoredRequest("POST", "/api/tickets?x=1", List.of(
                new StoredHeader("Content-Type", "application/json"),
                new StoredHeader("Idempotency-Key", "k-1"),
                new StoredHeader("X-Biz-Id", "order-42"),
                new StoredHeader("Authorization", "<redacted>"),
                new StoredHeader("X-Api-Key", "<redacted>"),
                new StoredHeader("X-Request-Deadline", "1714557600000"),
                new StoredHeader("Content-Length", "15")),
                "{\"seat\":\"12A\"}\n".getBytes(StandardCharsets.UTF_8));
    }

    public static DeadLetter deadLetter(String id, int secondsAfterT0) {
        return deadLetter(id, secondsAfterT0, clientKey("k-" + id), request());
    }

    public static DeadLetter deadLetter(String id, int secondsAfterT0, RecordKey key, StoredRequest request) {
        return new DeadLetter(id, "call-" + id, "task-7", "order-42", key, "retries-exhausted", 503, 3,
                T0.plusSeconds(secondsAfterT0), request);
    }
}
