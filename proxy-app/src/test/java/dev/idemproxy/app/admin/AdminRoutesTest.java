package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdminRoutesTest {
    private static final AdminHandlerFn A = req -> AdminResponse.json(200, "a").completed();
    private static final AdminHandlerFn B = req -> AdminResponse.json(200, "b").completed();

    @Test
    void variableMatchesOneSegmentAndBindsIt() {
        AdminRoutes routes = AdminRoutes.builder().get("/receipts/{callId}", A).build();

        AdminRoutes.Resolution r = routes.resolve("GET", List.of("receipts", "c-1"));

        assertThat(r.handler()).isSameAs(A);
        assertThat(r.pathParams()).isEqualTo(Map.of("callId", "c-1"));
        assertThat(routes.resolve("GET", List.of("receipts", "")).handler()).isNull();
        assertThat(routes.resolve("GET", List.of("receipts", "a", "b")).allowed()).isEmpty();
    }

    @Test
    void moreLiteralSegmentsWinOverVariables() {
        AdminRoutes routes = AdminRoutes.builder().post("/dlq/{id}/{action}", A).post("/dlq/{id}/replay", B).build();

        assertThat(routes.resolve("POST", List.of("dlq", "7", "replay")).handler()).isSameAs(B);
        assertThat(routes.resolve("POST", List.of("dlq", "7", "other")).handler()).isSameAs(A);
    }

    @Test
    void pathWithOtherMethodsOnlyListsThemAsAllowed() {
        AdminRoutes routes = AdminRoutes.builder().get("/dlq/{id}", A).delete("/dlq/{id}", B).build();

        AdminRoutes.Resolution r = routes.resolve("PUT", List.of("dlq", "9"));

        assertThat(r.handler()).isNull();
        assertThat(r.allowed()).containsExactly("DELETE", "GET");
    }

    @Test
    void duplicatesAndBadPatternsAreRejected() {
        assertThatThrownBy(() -> AdminRoutes.builder().get("/dlq/{id}", A).add("get", "/dlq/{other}", B))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already registered");
        assertThatThrownBy(() -> AdminRoutes.builder().get("dlq", A))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: a path starting with /");
        assertThatThrownBy(() -> AdminRoutes.builder().get("/a/{x}/{x}", A))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("repeats {x}");
        assertThatThrownBy(() -> AdminRoutes.builder().get("/a{x}", A))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AdminRoutes.builder().add("GE T", "/a", A))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
