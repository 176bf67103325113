package dev.idemproxy.core.dlq;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Dead-letter settings of a route. Authorization, Cookie, Proxy-Authorization and configured
 * secrets are redacted from stored requests unless {@code keepHeaders} names them.
 * This class is immutable.
 */
public record DeadLetterPolicy(boolean enabled, List<String> keepHeaders) {
    public static final DeadLetterPolicy DEFAULT = new DeadLetterPolicy(true, List.of());

    public DeadLetterPolicy {
        keepHeaders = List.copyOf(requireNonNull(keepHeaders, "keepHeaders"));
    }
}
