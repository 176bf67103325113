package dev.idemproxy.core.idempotency;

import java.util.List;

/**
 * The parts of a client request that keys, scopes, fingerprints and business ids are made of,
 * without any Netty type: the pipeline adapts its request, tests use a plain record.
 * Implementations must return the same answers every time they are asked.
 */
public interface RequestView {
    /** The method as sent, e.g. {@code POST}. */
    String method();

    /**
     * The path without the query string, normalised as routes match it: dot-segments removed,
     * escapes of unreserved characters decoded, other escapes kept as sent.
     */
    String path();

    /** The header's value, matched case-insensitively: the first line's when it is repeated; null when absent. */
    String header(String name);

    /** How many header lines named {@code name} (matched case-insensitively) the request carries; 0 when absent. */
    int headerLines(String name);

    /**
     * The values of every header line named {@code name} (matched case-insensitively), in the
     * order the lines were sent; empty when absent. What a {@code header:NAME} part hashes.
     */
    List<String> headerValues(String name);

    /** The first value of a query parameter, percent-decoded; "" when present without a value; null when absent. */
    String queryParam(String name);

    /** The buffered body; empty when there is none. The caller must not modify it. */
    byte[] body();

    /** The {@code Content-Type} header, or null. */
    default String contentType() {
        return header("Content-Type");
    }
}
