package dev.idemproxy.core.idempotency;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * What a route's keys are scoped by (docs/configuration.md {@code idempotency.scope}, §12): records live
 * under (route, {@link Scope scope hash}, key), so callers of different scopes never share a
 * record, a replay, a 409 or a 422. Either
 * <ul>
 *   <li>the parts the route names ({@code scope: [header:Authorization, header:X-Tenant]}),
 *       hashed in order, an absent part as absent; or</li>
 *   <li>by default, the <b>credential headers</b> the request carries: {@link #CREDENTIAL_HEADERS}
 *       and the top-level {@code secretHeaders} (after the built-in ones, sorted, each name once
 *       whatever its case, spelled as first written: the spelling is part of the hash, as for a
 *       named part). {@code Authorization} is hashed as before, present or absent, and
 *       every other credential header only when the request carries it, so a caller that sends
 *       only {@code Authorization}, or no credential at all, has the scope the earlier default
 *       {@code [header:Authorization]} gave it and finds the records written before.</li>
 * </ul>
 * This class is immutable.
 *
 * @param parts       the parts hashed: the named ones, or one {@code header:NAME} per credential header
 * @param credentials true for the credential-header default
 */
public record ScopePolicy(List<RequestPart> parts, boolean credentials) {
    /** The credential headers every default scope includes, in hashing order. */
    public static final List<String> CREDENTIAL_HEADERS =
            List.of("Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key");

    /** The default scope of a config without {@code secretHeaders}. */
    public static final ScopePolicy CREDENTIALS = credentials(List.of());

    public ScopePolicy {
        parts = List.copyOf(requireNonNull(parts, "parts"));
        if (credentials) {
            requireArgument(!parts.isEmpty() && parts.get(0).equals(header(CREDENTIAL_HEADERS.get(0))),
                    "credential scope " + parts + " (expected: header:Authorization first)");
            for (RequestPart p : parts) {
                requireArgument(p.kind() == RequestPart.Kind.HEADER, "credential scope part " + p + " (expected: header:NAME)");
            }
        }
    }

    /** A scope of the parts a route names ({@code scope: [...]}); an empty list is one scope shared by every caller. */
    public static ScopePolicy of(List<RequestPart> parts) {
        return new ScopePolicy(parts, false);
    }

    /** The default scope: the built-in credential headers and {@code secretHeaders}. */
    public static ScopePolicy credentials(Collection<String> secretHeaders) {
        requireNonNull(secretHeaders, "secretHeaders");
        TreeMap<String, String> extra = new TreeMap<>();
        for (String name : secretHeaders) {
            extra.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
        }
        List<RequestPart> parts = new ArrayList<>();
        for (String name : CREDENTIAL_HEADERS) {
            parts.add(header(name));
            extra.remove(name.toLowerCase(Locale.ROOT));
        }
        for (String name : extra.values()) {
            parts.add(header(name));
        }
        return new ScopePolicy(parts, true);
    }

    /** The header names of a credential scope, in hashing order; empty for a named one. */
    public List<String> credentialHeaders() {
        return credentials ? parts.stream().map(RequestPart::name).toList() : List.of();
    }

    /** As configured: the parts' spellings, or {@code credential headers [Authorization, …]}. */
    @Override
    public String toString() {
        return credentials ? "credential headers " + credentialHeaders() : parts.toString();
    }

    private static RequestPart header(String name) {
        return new RequestPart(RequestPart.Kind.HEADER, name);
    }
}
