package dev.idemproxy.core.tries;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A call's request head as the admin API may show it: the method, the target as the client sent
 * it and its headers, secrets already {@code ***} ({@link CallHeads}). This class is immutable.
 */
public record RequestHead(String method, String uri, List<HeadField> headers) {
    public RequestHead {
        requireNonNull(method, "method");
        requireNonNull(uri, "uri");
        headers = List.copyOf(requireNonNull(headers, "headers"));
    }
}
