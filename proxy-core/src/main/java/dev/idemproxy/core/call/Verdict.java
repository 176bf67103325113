package dev.idemproxy.core.call;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * How a forwarded call ended ({@link Forwarding}): what settles it, and what its client gets once
 * its record is written. This class is immutable; the answer's buffers are the call's until written.
 */
record Verdict(CallSettlement settlement, Answer answer) {

    /** What goes to the client when the call's record is written. */
    sealed interface Answer {}

    /** The last piece of the streamed (or whole) upstream answer. */
    record Last(LastHttpContent last) implements Answer {}

    /** A whole answer: a proxy-made problem, or the receipt's result. */
    record Whole(FullHttpResponse response) implements Answer {}

    /** Nothing: the client's connection was cut mid-answer already ({@code closed} says when). */
    record Cut(io.netty.util.concurrent.Future<Void> closed) implements Answer {}
}
