package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A final upstream response kept for replay: status, headers in their original order (hop-by-hop
 * headers already removed by the caller) and the body bytes. This class is immutable: the body is
 * copied in, and {@link #body()} hands out a copy or a read-only view.
 */
public final class StoredResponse {
    private final int status;
    private final List<StoredHeader> headers;
    private final byte[] body;
    /** What {@link #derived} last computed, and with which function; null until then. */
    private volatile Derived<?> derived;

    private record Derived<T>(Function<StoredResponse, T> f, T value) {}

    public StoredResponse(int status, List<StoredHeader> headers, byte[] body) {
        this(status, List.copyOf(requireNonNull(headers, "headers")), requireNonNull(body, "body").clone(), true);
    }

    /**
     * A response made of what its caller hands over, uncopied: {@code headers} a list nobody
     * changes (an unmodifiable view of one that is not kept), {@code body} an array nobody
     * writes again. For a capture that built both for this response alone.
     */
    public static StoredResponse owning(int status, List<StoredHeader> headers, byte[] body) {
        return new StoredResponse(status, requireNonNull(headers, "headers"), requireNonNull(body, "body"), true);
    }

    /** Takes ownership of {@code body} (no copy); for decoders that made the array themselves. */
    StoredResponse(int status, List<StoredHeader> headers, byte[] body, boolean owned) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status " + status + " (expected: 100..999)");
        }
        this.status = status;
        this.headers = headers;
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** Headers in the order the upstream sent them. */
    public List<StoredHeader> headers() {
        return headers;
    }

    /** A copy of the body. */
    public byte[] body() {
        return body.clone();
    }

    /** A read-only view of the body, without copying (e.g. for {@code Unpooled.wrappedBuffer}). */
    public ByteBuffer bodyBuffer() {
        return ByteBuffer.wrap(body).asReadOnlyBuffer();
    }

    public int bodyLength() {
        return body.length;
    }

    byte[] bodyArray() {
        return body;
    }

    /**
     * {@code f} of this response, computed once and kept while the same {@code f} asks again (a
     * reader's encoding of it, such as the replay's header lines, for a response replayed many
     * times from a cache). {@code f} must be a pure function of the response, held in a constant.
     */
    @SuppressWarnings("unchecked")
    public <T> T derived(Function<StoredResponse, T> f) {
        Derived<?> d = derived;
        if (d != null && d.f() == f) {
            return (T) d.value();
        }
        T value = f.apply(this);
        derived = new Derived<>(f, value);
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredResponse r && r.status == status && r.headers.equals(headers) && Arrays.equals(r.body, body);
    }

    @Override
    public int hashCode() {
        return (31 * status + headers.hashCode()) * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "StoredResponse[status=" + status + ", headers=" + headers.size() + ", body=" + body.length + " bytes]";
    }
}
