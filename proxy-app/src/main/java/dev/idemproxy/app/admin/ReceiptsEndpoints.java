package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.store.Receipt;
import dev.idemproxy.core.store.ReceiptStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /receipts/{callId}} and {@code GET /receipts?bizId=B[&limit=N]} (docs/admin-api.md). Both
 * compose on the store's stages and never block the admin loop. Thread-safe.
 */
final class ReceiptsEndpoints {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 500;

    private final ReceiptStore store;

    ReceiptsEndpoints(ReceiptStore store) {
        this.store = requireNonNull(store, "store");
    }

    void addTo(AdminRoutes.Builder routes) {
        routes.get("/receipts/{callId}", this::byCallId)
                .get("/receipts", this::byBizId);
    }

    /** 200 with the receipt, or 404 {@code {"callId": …, "status": "NOT_FOUND"}}. */
    CompletionStage<AdminResponse> byCallId(AdminRequest request) {
        String callId = request.pathParam("callId");
        return StoreFailures.recover(store.receipt(callId).thenApply(found -> found
                .map(r -> AdminResponse.json(200, CallRecordsJson.receipt(r)))
                .orElseGet(() -> notFound(callId))));
    }

    /** 200 {@code {"receipts": [...]}}, oldest first; 400 without {@code bizId} or with a bad limit. */
    CompletionStage<AdminResponse> byBizId(AdminRequest request) {
        Optional<String> bizId = request.queryParam("bizId").filter(b -> !b.isEmpty());
        if (bizId.isEmpty()) {
            return AdminResponse.problem(400, "bad-request", "Bad request",
                    "GET /receipts needs a bizId query parameter (expected: /receipts?bizId=B, or /receipts/{callId})")
                    .completed();
        }
        Limits.Parsed limit = Limits.parse(request.queryParam("limit"), DEFAULT_LIMIT, MAX_LIMIT);
        if (limit.problem() != null) {
            return limit.problem().completed();
        }
        return StoreFailures.recover(store.receiptsByBizId(bizId.get(), limit.value()).thenApply(list -> {
            List<Map<String, Object>> receipts = new ArrayList<>(list.size());
            for (Receipt r : list) {
                receipts.add(CallRecordsJson.receipt(r));
            }
            return AdminResponse.json(200, Map.of("receipts", receipts));
        }));
    }

    private static AdminResponse notFound(String callId) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("callId", callId);
        body.put("status", "NOT_FOUND");
        return AdminResponse.json(404, body);
    }
}
