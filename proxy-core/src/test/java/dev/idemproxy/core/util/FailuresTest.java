package dev.idemproxy.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class FailuresTest {
    @Test
    void aFailureSeenByALaterStageIsItsCause() {
        IOException failure = new IOException("refused");
        Throwable[] seen = new Throwable[1];
        CompletableFuture.failedFuture(failure).thenApply(x -> x).whenComplete((x, e) -> seen[0] = e);
        assertThat(seen[0]).isInstanceOf(CompletionException.class);
        assertThat(Failures.cause(seen[0])).isSameAs(failure);
    }

    @Test
    void anythingElseIsItself() {
        IOException failure = new IOException("refused");
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(Failures.cause(failure)).isSameAs(failure);
        assertThat(Failures.cause(bare)).isSameAs(bare);
    }
}
