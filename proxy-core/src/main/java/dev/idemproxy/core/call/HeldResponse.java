package dev.idemproxy.core.call;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * A response head waiting for its retry decision (the task budget's answer from the store), with
 * the content that arrived meanwhile and whether the upstream closed meanwhile. The queued
 * contents are owned here until streamed on or {@link #release() released}. Not thread-safe:
 * used on the call's event loop.
 */
final class HeldResponse {
    final HttpResponse head;
    final List<HttpContent> contents = new ArrayList<>(2);
    boolean upstreamClosed;

    HeldResponse(HttpResponse head) {
        this.head = head;
    }

    void release() {
        contents.forEach(HttpContent::release);
        contents.clear();
    }
}
