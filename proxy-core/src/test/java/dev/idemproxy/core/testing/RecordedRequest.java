package dev.idemproxy.core.testing;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One request as {@link TestUpstream} received it. Immutable.
 *
 * @param index          0-based arrival order across all connections of the upstream
 * @param connectionId   1-based id of the accepted connection it came on (same id = keep-alive reuse)
 * @param remotePort     the client's (that is, the proxy's) source port
 * @param method         request method, e.g. {@code POST}
 * @param uri            request target exactly as sent, e.g. {@code /api/x?y=1}
 * @param headers        header lines in arrival order, names in their original casing
 * @param body           the body bytes (empty for streaming actions such as
 *                       {@link UpstreamAction#drainUploads()}; cut at
 *                       {@link TestUpstream#MAX_RECORDED_BODY} bytes)
 * @param bodyLength     the number of body bytes that arrived, even when {@code body} holds fewer
 * @param receivedAtNanos {@link System#nanoTime()} when the request head arrived
 */
public record RecordedRequest(
        int index,
        long connectionId,
        int remotePort,
        String method,
        String uri,
        List<Header> headers,
        byte[] body,
        long bodyLength,
        long receivedAtNanos) {

    public RecordedRequest {
        requireNonNull(method, "method");
        requireNonNull(uri, "uri");
        headers = List.copyOf(headers);
        requireNonNull(body, "body");
    }

    /** The first value of header {@code name} (case-insensitive), or {@code null} when absent. */
    public String header(String name) {
        return Header.first(headers, name);
    }

    /** Every value of header {@code name} (case-insensitive), in arrival order. */
    public List<String> headerValues(String name) {
        return Header.all(headers, name);
    }

    /** The path part of {@link #uri()}, without the query. */
    public String path() {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    /** The recorded body decoded as UTF-8. */
    public String bodyAsString() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** True when more body bytes arrived than were kept in {@link #body()}. */
    public boolean bodyTruncated() {
        return bodyLength > body.length;
    }

    @Override
    public String toString() {
        return "#" + index + " conn=" + connectionId + " " + method + " " + uri + " " + headers
                + " body=" + bodyLength + "B";
    }
}
