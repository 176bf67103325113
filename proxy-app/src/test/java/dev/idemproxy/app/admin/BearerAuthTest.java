package dev.idemproxy.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BearerAuthTest {
    private final BearerAuth auth = new BearerAuth("tok");

    @Test
    void withoutTokenEverythingIsPermitted() {
        assertThat(new BearerAuth("").permits("/config", null)).isTrue();
    }

    @Test
    void probesNeverNeedTheToken() {
        assertThat(auth.permits("/healthz", null)).isTrue();
        assertThat(auth.permits("/readyz", null)).isTrue();
    }

    @Test
    void otherPathsNeedTheExactBearerToken() {
        assertThat(auth.permits("/metrics", "Bearer tok")).isTrue();
        assertThat(auth.permits("/metrics", "bearer   tok ")).isTrue();
        assertThat(auth.permits("/metrics", null)).isFalse();
        assertThat(auth.permits("/metrics", "Bearer")).isFalse();
        assertThat(auth.permits("/metrics", "Bearertok")).isFalse();
        assertThat(auth.permits("/metrics", "Bearer to")).isFalse();
        assertThat(auth.permits("/metrics", "Bearer tokk")).isFalse();
        assertThat(auth.permits("/metrics", "Basic tok")).isFalse();
    }
}
