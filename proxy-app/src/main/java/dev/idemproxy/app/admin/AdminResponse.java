package dev.idemproxy.app.admin;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One admin response: status, content type, body bytes and any extra headers
 * ({@code Content-Type} and {@code Content-Length} are set by the server). This class is immutable.
 */
public record AdminResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    public static final String JSON = "application/json";
    public static final String PROBLEM_JSON = "application/problem+json";
    /** URN prefix of the admin API's problem types, as for the proxy's own (docs/http-reference.md). */
    public static final String PROBLEM_PREFIX = "urn:idemproxy:problem:";

    public AdminResponse {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status " + status + " (expected: 100..599)");
        }
        requireNonNull(contentType, "contentType");
        body = requireNonNull(body, "body").clone();
        headers = Map.copyOf(requireNonNull(headers, "headers"));
    }

    public static AdminResponse of(int status, String contentType, byte[] body) {
        return new AdminResponse(status, contentType, body, Map.of());
    }

    /** {@code value} serialised with Jackson (maps, lists, records, {@code JsonNode}s). */
    public static AdminResponse json(int status, Object value) {
        return of(status, JSON, toJson(value));
    }

    /** An RFC 9457 problem; {@code name} is the part after {@code urn:idemproxy:problem:}. */
    public static AdminResponse problem(int status, String name, String title, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", PROBLEM_PREFIX + name);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        return of(status, PROBLEM_JSON, toJson(body));
    }

    /** This response as an already completed stage, for handlers that answer at once. */
    public CompletionStage<AdminResponse> completed() {
        return CompletableFuture.completedFuture(this);
    }

    /** A copy with one more header. */
    public AdminResponse withHeader(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(requireNonNull(name, "name"), requireNonNull(value, "value"));
        return new AdminResponse(status, contentType, body, copy);
    }

    /** The body; a copy, since arrays are mutable. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Records compare arrays by identity; a response is equal by content. */
    @Override
    public boolean equals(Object o) {
        return o instanceof AdminResponse r && r.status == status && r.contentType.equals(contentType)
                && Arrays.equals(r.body, body) && r.headers.equals(headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, contentType, Arrays.hashCode(body), headers);
    }

    static byte[] toJson(Object value) {
        return Json.bytes(value);
    }

    @Override
    public String toString() {
        return "AdminResponse[status=" + status + ", contentType=" + contentType + ", bytes=" + body.length + "]";
    }

    /**
     * Jackson, made at the first JSON body rather than with this class, so that a start's probes
     * load none of its classes. Thread-safe once configured; never reconfigured after this
     * initialiser.
     */
    private static final class Json {
        private static final ObjectMapper MAPPER = new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

        static byte[] bytes(Object value) {
            try {
                return MAPPER.writeValueAsBytes(value);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("not serialisable as JSON: " + e.getOriginalMessage(), e);
            }
        }
    }
}
