package dev.idemproxy.core.mcp;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protected {@code tools/call} requests of one MCP route now in flight, by the name a
 * {@code notifications/cancelled} would find them under ({@link #key}): the scope (so no caller
 * can find another's), the session (the 2025 generation's {@code Mcp-Session-Id}, "" without
 * one) and the request's id in canonical JSON (one id however it is escaped, as
 * {@link dev.idemproxy.core.mcp.SseResponseCapture} compares ids); and, for the 2025
 * generation, by session ({@link #sessionKey}), so that the session's DELETE can wait until
 * they have settled ({@link #quiet}). A call counts from its claim to its
 * end; two calls under one name (a client reusing an id) count twice.
 *
 * <p>This class is thread-safe: names in a concurrent map, sessions under this object's lock
 * (each protected call takes it twice; a DELETE once).
 */
final class McpInFlight {
    private final ConcurrentHashMap<String, Integer> calls = new ConcurrentHashMap<>();
    private final Map<String, Session> sessions = new HashMap<>();

    /** A session's calls in flight, and who waits for them to settle. */
    private static final class Session {
        int calls;
        final List<CompletableFuture<Void>> waiting = new ArrayList<>(1);
    }

    /** The name of a request: its scope hash, its session ("" without one) and its canonical id. */
    static String key(String scopeHash, String sessionId, String canonicalId) {
        return requireNonNull(scopeHash, "scopeHash") + '\n' + (sessionId == null ? "" : sessionId) + '\n'
                + requireNonNull(canonicalId, "canonicalId");
    }

    /** The name of a session in a scope; null without a session. */
    static String sessionKey(String scopeHash, String sessionId) {
        return sessionId == null || sessionId.isEmpty() ? null : requireNonNull(scopeHash, "scopeHash") + '\n' + sessionId;
    }

    /** @param session the call's {@link #sessionKey}, or null */
    void add(String key, String session) {
        calls.merge(key, 1, Integer::sum);
        if (session != null) {
            synchronized (this) {
                sessions.computeIfAbsent(session, s -> new Session()).calls++;
            }
        }
    }

    /** @param session as it was added */
    void remove(String key, String session) {
        calls.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
        if (session == null) {
            return;
        }
        List<CompletableFuture<Void>> done = null;
        synchronized (this) {
            Session s = sessions.get(session);
            if (s != null && --s.calls == 0) {
                sessions.remove(session);
                done = s.waiting;
            }
        }
        if (done != null) {
            done.forEach(f -> f.complete(null));  // outside the lock: each waiter hops to its own loop
        }
    }

    boolean contains(String key) {
        return calls.containsKey(key);
    }

    /** Completes once the session's calls in flight have all settled; null when it has none now. */
    synchronized CompletableFuture<Void> quiet(String session) {
        Session s = session == null ? null : sessions.get(session);
        if (s == null) {
            return null;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        s.waiting.add(f);
        return f;
    }
}
