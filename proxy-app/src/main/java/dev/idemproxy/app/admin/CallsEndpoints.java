package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.call.CallRecorder;
import dev.idemproxy.core.store.CallQuery;
import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /calls?route=&status=&bizId=&task=&limit=&cursor=} and {@code GET /calls/{callId}}
 * (docs/admin-api.md): recent calls newest first, and one call with its tries and heads. Both
 * compose on the store's stages and never block the admin loop. Cursors are the store's, marked
 * and in unpadded base64url, as the DLQ's are. Thread-safe.
 */
final class CallsEndpoints {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;
    /** The store's cursor of a page of calls: a call id (printable ASCII, at most 255 chars), marked. */
    static final PageCursor CURSOR = new PageCursor("calls1:",
            c -> c.length() <= 255 && c.chars().allMatch(ch -> ch > ' ' && ch < 127));
    private static final Set<String> STATUSES = Set.of(CallRecorder.PROCESSING, CallRecorder.SUCCESS, CallRecorder.FAILED);
    private static final Set<String> PARAMS = Set.of("route", "status", "bizId", "task", "limit", "cursor");

    private final ReceiptStore store;

    CallsEndpoints(ReceiptStore store) {
        this.store = requireNonNull(store, "store");
    }

    void addTo(AdminRoutes.Builder routes) {
        routes.get("/calls", this::list).get("/calls/{callId}", this::one);
    }

    /** 200 {@code {"calls": [...], "nextCursor": … or null}}; 400 for a bad parameter. */
    CompletionStage<AdminResponse> list(AdminRequest request) {
        for (String name : request.queryParams().keySet()) {
            if (!PARAMS.contains(name)) {
                return badRequest("unknown parameter '" + name + "' (expected: route, status, bizId, task, limit, cursor)");
            }
        }
        Optional<String> status = param(request, "status");
        if (status.isPresent() && !STATUSES.contains(status.get())) {
            return badRequest("status '" + status.get() + "' (expected: PROCESSING, SUCCESS or FAILED)");
        }
        Limits.Parsed limit = Limits.parse(request.queryParam("limit"), DEFAULT_LIMIT, MAX_LIMIT);
        if (limit.problem() != null) {
            return limit.problem().completed();
        }
        Optional<String> raw = param(request, "cursor");
        String cursor = raw.map(CURSOR::decode).orElse(null);
        if (raw.isPresent() && cursor == null) {
            return PageCursor.refused(raw.get());
        }
        CallQuery q = new CallQuery(param(request, "route").orElse(null), status.orElse(null), param(request, "bizId").orElse(null),
                param(request, "task").orElse(null), cursor, limit.value());
        return StoreFailures.recover(store.recentCalls(q).thenApply(page -> {
            List<Map<String, Object>> calls = new ArrayList<>(page.calls().size());
            for (Receipt r : page.calls()) {
                calls.add(CallsJson.summary(r));
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("calls", calls);
            body.put("nextCursor", CURSOR.next(page.nextCursor()));
            return AdminResponse.json(200, body);
        }));
    }

    /** 200 with the call, its tries and heads; 404 {@code not-found} for an unknown call id. */
    CompletionStage<AdminResponse> one(AdminRequest request) {
        String callId = request.pathParam("callId");
        return StoreFailures.recover(store.receipt(callId).thenApply(found -> found
                .map(r -> AdminResponse.json(200, CallsJson.call(r)))
                .orElseGet(() -> AdminResponse.problem(404, "not-found", "Not found", "no call " + callId
                        + " (never seen here, or its receipt has expired)"))));
    }

    private static Optional<String> param(AdminRequest request, String name) {
        return request.queryParam(name).filter(v -> !v.isEmpty());
    }

    private static CompletionStage<AdminResponse> badRequest(String detail) {
        return AdminResponse.problem(400, "bad-request", "Bad request", detail).completed();
    }
}
