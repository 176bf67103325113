package dev.idemproxy.core.call;

import dev.idemproxy.core.retry.Deadline;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * What the parts of one forwarded protected call share and never change: the call, who it is,
 * the services, its client leg, its door, its deadline, its request headers as rewritten for the
 * upstream, and whether a repeat is harmless (its dialect says). This class is immutable (its
 * members are not all).
 *
 * @param upstreamHeaders the request headers as rewritten for the upstream (hop-by-hop gone)
 * @param repeatHarmless  whether executing the call twice does no harm, so an unknown outcome may be retried
 * @param watch           who is told what the call does
 */
record CallContext(ProxyCall call, CallIdentity identity, CallServices services, ClientSide client, Door door, Deadline deadline,
        HttpHeaders upstreamHeaders, boolean repeatHarmless, CallWatch watch) {

    CallDialect dialect() {
        return call.dialect();
    }
}
