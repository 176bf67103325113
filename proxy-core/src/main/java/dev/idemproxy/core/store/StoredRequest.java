package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;

/**
 * A request kept with a dead letter so that it can be replayed: what the replay needs, never
 * shown as it is (the admin API shows it through {@code Redactor}, CONTRACT §12). Its
 * {@link #toString} names neither the target nor a header value. This class is immutable.
 *
 * @param method  the HTTP method
 * @param uri     the request target as received (origin-form or absolute-form), secret query
 *                parameters and user-info included, so that a replay reaches the same URL
 * @param headers the request's headers; a credential header's value is {@code ***} unless the
 *                route's {@code deadLetter.keepHeaders} names it (then it is kept for the replay)
 */
public record StoredRequest(String method, String uri, List<StoredHeader> headers, byte[] body) {

    public StoredRequest {
        requireNonNull(method, "method");
        requireNonNull(uri, "uri");
        headers = List.copyOf(requireNonNull(headers, "headers"));
        body = requireNonNull(body, "body").clone();
    }

    /** A copy of the body. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The body's length, without copying it. */
    public int bodyLength() {
        return body.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredRequest r && r.method.equals(method) && r.uri.equals(uri)
                && r.headers.equals(headers) && Arrays.equals(r.body, body);
    }

    @Override
    public int hashCode() {
        return ((method.hashCode() * 31 + uri.hashCode()) * 31 + headers.hashCode()) * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "StoredRequest[" + method + ", headers=" + headers.size() + ", body=" + body.length + " bytes]";
    }
}
