package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idemproxy.core.AdminPolicy;
import dev.idemproxy.core.HostPort;
import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CallRecordsStoreOutageTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private final MetricsSetup metrics = new MetricsSetup();
    private AdminServer server;

    @AfterEach
    void tearDown() {
        server.close();
        metrics.close();
    }

    /** Stores whose every asynchronous operation fails as an unreachable backend does. */
    private static Stores unreachableStore() {
        return new Stores(unreachable(RecordStore.class), unreachable(ReceiptStore.class), unreachable(DeadLetterStore.class),
                unreachable(TaskBudgetStore.class));
    }

    private static <T> T unreachable(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getReturnType().isAssignableFrom(CompletableFuture.class)) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("redis down"));
            }
            throw new UnsupportedOperationException(method.getName());
        }));
    }

    @Test
    void aStoreOutageIs503StoreUnavailableOnEveryEndpoint() throws Exception {
        server = new AdminServer(new AdminPolicy(new HostPort("127.0.0.1", 0), ""), metrics.registry(), () -> true,
                Map::of, CallRecordsEndpoints.routes(unreachableStore(),
                        () -> new InetSocketAddress("127.0.0.1", 9), Duration.ofSeconds(5))).start();

        for (String[] call : List.of(new String[] {"GET", "/receipts/c-1"}, new String[] {"GET", "/receipts?bizId=b"},
                new String[] {"GET", "/dlq"}, new String[] {"GET", "/dlq/d-1"}, new String[] {"DELETE", "/dlq/d-1"},
                new String[] {"POST", "/dlq/d-1/replay"})) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.port() + call[1]))
                    .method(call[0], HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).as(call[1]).isEqualTo(503);
            assertThat(new ObjectMapper().readTree(r.body()).get("type").asText())
                    .isEqualTo("urn:idemproxy:problem:store-unavailable");
        }
    }
}
