package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.DeadLetter;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.IdempotencyRecord;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The dead-letter queue endpoints (docs/admin-api.md): {@code GET /dlq?limit=&cursor=},
 * {@code GET /dlq/{id}}, {@code DELETE /dlq/{id}[?release=true]} and {@code POST /dlq/{id}/replay}.
 * Every handler composes on the store's (and the replay client's) stages and never blocks the
 * admin loop. Cursors are the store's cursors in unpadded base64url, so they need no escaping.
 * Thread-safe.
 */
final class DlqEndpoints {
    /** What every cursor this API gives out begins with, before base64url. */
    /** The store's cursor of a page of dead letters: {@code FAILED_AT_MILLIS ID}, marked. */
    static final PageCursor CURSOR = new PageCursor("dlq1:", c -> true);

    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;

    private final DeadLetterStore deadLetters;
    /** The records of the same backend: a release or a replay evicts the entry's record. */
    private final RecordStore records;
    /** The receipts of the same backend: a replay keeps its call's first start. */
    private final ReceiptStore receipts;
    private final DlqReplayer replayer;
    private final Clock clock;
    private final Redactor redactor;
    /** The entries whose replay this process is running: a second replay of one waits for the first's answer. */
    private final Set<String> replaying = ConcurrentHashMap.newKeySet();

    DlqEndpoints(DeadLetterStore deadLetters, RecordStore records, ReceiptStore receipts, DlqReplayer replayer) {
        this(deadLetters, records, receipts, replayer, Clock.systemUTC(), Redactor.BUILT_IN);
    }

    /** @param redactor what {@code GET /dlq/{id}} shows of a stored request's secrets */
    DlqEndpoints(DeadLetterStore deadLetters, RecordStore records, ReceiptStore receipts, DlqReplayer replayer, Clock clock,
            Redactor redactor) {
        this.deadLetters = requireNonNull(deadLetters, "deadLetters");
        this.records = requireNonNull(records, "records");
        this.receipts = requireNonNull(receipts, "receipts");
        this.replayer = requireNonNull(replayer, "replayer");
        this.clock = requireNonNull(clock, "clock");
        this.redactor = requireNonNull(redactor, "redactor");
    }

    void addTo(AdminRoutes.Builder routes) {
        routes.get("/dlq", this::list)
                .get("/dlq/{id}", this::show)
                .delete("/dlq/{id}", this::delete)
                .post("/dlq/{id}/replay", this::replay);
    }

    /** 200 {@code {"entries": [...], "nextCursor": … or null}}, in (failedAt, id) order. */
    CompletionStage<AdminResponse> list(AdminRequest request) {
        Limits.Parsed limit = Limits.parse(request.queryParam("limit"), DEFAULT_LIMIT, MAX_LIMIT);
        if (limit.problem() != null) {
            return limit.problem().completed();
        }
        Optional<String> raw = request.queryParam("cursor").filter(c -> !c.isEmpty());
        String cursor = raw.map(CURSOR::decode).orElse(null);
        if (raw.isPresent() && cursor == null) {
            return PageCursor.refused(raw.get());
        }
        return StoreFailures.recover(deadLetters.deadLetters(cursor, limit.value()).thenApply(page -> {
            List<Map<String, Object>> entries = new ArrayList<>(page.entries().size());
            for (DeadLetter d : page.entries()) {
                entries.add(CallRecordsJson.entry(d));
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("entries", entries);
            body.put("nextCursor", CURSOR.next(page.nextCursor()));
            return AdminResponse.json(200, body);
        }));
    }

    /** 200 with the entry and its request (secrets shown as {@code ***}), or 404. */
    CompletionStage<AdminResponse> show(AdminRequest request) {
        String id = request.pathParam("id");
        return StoreFailures.recover(deadLetters.deadLetter(id).thenApply(found -> found
                .map(d -> AdminResponse.json(200, CallRecordsJson.entryWithRequest(d, redactor)))
                .orElseGet(() -> notFound(id))));
    }

    /**
     * 204 once deleted, or 404. With {@code release=true} the call's idempotency record is evicted
     * first, so the next duplicate executes; were the eviction to fail, the entry stays for a retry.
     * A release is refused (409, nothing evicted or deleted) while the call runs again (see
     * {@link #runningAgain}).
     */
    CompletionStage<AdminResponse> delete(AdminRequest request) {
        String id = request.pathParam("id");
        Optional<String> release = request.queryParam("release");
        if (release.isPresent() && !release.get().equals("true") && !release.get().equals("false")) {
            return badRequest("release '" + release.get() + "' (expected: true or false)");
        }
        boolean evict = release.isPresent() && release.get().equals("true");
        return StoreFailures.recover(deadLetters.deadLetter(id).thenCompose(found -> {
            if (found.isEmpty()) {
                return notFound(id).completed();
            }
            DeadLetter entry = found.get();
            if (!evict) {
                return deleteEntry(id);
            }
            return runningAgain(entry).thenCompose(running -> running != null ? running.completed()
                    : records.evict(entry.recordKey(), entry.owner())  // its owner's late writes are refused
                            .thenCompose(ignored -> deleteEntry(id)));
        }));
    }

    private CompletionStage<AdminResponse> deleteEntry(String id) {
        return deadLetters.deleteDeadLetter(id)
                .thenApply(deleted -> deleted ? AdminResponse.of(204, AdminResponse.JSON, new byte[0]) : notFound(id));
    }

    /**
     * A 409 when the entry's call is running again, else null: its record is in flight under a
     * live lease of another execution than the one that dead-lettered it (a replay, here or in
     * another proxy on the same store). Evicting that record would let the next duplicate, or the
     * next replay, execute beside it. Not atomic with the eviction that follows: a replay that
     * claims in between (milliseconds; in another proxy, since this one runs one replay of an
     * entry at a time) is not seen.
     */
    private CompletionStage<AdminResponse> runningAgain(DeadLetter entry) {
        return records.get(entry.recordKey()).thenApply(found -> {
            if (found.isEmpty()) {
                return null;
            }
            IdempotencyRecord r = found.get();
            boolean running = r.state() == IdempotencyRecord.State.IN_FLIGHT && !entry.owner().equals(r.owner())
                    && r.leaseExpiresAt() != null && r.leaseExpiresAt().isAfter(clock.instant());
            return running ? inFlight(entry.id(), "its call " + entry.callId() + " is running again (a replay in flight)") : null;
        });
    }

    private static AdminResponse inFlight(String id, String why) {
        return AdminResponse.problem(409, "replay-in-flight", "The call is running again",
                "DLQ entry " + id + ": " + why + "; nothing was evicted: try again once it has ended");
    }

    /**
     * Evicts the call's record (it holds the failed outcome), re-sends the stored request through
     * the proxy listener as the same call (its call id, record and first start, read from its
     * receipt: a receipt gone with its ttl leaves the replay's own start) and answers
     * {@code {"id", "status", "replayed": true, "callId", "removed"}}; a 2xx removes the entry.
     * 404 when absent; 502 when the listener cannot be reached; 409 while this entry's replay is
     * already running (here, or in another proxy on the same store: {@link #runningAgain}), whose
     * claim an eviction would delete, so that this one would execute the call beside it.
     */
    CompletionStage<AdminResponse> replay(AdminRequest request) {
        String id = request.pathParam("id");
        if (!replaying.add(id)) {
            return inFlight(id, "it is being replayed").completed();
        }
        CompletionStage<AdminResponse> answer;
        try {
            answer = replayOnce(id);
        } catch (RuntimeException e) {
            replaying.remove(id);
            throw e;
        }
        return answer.whenComplete((r, e) -> replaying.remove(id));
    }

    private CompletionStage<AdminResponse> replayOnce(String id) {
        return StoreFailures.recover(deadLetters.deadLetter(id).thenCompose(found -> {
            if (found.isEmpty()) {
                return notFound(id).completed();
            }
            DeadLetter entry = found.get();
            return runningAgain(entry).thenCompose(running -> running != null ? running.completed() : replay(entry));
        }));
    }

    /** Evicts the entry's record (its owner fenced), then sends its request through the listener. */
    private CompletionStage<AdminResponse> replay(DeadLetter entry) {
        // The replay is the same call, so its receipt keeps the time the call was first made.
        return receipts.receipt(entry.callId())
                .thenCompose(first -> records.evict(entry.recordKey(), entry.owner())
                        .thenApply(ignored -> first.map(Receipt::createdAt).orElse(null)))
                .thenCompose(createdAt -> replayer.send(entry.request(), entry.recordKey().route(), entry.callId(),
                        entry.recordKey().id(), createdAt)
                        .handle((result, error) -> error == null
                                ? afterReplay(entry, result)
                                : replayFailed(entry.id(), error).completed())
                        .thenCompose(stage -> stage));
    }

    private CompletionStage<AdminResponse> afterReplay(DeadLetter entry, DlqReplayer.Result result) {
        CompletionStage<Boolean> removed = result.succeeded()
                ? deadLetters.deleteDeadLetter(entry.id())
                : CompletableFuture.completedFuture(false);
        return removed.thenApply(r -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", entry.id());
            body.put("status", result.status());
            body.put("replayed", true);
            body.put("originalCallId", entry.callId());
            body.put("callId", result.callId());
            body.put("removed", r);
            return AdminResponse.json(200, body);
        });
    }

    private static AdminResponse replayFailed(String id, Throwable t) {
        Throwable cause = StoreFailures.unwrap(t);
        String what = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return AdminResponse.problem(502, "replay-failed", "Replay failed",
                "DLQ entry " + id + " was not replayed through the proxy listener: " + what);
    }

    private static AdminResponse notFound(String id) {
        return AdminResponse.problem(404, "not-found", "Not found", "no DLQ entry " + id);
    }

    private static CompletionStage<AdminResponse> badRequest(String detail) {
        return AdminResponse.problem(400, "bad-request", "Bad request", detail).completed();
    }
}
