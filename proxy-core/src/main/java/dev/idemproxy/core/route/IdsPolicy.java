package dev.idemproxy.core.route;

import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.idempotency.RequestPart;
import java.util.List;

/** Where a call's business id comes from, first found wins. This class is immutable. */
public record IdsPolicy(List<RequestPart> bizId) {
    public static final IdsPolicy DEFAULT = new IdsPolicy(List.of(new RequestPart(RequestPart.Kind.HEADER, "X-Biz-Id")));

    public IdsPolicy {
        bizId = List.copyOf(requireNonNull(bizId, "bizId"));
    }
}
