package dev.idemproxy.core.route;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.retry.AttemptOutcome;
import dev.idemproxy.core.retry.OutcomeClass;
import dev.idemproxy.core.retry.RetryPolicy;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * One downstream route: what it matches, where it forwards and its policies
 * ({@code routes[]} in the config). This class is immutable.
 *
 * @param upstream  http or https URI; its path, when not "/", is prefixed to forwarded paths. Null
 *                  for a route that forwards to the host the client asked for (HTTP_PROXY and
 *                  intercepted HTTPS_PROXY traffic): such a route names {@code match.host}, and
 *                  each call goes to a copy {@linkplain #toTarget bound} to its target
 * @param receipt   null when the route has no receipt endpoint
 * @param log       its call lines
 * @param mcp       its MCP settings ({@link McpPolicy#DISABLED} on a plain HTTP route)
 * @param notExecutedOn response statuses this upstream guarantees mean nothing ran: classed
 *                  {@linkplain OutcomeClass#NOT_EXECUTED not executed}
 * @param intercept whether a CONNECT to {@code match.host} is intercepted (TLS terminated with a
 *                  certificate of the proxy's CA) so that this route applies to the calls inside
 */
public record Route(
        String name,
        RouteMatch match,
        URI upstream,
        Set<String> tags,
        Timeouts timeouts,
        IdempotencyPolicy idempotency,
        RetryPolicy retry,
        IdsPolicy ids,
        ReceiptPolicy receipt,
        DeadLetterPolicy deadLetter,
        TlsPolicy tls,
        PoolPolicy pool,
        LogPolicy log,
        McpPolicy mcp,
        Set<Integer> notExecutedOn,
        boolean intercept) {

    public static final String TAG_IDEMPOTENT = "idempotent";

    public Route {
        requireNonNull(name, "name");
        requireArgument(name.matches("[A-Za-z0-9_.-]{1,64}"), "name '" + name + "' (expected: 1-64 of A-Z a-z 0-9 _ . -)");
        requireNonNull(match, "match");
        if (upstream == null) {
            requireArgument(match.host() != null, "route " + name + " has no upstream and no match.host "
                    + "(expected: an upstream, or a match.host whose requests go to the host the client asked for)");
            requireArgument(isUriHost(match.host()), "route " + name + " has no upstream, and its match.host '" + match.host()
                    + "' cannot be connected to (expected: a DNS name or IPv4 address, without '_')");
        } else {
            checkUpstream(upstream);
        }
        requireArgument(!intercept || match.host() != null,
                "route " + name + " intercepts without a match.host (expected: the host whose CONNECTs are intercepted)");
        tags = Set.copyOf(requireNonNull(tags, "tags"));
        requireNonNull(timeouts, "timeouts");
        requireNonNull(idempotency, "idempotency");
        requireNonNull(retry, "retry");
        requireNonNull(ids, "ids");
        requireNonNull(deadLetter, "deadLetter");
        requireNonNull(tls, "tls");
        requireNonNull(pool, "pool");
        requireNonNull(log, "log");
        requireNonNull(mcp, "mcp");
        notExecutedOn = Set.copyOf(requireNonNull(notExecutedOn, "notExecutedOn"));
        for (int status : notExecutedOn) {
            requireArgument(status >= 100 && status <= 599, "notExecutedOn " + status + " (expected: a status 100..599)");
        }
    }

    /** A plain HTTP route ({@link McpPolicy#DISABLED}) whose upstream guarantees nothing by any status. */
    public Route(String name, RouteMatch match, URI upstream, Set<String> tags, Timeouts timeouts,
            IdempotencyPolicy idempotency, RetryPolicy retry, IdsPolicy ids, ReceiptPolicy receipt,
            DeadLetterPolicy deadLetter, TlsPolicy tls, PoolPolicy pool, LogPolicy log) {
        this(name, match, upstream, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, log,
                McpPolicy.DISABLED, Set.of(), false);
    }

    /** A route with {@code mcp} whose upstream guarantees nothing by any status. */
    public Route(String name, RouteMatch match, URI upstream, Set<String> tags, Timeouts timeouts,
            IdempotencyPolicy idempotency, RetryPolicy retry, IdsPolicy ids, ReceiptPolicy receipt,
            DeadLetterPolicy deadLetter, TlsPolicy tls, PoolPolicy pool, LogPolicy log, McpPolicy mcp) {
        this(name, match, upstream, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, log, mcp, Set.of(),
                false);
    }

    /** A plain HTTP route with {@code notExecutedOn}. */
    public Route(String name, RouteMatch match, URI upstream, Set<String> tags, Timeouts timeouts,
            IdempotencyPolicy idempotency, RetryPolicy retry, IdsPolicy ids, ReceiptPolicy receipt,
            DeadLetterPolicy deadLetter, TlsPolicy tls, PoolPolicy pool, LogPolicy log, Set<Integer> notExecutedOn) {
        this(name, match, upstream, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, log,
                McpPolicy.DISABLED, notExecutedOn, false);
    }

    /** A route with {@code mcp} and {@code notExecutedOn} that does not intercept CONNECTs. */
    public Route(String name, RouteMatch match, URI upstream, Set<String> tags, Timeouts timeouts,
            IdempotencyPolicy idempotency, RetryPolicy retry, IdsPolicy ids, ReceiptPolicy receipt,
            DeadLetterPolicy deadLetter, TlsPolicy tls, PoolPolicy pool, LogPolicy log, McpPolicy mcp,
            Set<Integer> notExecutedOn) {
        this(name, match, upstream, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, log, mcp,
                notExecutedOn, false);
    }

    /** A plain HTTP route that intercepts CONNECTs to its {@code match.host} or not. */
    public Route(String name, RouteMatch match, URI upstream, Set<String> tags, Timeouts timeouts,
            IdempotencyPolicy idempotency, RetryPolicy retry, IdsPolicy ids, ReceiptPolicy receipt,
            DeadLetterPolicy deadLetter, TlsPolicy tls, PoolPolicy pool, LogPolicy log, boolean intercept) {
        this(name, match, upstream, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, log,
                McpPolicy.DISABLED, Set.of(), intercept);
    }

    /** A route whose call lines are the default's ({@link LogPolicy#DEFAULT}). */
    public Route(String name, RouteMatch match, URI upstream, Set<String> tags, Timeouts timeouts,
            IdempotencyPolicy idempotency, RetryPolicy retry, IdsPolicy ids, ReceiptPolicy receipt,
            DeadLetterPolicy deadLetter, TlsPolicy tls, PoolPolicy pool) {
        this(name, match, upstream, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, LogPolicy.DEFAULT);
    }

    /** A plain pass-through route with every policy at its default; handy in tests. */
    public static Route passThrough(String name, RouteMatch match, URI upstream) {
        return new Route(name, match, upstream, Set.of(), Timeouts.DEFAULT, IdempotencyPolicy.DISABLED,
                RetryPolicy.DEFAULT, IdsPolicy.DEFAULT, null, DeadLetterPolicy.DEFAULT, TlsPolicy.DEFAULT, PoolPolicy.DEFAULT);
    }

    private static void checkUpstream(URI upstream) {
        String scheme = upstream.getScheme() == null ? "" : upstream.getScheme().toLowerCase(Locale.ROOT);
        requireArgument(scheme.equals("http") || scheme.equals("https"),
                "upstream '" + upstream + "' (expected: an http:// or https:// URI)");
        requireArgument(upstream.getHost() != null, "upstream '" + upstream + "' has no host (expected: http[s]://host[:port])");
        requireArgument(upstream.getRawQuery() == null && upstream.getRawFragment() == null,
                "upstream '" + upstream + "' has a query or fragment (expected: http[s]://host[:port][/path])");
    }

    private static boolean isUriHost(String host) {
        try {
            return URI.create("http://" + host).getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** True for a route without {@code upstream}: its calls go to the host the client asked for. */
    public boolean forwardsToTarget() {
        return upstream == null;
    }

    /**
     * This route with {@code target} (an {@code http[s]://host[:port]} origin) as its upstream:
     * what a call of a {@linkplain #forwardsToTarget() target-forwarding} route runs with, so
     * the upstream side (pools, TLS, the request's Host) treats it as any other route.
     */
    public Route toTarget(URI target) {
        requireNonNull(target, "target");
        return new Route(name, match, target, tags, timeouts, idempotency, retry, ids, receipt, deadLetter, tls, pool, log,
                mcp, notExecutedOn, intercept);
    }

    public boolean isTls() {
        return "https".equalsIgnoreCase(upstream.getScheme());
    }

    public int upstreamPort() {
        int p = upstream.getPort();
        return p > 0 ? p : isTls() ? 443 : 80;
    }

    /** The upstream's path prefix without a trailing slash ("" for none). */
    public String upstreamBasePath() {
        String p = upstream.getRawPath();
        if (p == null || p.isEmpty() || p.equals("/")) {
            return "";
        }
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** The Host header value the upstream expects. */
    public String upstreamAuthority() {
        int p = upstream.getPort();
        String host = upstream.getHost();
        return p > 0 ? host + ":" + p : host;
    }

    /** The dialect the route's calls speak: its {@link McpPolicy} when {@code mcp.enabled}, else {@link DialectPolicy#HTTP}. */
    public DialectPolicy dialect() {
        return mcp.enabled() ? mcp : DialectPolicy.HTTP;
    }

    /** True when the route carries MCP ({@code mcp.enabled}, docs/mcp.md). */
    public boolean isMcp() {
        return mcp.enabled();
    }

    public boolean isTaggedIdempotent() {
        return tags.contains(TAG_IDEMPOTENT);
    }

    /** The class of an attempt's outcome on this route: {@code notExecutedOn} applied. */
    public OutcomeClass outcomeClass(AttemptOutcome outcome) {
        return outcome.outcomeClass(notExecutedOn);
    }
}
