package dev.idemproxy.core.mcp;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A route's view of its MCP server's tools, fed by the {@code tools/list} answers that pass
 * through (docs/mcp.md): each tool's {@code readOnlyHint} and {@code idempotentHint}.
 *
 * <p><b>What "the latest tools/list" means across pages.</b> Every page updates the tools it
 * names at once (the latest annotation of a tool wins, from whichever page). A listing is the
 * chain of pages from a first page (a request without a cursor) through the {@code nextCursor}
 * each page hands to the next, up to the page without one; when a listing is complete, tools it
 * did not name are forgotten (a server that dropped or renamed a tool). Pages of several clients
 * may interleave: listings are told apart by the cursor each page was asked with. A page asked
 * with a cursor no listing handed out here (the listing began before this catalogue, or was
 * forgotten) only updates. At most {@value #MAX_PENDING_LISTINGS} unfinished listings are
 * followed, the oldest dropped first. Forgetting a tool, or never knowing it, is the safe
 * direction: an unknown tool is protected and counted as {@code other}.
 *
 * <p><b>Bounded.</b> At most {@code maxTools} tools are tracked; a tool beyond the cap, or with a
 * name longer than {@value #MAX_NAME_LENGTH} characters, stays unknown. Metric labels are the
 * tracked names plus {@code other}, so their number is bounded by the cap.
 *
 * <p>Thread-safe: readers see an immutable snapshot through a volatile field without locking;
 * pages are applied under a lock (they are rare: a client lists tools once per session or after
 * {@code notifications/tools/list_changed}).
 */
public final class ToolCatalogue {
    public static final int DEFAULT_MAX_TOOLS = 1000;
    public static final int MAX_NAME_LENGTH = 128;
    public static final String OTHER = "other";
    static final int MAX_PENDING_LISTINGS = 16;

    private final int maxTools;
    private final Object lock = new Object();
    /** The tracked tools; replaced whole (copy on write), never modified. */
    private volatile Map<String, ToolInfo> tools = Map.of();
    private volatile boolean listSeen;
    /** Unfinished listings by the cursor their next page will be asked with; guarded by lock. */
    private final LinkedHashMap<String, Set<String>> pending = new LinkedHashMap<>();

    public ToolCatalogue() {
        this(DEFAULT_MAX_TOOLS);
    }

    public ToolCatalogue(int maxTools) {
        requireArgument(maxTools > 0, "maxTools " + maxTools + " (expected: > 0)");
        this.maxTools = maxTools;
    }

    /**
     * Reads a {@code tools/list} answer (its final JSON-RPC response) and applies it; an error
     * response or a body that is not a tools page changes nothing.
     *
     * @param requestCursor the {@code params.cursor} the page was asked with; null for a first page
     * @return true when the response was a page
     */
    public boolean observe(String requestCursor, byte[] response) {
        return ToolsListPage.read(response).map(page -> {
            apply(requestCursor, page);
            return true;
        }).orElse(false);
    }

    /** Applies one page; see the class comment. */
    public void apply(String requestCursor, ToolsListPage page) {
        requireNonNull(page, "page");
        synchronized (lock) {
            Map<String, ToolInfo> next = new HashMap<>(tools);
            Set<String> named = new HashSet<>();
            for (ToolInfo t : page.tools()) {
                if (t.name().length() > MAX_NAME_LENGTH || (!next.containsKey(t.name()) && next.size() >= maxTools)) {
                    continue;
                }
                next.put(t.name(), t);
                named.add(t.name());
            }
            Set<String> listing = requestCursor == null ? new HashSet<>() : pending.remove(requestCursor);
            if (listing != null) {
                listing.addAll(named);
                if (page.nextCursor() == null) {
                    next.keySet().retainAll(listing);
                } else {
                    pending.put(page.nextCursor(), listing);
                    trimPending();
                }
            }
            tools = Map.copyOf(next);
            listSeen = true;
        }
    }

    /** True when the latest list marks {@code tool} {@code readOnlyHint: true}; false for an unknown tool. */
    public boolean isReadOnly(String tool) {
        ToolInfo t = tools.get(tool);
        return t != null && t.readOnly();
    }

    /** True when the latest list marks {@code tool} {@code idempotentHint: true}; false for an unknown tool. */
    public boolean isIdempotent(String tool) {
        ToolInfo t = tools.get(tool);
        return t != null && t.idempotent();
    }

    /** The {@code tool} label of {@code idemproxy_mcp_calls_total}: the name when tracked, else {@code other}. */
    public String label(String tool) {
        return tool != null && tools.containsKey(tool) ? tool : OTHER;
    }

    /** True once any tools/list page has been seen. */
    public boolean listSeen() {
        return listSeen;
    }

    /** The tracked tools (a snapshot). */
    public Map<String, ToolInfo> tools() {
        return tools;
    }

    private void trimPending() {
        Iterator<String> oldest = pending.keySet().iterator();
        while (pending.size() > MAX_PENDING_LISTINGS && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }
}
