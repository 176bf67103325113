package dev.idemproxy.core.pipeline;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;

/** Small pure helpers telling where an exchange starts and ends on the client side. */
final class ExchangeTracker {
    private ExchangeTracker() {}

    static boolean isRequestHead(Object msg) {
        return msg instanceof HttpRequest;
    }

    /** True for the write that ends a final (non-1xx) response. */
    static boolean endsResponse(Object msg) {
        if (!(msg instanceof LastHttpContent)) {
            return false;
        }
        return !(msg instanceof HttpResponse) || ((HttpResponse) msg).status().codeClass() != HttpStatusClass.INFORMATIONAL;
    }
}
