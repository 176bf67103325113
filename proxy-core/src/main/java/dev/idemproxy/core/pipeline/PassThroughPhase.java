package dev.idemproxy.core.pipeline;

/** Where a connection's pass-through call stands ({@link PassThroughRelay}), both legs at once. */
enum PassThroughPhase {
    /** No call. */
    IDLE,
    /** The request's body still streams upstream; no answer yet. */
    SENDING,
    /** The request is all upstream; its answer's head is awaited. */
    AWAITING_HEAD,
    /** The answer streams to the client while the request still streams upstream. */
    ANSWERING_WHILE_SENDING,
    /** The answer streams to the client; the request is all upstream. */
    ANSWERING,
    /** The call ended before its request did: the rest of the request is dropped. */
    DISCARDING;

    boolean requestDone() {
        return this == AWAITING_HEAD || this == ANSWERING;
    }

    boolean answering() {
        return this == ANSWERING_WHILE_SENDING || this == ANSWERING;
    }
}
