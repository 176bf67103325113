package dev.idemproxy.core.problem;

import dev.idemproxy.core.secret.Redactor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * Builds {@code application/problem+json} responses (RFC 9457). Pure: the caller owns the
 * returned response and its buffer. This class is stateless.
 */
public final class ProblemResponses {
    public static final String CONTENT_TYPE = "application/problem+json";

    private ProblemResponses() {}

    /**
     * @param detail human-readable detail, may be null
     * @param callId the call's id, or null when the call never got one
     */
    public static FullHttpResponse build(ByteBufAllocator alloc, Problem problem, String detail, String callId) {
        byte[] json = json(problem, detail, callId).getBytes(StandardCharsets.UTF_8);
        ByteBuf body = alloc.buffer(json.length).writeBytes(json);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(problem.status()), body);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, CONTENT_TYPE);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, json.length);
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        if (callId != null) {
            r.headers().set("X-Call-Id", callId);
        }
        return r;
    }

    /**
     * The JSON body: type, title, status, detail and callId when present. A URL or target the
     * detail quotes shows no user-info and no secret query value (CONTRACT §12; the built-in
     * names: a detail never quotes the client's own request target).
     */
    public static String json(Problem problem, String detail, String callId) {
        StringBuilder sb = new StringBuilder(160);
        sb.append("{\"type\":\"").append(problem.type()).append("\",\"title\":");
        quote(sb, problem.title());
        sb.append(",\"status\":").append(problem.status());
        if (detail != null) {
            sb.append(",\"detail\":");
            quote(sb, Redactor.BUILT_IN.text(detail));
        }
        if (callId != null) {
            sb.append(",\"callId\":");
            quote(sb, callId);
        }
        return sb.append('}').toString();
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
