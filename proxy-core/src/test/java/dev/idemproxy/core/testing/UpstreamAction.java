package dev.idemproxy.core.testing;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What {@link TestUpstream} does with one request: respond, stall, stream, close or reset. Build
 * them with the static factories here and hand them to {@link TestUpstream#enqueue} (one-shot, FIFO)
 * or {@link TestUpstream#defaultAction} (used whenever the queue is empty).
 *
 * <p>An action is chosen when a request head arrives. All actions except {@link #drainUploads()}
 * run once the whole request body has arrived. Actions are immutable except {@link SseAction}
 * and {@link DrainUploadsAction}, whose counters add up over every run.
 *
 * <p>Responses are HTTP/1.1; each carries {@code Connection: close} (and the connection is closed
 * after it) when the request did not ask for keep-alive.
 */
public abstract class UpstreamAction {

    /** The body length of the response that {@link #resetAfterBytes} and {@link #resetAfterBodyBytes} cut short. */
    public static final int RESET_RESPONSE_BODY_LENGTH = 65_536;

    UpstreamAction() {
    }

    // ------------------------------------------------------------------ factories

    /** A response with {@code status} and an empty body ({@code Content-Length: 0}). */
    public static UpstreamAction respond(int status) {
        return respond(status, Map.of(), new byte[0]);
    }

    /** A response with {@code status} and a {@code text/plain; charset=utf-8} body. */
    public static UpstreamAction respond(int status, String body) {
        return respond(status, Map.of(HttpHeaderNames.CONTENT_TYPE.toString(), "text/plain; charset=utf-8"),
                body.getBytes(StandardCharsets.UTF_8));
    }

    /** A response with {@code status}, the given headers (Content-Length is added) and a UTF-8 body. */
    public static UpstreamAction respond(int status, Map<String, String> headers, String body) {
        return respond(status, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    /** A response with {@code status}, the given headers (Content-Length is added) and body. */
    public static UpstreamAction respond(int status, Map<String, String> headers, byte[] body) {
        return new Respond(status, headers, body, true);
    }

    /**
     * A response head of {@code status} with the given headers and neither a body nor a
     * {@code Content-Length}: a 304 or 204 as servers send them, or their answer to a HEAD request.
     */
    public static UpstreamAction respondWithoutLength(int status, Map<String, String> headers) {
        return new Respond(status, headers, new byte[0], false);
    }

    /** A bodiless {@code status} response carrying {@code Retry-After: value} (seconds or an HTTP date). */
    public static UpstreamAction retryAfter(int status, String value) {
        return respond(status, Map.of(HttpHeaderNames.RETRY_AFTER.toString(), value), new byte[0]);
    }

    /** A {@code Transfer-Encoding: chunked} response, one HTTP chunk per element, flushed one by one. */
    public static UpstreamAction respondChunked(int status, List<byte[]> chunks) {
        return respondChunked(status, Map.of(), chunks);
    }

    /** As {@link #respondChunked(int, List)}, with extra response headers. */
    public static UpstreamAction respondChunked(int status, Map<String, String> headers, List<byte[]> chunks) {
        return new RespondChunked(status, headers, chunks);
    }

    /** Runs {@code then} only {@code delay} after the request arrived: the response head is late. */
    public static UpstreamAction delayHead(Duration delay, UpstreamAction then) {
        requireNonNull(delay, "delay");
        requireNonNull(then, "then");
        if (then instanceof DrainUploadsAction) {
            throw new IllegalArgumentException("then: drainUploads (expected: a non-streaming action)");
        }
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                ex.schedule(() -> {
                    if (ex.active()) {
                        then.respond(ex);
                    }
                }, delay);
            }
        };
    }

    /**
     * Runs {@code then} only once {@code gate} completes (a test's signal, e.g. "the store was
     * restarted"): the response head waits for the test, not for time to pass.
     */
    public static UpstreamAction after(java.util.concurrent.CompletionStage<?> gate, UpstreamAction then) {
        requireNonNull(gate, "gate");
        requireNonNull(then, "then");
        if (then instanceof DrainUploadsAction) {
            throw new IllegalArgumentException("then: drainUploads (expected: a non-streaming action)");
        }
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                gate.whenComplete((x, err) -> ex.ctx().executor().execute(() -> {
                    if (ex.active()) {
                        then.respond(ex);
                    }
                }));
            }
        };
    }

    /**
     * Sends the response head ({@code status}, {@code Content-Length} of {@code body}) at once, then
     * goes silent for {@code delay} before sending the body: a stall in the middle of a response.
     */
    public static UpstreamAction stallAfterHead(Duration delay, int status, byte[] body) {
        requireNonNull(delay, "delay");
        byte[] copy = body.clone();
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
                HttpUtil.setContentLength(head, copy.length);
                ex.writeHead(head);
                ex.schedule(() -> {
                    if (ex.active()) {
                        ex.finish(ex.write(new DefaultLastHttpContent(
                                Unpooled.wrappedBuffer(copy))));
                    }
                }, delay);
            }
        };
    }

    /**
     * A {@code text/event-stream} response whose events are sent with {@code gap} between them on the
     * event loop's scheduler (the first at once). Each element becomes one event: a {@code data:}
     * line per line of the element, then a blank line. The returned action counts events sent.
     */
    public static SseAction sse(List<String> events, Duration gap) {
        return new SseAction(events, gap);
    }

    /** Never answers: the request is recorded and the connection left open until someone closes it. */
    public static UpstreamAction hang() {
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
            }
        };
    }

    /** Closes the connection gracefully (FIN) once the request has arrived, without a response. */
    public static UpstreamAction closeWithoutResponse() {
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                ex.close();
            }
        };
    }

    /** Resets the connection (TCP RST via SO_LINGER 0) once the request has arrived, without a response. */
    public static UpstreamAction resetAfterRequest() {
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                ex.reset();
            }
        };
    }

    /**
     * Sends the first {@code n} bytes of the raw response {@code 200}, {@code Content-Type:
     * application/octet-stream}, {@code Content-Length: }{@value #RESET_RESPONSE_BODY_LENGTH}
     * (head included in the count), then resets the connection. With {@code n} below the head's
     * length the head itself is cut; see {@link #resetAfterBodyBytes(int)} to cut the body.
     */
    public static UpstreamAction resetAfterBytes(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n: " + n + " (expected: >= 0)");
        }
        return new ResetMidResponse(n, false);
    }

    /** Sends the whole head of the response described at {@link #resetAfterBytes}, then {@code n} body bytes, then resets. */
    public static UpstreamAction resetAfterBodyBytes(int n) {
        if (n < 0 || n >= RESET_RESPONSE_BODY_LENGTH) {
            throw new IllegalArgumentException("n: " + n + " (expected: 0 <= n < " + RESET_RESPONSE_BODY_LENGTH + ")");
        }
        return new ResetMidResponse(n, true);
    }

    /**
     * Answers {@code 200} with the request body as the body, the request's {@code Content-Type}
     * (else {@code application/octet-stream}), {@code X-Echo-Method}, {@code X-Echo-Uri} and one
     * {@code X-Echo-Header: name: value} per request header line, in order.
     */
    public static UpstreamAction echo() {
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                RecordedRequest r = ex.request();
                FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(r.body()));
                String type = r.header("content-type");
                res.headers().set(HttpHeaderNames.CONTENT_TYPE, type != null ? type : "application/octet-stream");
                res.headers().set("X-Echo-Method", r.method());
                res.headers().set("X-Echo-Uri", r.uri());
                for (Header h : r.headers()) {
                    res.headers().add("X-Echo-Header", h.name() + ": " + h.value());
                }
                HttpUtil.setContentLength(res, r.body().length);
                ex.finish(ex.writeHead(res));
            }
        };
    }

    /**
     * Streams the request body without keeping it: counts bytes and a CRC32 chunk by chunk, then
     * answers {@code 200} with {@code {"bytes":N,"crc32":"hex8"}}. Fit for uploads of any size.
     */
    public static DrainUploadsAction drainUploads() {
        return new DrainUploadsAction(-1, Duration.ZERO);
    }

    /**
     * As {@link #drainUploads()}, but once {@code pauseAfterBytes} have arrived it stops reading the
     * socket ({@code autoRead=false}) for {@code pauseFor}, once per request, so the sender meets
     * back-pressure.
     */
    public static DrainUploadsAction drainUploads(long pauseAfterBytes, Duration pauseFor) {
        if (pauseAfterBytes < 0) {
            throw new IllegalArgumentException("pauseAfterBytes: " + pauseAfterBytes + " (expected: >= 0)");
        }
        return new DrainUploadsAction(pauseAfterBytes, requireNonNull(pauseFor, "pauseFor"));
    }

    /** Chooses the action per request, from the complete recorded request (not a streaming one). */
    public static UpstreamAction dynamic(Function<RecordedRequest, UpstreamAction> chooser) {
        requireNonNull(chooser, "chooser");
        return new UpstreamAction() {
            @Override
            void respond(Exchange ex) {
                UpstreamAction chosen = requireNonNull(chooser.apply(ex.request()), "chosen action");
                if (chosen.streamsRequestBody()) {
                    throw new IllegalStateException("dynamic: drainUploads (expected: a non-streaming action)");
                }
                chosen.respond(ex);
            }
        };
    }

    // ------------------------------------------------------------------ engine hooks

    /** True when the action consumes the request body itself through {@link #onRequestContent}. */
    boolean streamsRequestBody() {
        return false;
    }

    /** The request head arrived (streaming actions only). */
    void onRequestHead(Exchange ex) {
    }

    /** A body chunk arrived (streaming actions only). The caller releases {@code content}. */
    void onRequestContent(Exchange ex, ByteBuf content) {
    }

    /** The whole request arrived and is recorded ({@link Exchange#request()}): answer it. */
    abstract void respond(Exchange ex);

    // ------------------------------------------------------------------ implementations

    static Map<String, String> copyHeaders(Map<String, String> headers) {
        return new LinkedHashMap<>(requireNonNull(headers, "headers"));
    }

    private static final class Respond extends UpstreamAction {
        private final int status;
        private final Map<String, String> headers;
        private final byte[] body;
        private final boolean addLength;

        Respond(int status, Map<String, String> headers, byte[] body, boolean addLength) {
            this.status = status;
            this.headers = copyHeaders(headers);
            this.body = body.clone();
            this.addLength = addLength;
        }

        @Override
        void respond(Exchange ex) {
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
            headers.forEach((k, v) -> res.headers().add(k, v));
            if (addLength && !res.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {  // a script's own stays where it put it
                HttpUtil.setContentLength(res, body.length);
            }
            ex.finish(ex.writeHead(res));
        }
    }

    private static final class RespondChunked extends UpstreamAction {
        private final int status;
        private final Map<String, String> headers;
        private final List<byte[]> chunks;

        RespondChunked(int status, Map<String, String> headers, List<byte[]> chunks) {
            this.status = status;
            this.headers = copyHeaders(headers);
            this.chunks = chunks.stream().map(byte[]::clone).toList();
        }

        @Override
        void respond(Exchange ex) {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
            headers.forEach((k, v) -> head.headers().add(k, v));
            HttpUtil.setTransferEncodingChunked(head, true);
            ex.writeHead(head);
            for (byte[] chunk : chunks) {
                if (chunk.length > 0) { // an empty chunk would read as the terminating one
                    ex.write(new DefaultHttpContent(Unpooled.wrappedBuffer(chunk)));
                }
            }
            ex.finish(ex.write(LastHttpContent.EMPTY_LAST_CONTENT));
        }
    }

    private static final class ResetMidResponse extends UpstreamAction {
        private final int n;
        private final boolean countBodyOnly;

        ResetMidResponse(int n, boolean countBodyOnly) {
            this.n = n;
            this.countBodyOnly = countBodyOnly;
        }

        @Override
        void respond(Exchange ex) {
            byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                    + RESET_RESPONSE_BODY_LENGTH + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            raw.writeBytes(head);
            byte[] body = new byte[RESET_RESPONSE_BODY_LENGTH];
            Arrays.fill(body, (byte) 'x');
            raw.writeBytes(body);
            int cut = Math.min(raw.size(), countBodyOnly ? head.length + n : n);
            ChannelFuture sent = ex.writeRaw(Unpooled.wrappedBuffer(raw.toByteArray(), 0, cut));
            sent.addListener(f -> ex.reset());
        }
    }
}
