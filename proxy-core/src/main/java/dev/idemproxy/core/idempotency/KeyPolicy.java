package dev.idemproxy.core.idempotency;

import static dev.idemproxy.core.util.Checks.positive;
import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * How a protected call's idempotency key is found. This class is immutable.
 *
 * @param header   the client's key header, used when present; also the header sent upstream
 * @param derive   parts a key is derived from when the client sent none (default {@link #DEFAULT_DERIVE});
 *                 empty = no derivation: a keyless call gets a key of its own
 * @param window   derived keys: the same parts within this long of the first call are duplicates
 * @param required true: 400 {@code missing-idempotency-key} when no key can be had
 */
public record KeyPolicy(String header, List<RequestPart> derive, Duration window, boolean required) {
    /**
     * What a key is derived from unless the route says otherwise (docs/configuration.md): the same method,
     * path and body (canonical JSON for a JSON body) within the window are one call, so the
     * retries of a client that sends no key (the OpenAI and Anthropic SDKs send none) are duplicates.
     */
    public static final List<RequestPart> DEFAULT_DERIVE = List.of(new RequestPart(RequestPart.Kind.METHOD, ""),
            new RequestPart(RequestPart.Kind.PATH, ""), new RequestPart(RequestPart.Kind.BODY, ""));
    public static final KeyPolicy DEFAULT = new KeyPolicy("Idempotency-Key", DEFAULT_DERIVE, Duration.ofMinutes(10), false);

    public KeyPolicy {
        requireNonNull(header, "header");
        requireArgument(header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+"), "header '" + header + "' (expected: a header name)");
        derive = List.copyOf(requireNonNull(derive, "derive"));
        positive(window, "window");
    }
}
