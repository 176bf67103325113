package dev.idemproxy.app.config;

import dev.idemproxy.core.dlq.DeadLetterPolicy;
import dev.idemproxy.core.idempotency.IdempotencyPolicy;
import dev.idemproxy.core.idempotency.RequestPart;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.route.McpPolicy;
import dev.idemproxy.core.route.IdsPolicy;
import dev.idemproxy.core.route.ReceiptPolicy;
import dev.idemproxy.core.retry.RetryPolicy;
import dev.idemproxy.core.route.LogPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.route.RouteMatch;
import dev.idemproxy.core.route.Timeouts;
import dev.idemproxy.core.route.PoolPolicy;
import dev.idemproxy.core.route.TlsPolicy;
import dev.idemproxy.core.secret.Redactor;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Maps one {@code routes[]} item onto a {@link Route}; idempotency and retry go to {@link PolicyReader}. */
final class RouteReader {
    static final List<String> TAGS = List.of(Route.TAG_IDEMPOTENT);

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9_.-]+");
    private static final Pattern METHOD = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Z-]+");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}]*)}");
    private static final List<String> PLACEHOLDERS = List.of("callId", "key", "bizId");

    private RouteReader() {}

    /** The route's name, or null when it is missing or bad (reported). */
    static String name(MapReader r) {
        r.requireKey("name");
        return r.parsed("name", null, "a route name", RouteReader::checkedName);
    }

    /**
     * The route, or null when it has a problem (recorded).
     *
     * @param name          what {@link #name(MapReader)} returned for this item
     * @param secretHeaders the top-level {@code secretHeaders} (the default scope reads them)
     * @param forwardProxy  whether the config has a {@code forwardProxy} section
     */
    static Route read(MapReader r, String name, List<String> secretHeaders, boolean forwardProxy) {
        RouteMatch match = match(r.map("match"));
        ForwardReader.requireUpstreamOrHost(r, match);
        boolean intercept = ForwardReader.intercept(r, match, forwardProxy);
        URI upstream = r.parsed("upstream", null, "an http:// or https:// URI", RouteReader::upstream);
        Set<String> tags = new LinkedHashSet<>(r.list("tags", List.of(),
                t -> Choices.of(TAGS.toArray(new String[0]), s -> s, t)));
        Timeouts timeouts = timeouts(r.map("timeouts"));
        IdempotencyPolicy idempotency = PolicyReader.idempotency(r.map("idempotency"), secretHeaders);
        RetryPolicy retry = PolicyReader.retry(r.map("retry"));
        Redactor secrets = r.reading().problems().secrets();
        IdsPolicy ids = new IdsPolicy(r.map("ids").list("bizId", IdsPolicy.DEFAULT.bizId(), t -> bizIdPart(t, secrets)));
        ReceiptPolicy receipt = r.has("receipt") ? receipt(r.map("receipt")) : null;
        DeadLetterPolicy deadLetter = deadLetter(r.map("deadLetter"));
        TlsPolicy tls = tls(r.map("tls"));
        PoolPolicy pool = pool(r.map("pool"));
        LogPolicy log = new LogPolicy(r.map("log").bool("passThrough", LogPolicy.DEFAULT.passThrough()));
        McpPolicy mcp = McpReader.read(r.map("mcp"));
        Set<Integer> notExecutedOn = Set.copyOf(r.list("notExecutedOn", List.of(), RouteReader::status));
        if (name == null || (upstream == null && (r.has("upstream") || match.host() == null))) {
            return null;
        }
        return r.reading().problems().build(r.at("name"), r.path(), () -> new Route(name, match, upstream, tags, timeouts,
                idempotency, retry, ids, receipt, deadLetter, tls, pool, log, mcp, notExecutedOn, intercept));
    }

    /** An HTTP status 100..599, such as {@code 503}. */
    private static Integer status(String text) {
        if (text.matches("[0-9]{3}")) {
            int status = Integer.parseInt(text);
            if (status >= 100 && status <= 599) {
                return status;
            }
        }
        throw new IllegalArgumentException("'" + text + "' (expected: a status 100..599)");
    }

    /** Upper-case HTTP method names, such as {@code GET} and {@code POST}. */
    static String method(String text) {
        if (!METHOD.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected: an upper-case HTTP method such as GET or POST)");
        }
        return text;
    }

    private static String checkedName(String text) {
        if (!NAME.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected: 1-64 of A-Z a-z 0-9 _ . -)");
        }
        return text;
    }

    private static RouteMatch match(MapReader m) {
        String host = m.parsed("host", null, "a host name", t -> {
            if (!HOST.matcher(t).matches()) {
                throw new IllegalArgumentException("'" + t + "' (expected: a host name without port or scheme)");
            }
            return t;
        });
        String pathPrefix = m.parsed("pathPrefix", "", "a path", t -> {
            if (!t.startsWith("/")) {
                throw new IllegalArgumentException("'" + t + "' (expected: a path starting with /)");
            }
            return t;
        });
        List<String> methods = m.list("methods", List.of(), RouteReader::method);
        return new RouteMatch(host, pathPrefix, Set.copyOf(methods));
    }

    private static URI upstream(String text) {
        URI uri = httpUri(text, "an http:// or https:// URI");
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("'" + text + "' has a query or fragment (expected: http[s]://host[:port][/path])");
        }
        return uri;
    }

    /** Parses an http(s) URI with a host; throws with {@code expected} in the message otherwise. */
    private static URI httpUri(String text, String expected) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + text + "' is not a URI (expected: " + expected + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("'" + text + "' (expected: " + expected + ")");
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("'" + text + "' has no host (expected: " + expected + ")");
        }
        return uri;
    }

    private static Timeouts timeouts(MapReader m) {
        Timeouts d = Timeouts.DEFAULT;
        return new Timeouts(
                m.duration("connect", d.connect(), false),
                m.duration("perTry", d.perTry(), false),
                m.duration("idle", d.idle(), false),
                m.duration("total", d.total(), false));
    }

    private static ReceiptPolicy receipt(MapReader m) {
        m.requireKey("url");
        String url = m.parsed("url", null, "a URL template", RouteReader::receiptUrl);
        String status = m.parsed("statusPointer", null, "a JSON pointer", RouteReader::pointer);
        String result = m.parsed("resultPointer", null, "a JSON pointer", RouteReader::pointer);
        return url == null ? null : new ReceiptPolicy(url, status, result);
    }

    private static String receiptUrl(String text) {
        Matcher ph = PLACEHOLDER.matcher(text);
        while (ph.find()) {
            if (!PLACEHOLDERS.contains(ph.group(1))) {
                throw new IllegalArgumentException("unknown placeholder {" + ph.group(1) + "} (expected: {callId}, {key} or {bizId})");
            }
        }
        httpUri(ph.replaceAll("x"), "an http:// or https:// URL, with {callId}, {key} or {bizId}");
        return text;
    }

    /**
     * A part of {@code ids.bizId}: never a credential header or secret query parameter, since a
     * business id is logged, kept in receipts and shown by the admin API in clear (docs/security.md).
     */
    private static RequestPart bizIdPart(String text, Redactor secrets) {
        RequestPart part = RequestPart.parse(text);
        boolean secret = part.kind() == RequestPart.Kind.HEADER ? secrets.isSecretHeader(part.name())
                : part.kind() == RequestPart.Kind.QUERY && secrets.isSecretQueryParam(part.name());
        if (secret) {
            throw new IllegalArgumentException("'" + text + "' holds a secret (expected: a part that does not: a business id"
                    + " is logged, kept in receipts and shown by the admin API)");
        }
        return part;
    }

    private static String pointer(String text) {
        if (!text.startsWith("/")) {
            throw new IllegalArgumentException("'" + text + "' (expected: a JSON pointer such as /status)");
        }
        return text;
    }

    private static DeadLetterPolicy deadLetter(MapReader m) {
        DeadLetterPolicy d = DeadLetterPolicy.DEFAULT;
        return new DeadLetterPolicy(m.bool("enabled", d.enabled()),
                m.list("keepHeaders", d.keepHeaders(), Reading::headerName));
    }

    private static TlsPolicy tls(MapReader m) {
        Path base = m.reading().baseDir();
        Path caFile = m.parsed("caFile", null, "a file name", t -> readableFile(base, t));
        String serverName = m.parsed("serverName", null, "a host name", t -> {
            if (!HOST.matcher(t).matches()) {
                throw new IllegalArgumentException("'" + t + "' (expected: a host name)");
            }
            return t;
        });
        return new TlsPolicy(caFile, serverName);
    }

    /** {@code text} resolved against the config file's directory; must be a readable file. */
    static Path readableFile(Path base, String text) {
        Path p;
        try {
            p = base.resolve(text).normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + text + "' is not a valid path (expected: a readable PEM file)");
        }
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new IllegalArgumentException("'" + text + "' cannot be read (expected: a readable PEM file, "
                    + "relative to the config file's directory)");
        }
        return p;
    }

    private static PoolPolicy pool(MapReader m) {
        PoolPolicy d = PoolPolicy.DEFAULT;
        return new PoolPolicy((int) m.integer("maxIdle", d.maxIdle(), 0, 10_000),
                m.duration("idleTimeout", d.idleTimeout(), false));
    }
}
