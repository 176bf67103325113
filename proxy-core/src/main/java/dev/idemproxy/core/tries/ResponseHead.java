package dev.idemproxy.core.tries;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The head of the answer a call's client got, as the admin API may show it: its status and
 * headers, secrets already {@code ***} ({@link CallHeads}). This class is immutable.
 */
public record ResponseHead(int status, List<HeadField> headers) {
    public ResponseHead {
        headers = List.copyOf(requireNonNull(headers, "headers"));
    }
}
