package dev.idemproxy.core.pipeline;

import dev.idemproxy.core.call.ProxyCall;
import dev.idemproxy.core.idempotency.RequestValues;
import dev.idemproxy.core.idempotency.RequestView;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A protected call's request as the pure key, scope and fingerprint logic sees it. The body
 * bytes are copied once, lazily. Not thread-safe: used on one event loop.
 */
final class NettyRequestView implements RequestView {
    private final ProxyCall call;
    private byte[] body;
    private Map<String, List<String>> query;

    NettyRequestView(ProxyCall call) {
        this.call = call;
    }

    @Override
    public String method() {
        return call.request().method().name();
    }

    @Override
    public String path() {
        String pq = call.pathAndQuery();
        int q = pq.indexOf('?');
        return q < 0 ? pq : pq.substring(0, q);
    }

    /** The value as text: its bytes read as UTF-8 ({@link RequestValues#headerText}). */
    @Override
    public String header(String name) {
        return RequestValues.headerText(call.request().headers().get(name));
    }

    @Override
    public int headerLines(String name) {
        int n = 0;
        for (Iterator<? extends CharSequence> it = call.request().headers().valueCharSequenceIterator(name); it.hasNext(); it.next()) {
            n++;
        }
        return n;
    }

    /**
     * One line, nearly always: found with one walk of the header's bucket and no list built. The
     * bucket's iterator runs newest line first, so several lines come from {@code getAll}, which
     * keeps the order they were sent in.
     */
    @Override
    public List<String> headerValues(String name) {
        Iterator<? extends CharSequence> it = call.request().headers().valueCharSequenceIterator(name);
        if (!it.hasNext()) {
            return List.of();
        }
        String first = it.next().toString();
        return it.hasNext() ? call.request().headers().getAll(name) : List.of(first);
    }

    @Override
    public String queryParam(String name) {
        if (query == null) {
            query = new QueryStringDecoder(call.pathAndQuery()).parameters();
        }
        List<String> v = query.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    @Override
    public byte[] body() {
        if (body == null) {
            body = call.body() == null ? new byte[0] : ByteBufUtil.getBytes(call.body());
        }
        return body;
    }
}
