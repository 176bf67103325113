package dev.idemproxy.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ToolCatalogueTest {
    private static byte[] page(String nextCursor, String... tools) {
        String next = nextCursor == null ? "" : ",\"nextCursor\":\"" + nextCursor + "\"";
        return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[" + String.join(",", tools) + "]" + next + "}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String tool(String name, String annotations) {
        return "{\"name\":\"" + name + "\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"readOnlyHint\":true}}"
                + (annotations == null ? "" : ",\"annotations\":" + annotations) + "}";
    }

    @Test
    void aListPageIsReadWithItsAnnotationsAndCursor() {
        ToolsListPage p = ToolsListPage.read(page("c2", tool("search", "{\"readOnlyHint\":true,\"title\":\"S\"}"),
                tool("put", "{\"idempotentHint\":true,\"readOnlyHint\":false}"), tool("create", null),
                tool("odd", "{\"readOnlyHint\":\"true\"}"), "{\"description\":\"no name\"}")).orElseThrow();

        assertThat(p.tools()).containsExactly(new ToolInfo("search", true, false), new ToolInfo("put", false, true),
                new ToolInfo("create", false, false), new ToolInfo("odd", false, false));
        assertThat(p.nextCursor()).isEqualTo("c2");
    }

    @Test
    void errorsAndOtherBodiesAreNoPage() {
        assertThat(ToolsListPage.read("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"x\"}}".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(ToolsListPage.read("{\"result\":{}}".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(ToolsListPage.read("nope".getBytes(StandardCharsets.UTF_8))).isEmpty();
        ToolCatalogue c = new ToolCatalogue();
        assertThat(c.observe(null, "{}".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(c.listSeen()).isFalse();
    }

    @Test
    void beforeAnyListEveryToolIsUnknownAndLabelledOther() {
        ToolCatalogue c = new ToolCatalogue();

        assertThat(c.isReadOnly("search")).isFalse();
        assertThat(c.isIdempotent("search")).isFalse();
        assertThat(c.label("search")).isEqualTo("other");
    }

    @Test
    void aCompleteListingForgetsToolsItNoLongerNames() {
        ToolCatalogue c = new ToolCatalogue();
        c.observe(null, page(null, tool("search", "{\"readOnlyHint\":true}"), tool("old", "{\"readOnlyHint\":true}")));

        c.observe(null, page(null, tool("search", "{\"readOnlyHint\":false}")));

        assertThat(c.isReadOnly("search")).as("the latest annotation wins").isFalse();
        assertThat(c.label("old")).isEqualTo("other");
        assertThat(c.isReadOnly("old")).isFalse();
        assertThat(c.label("search")).isEqualTo("search");
    }

    @Test
    void pagesUpdateAtOnceAndTheListingPrunesOnlyWhenItsLastPageArrives() {
        ToolCatalogue c = new ToolCatalogue();
        c.observe(null, page(null, tool("a", "{\"readOnlyHint\":true}"), tool("b", "{\"readOnlyHint\":true}"), tool("gone", null)));

        c.observe(null, page("p2", tool("a", "{\"readOnlyHint\":true}")));
        assertThat(c.tools()).containsOnlyKeys("a", "b", "gone");
        c.observe("p2", page("p3", tool("b", "{\"readOnlyHint\":false}")));
        assertThat(c.isReadOnly("b")).isFalse();
        c.observe("p3", page(null, tool("c", "{\"idempotentHint\":true}")));

        assertThat(c.tools()).containsOnlyKeys("a", "b", "c");
        assertThat(c.isIdempotent("c")).isTrue();
    }

    @Test
    void interleavedListingsAreFollowedByTheirCursors() {
        ToolCatalogue c = new ToolCatalogue();
        c.observe(null, page(null, tool("x", null), tool("y", null), tool("z", null)));

        c.observe(null, page("A2", tool("x", null)));
        c.observe(null, page("B2", tool("y", null)));
        c.observe("A2", page(null, tool("y", null)));   // listing A: x, y
        assertThat(c.tools()).containsOnlyKeys("x", "y");
        c.observe("B2", page(null, tool("z", null)));   // listing B: y, z

        assertThat(c.tools()).containsOnlyKeys("y", "z");
    }

    @Test
    void aPageAskedWithAnUnknownCursorOnlyUpdates() {
        ToolCatalogue c = new ToolCatalogue();
        c.observe(null, page(null, tool("x", null), tool("y", null)));

        c.observe("from-before", page(null, tool("y", "{\"readOnlyHint\":true}")));

        assertThat(c.tools()).containsOnlyKeys("x", "y");
        assertThat(c.isReadOnly("y")).isTrue();
    }

    @Test
    void unfinishedListingsAreBounded() {
        ToolCatalogue c = new ToolCatalogue();
        c.observe(null, page(null, tool("keep", null), tool("first", null)));
        c.observe(null, page("L0", tool("first", null)));
        for (int i = 1; i <= ToolCatalogue.MAX_PENDING_LISTINGS; i++) {
            c.observe(null, page("L" + i, tool("keep", null)));
        }

        c.observe("L0", page(null));   // L0 was dropped as the oldest: this page only updates

        assertThat(c.tools()).containsOnlyKeys("keep", "first");
    }

    @Test
    void theCapBoundsTrackedToolsAndLabels() {
        ToolCatalogue c = new ToolCatalogue(2);

        c.observe(null, page(null, tool("a", "{\"readOnlyHint\":true}"), tool("b", null), tool("c", "{\"readOnlyHint\":true}"),
                tool("x".repeat(ToolCatalogue.MAX_NAME_LENGTH + 1), "{\"readOnlyHint\":true}")));

        assertThat(c.tools()).containsOnlyKeys("a", "b");
        assertThat(c.isReadOnly("c")).as("beyond the cap: unknown, so protected").isFalse();
        assertThat(c.label("c")).isEqualTo("other");
        assertThat(c.label("x".repeat(ToolCatalogue.MAX_NAME_LENGTH + 1))).isEqualTo("other");
    }

    @Test
    void readersSeeWholeSnapshotsWhileListsAreApplied() throws Exception {
        ToolCatalogue c = new ToolCatalogue();
        byte[] readOnly = page(null, tool("a", "{\"readOnlyHint\":true}"), tool("b", "{\"readOnlyHint\":true}"));
        byte[] writable = page(null, tool("a", null), tool("b", null));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> readers = new ArrayList<>();
            Future<?> writer = pool.submit(() -> {
                start.await();
                for (int i = 0; i < 2000; i++) {
                    c.observe(null, i % 2 == 0 ? readOnly : writable);
                }
                return null;
            });
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    start.await();
                    int torn = 0;
                    while (!writer.isDone()) {
                        var snapshot = c.tools();
                        if (snapshot.size() == 2 && snapshot.get("a").readOnly() != snapshot.get("b").readOnly()) {
                            torn++;
                        }
                    }
                    return torn;
                }));
            }
            start.countDown();
            writer.get(30, TimeUnit.SECONDS);
            for (Future<Integer> r : readers) {
                assertThat(r.get(30, TimeUnit.SECONDS)).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
