package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** The connection count behind {@code limits.maxConnections}. */
class ConnectionLimitTest {
    @Test
    void admitsUpToTheLimitAndASlotComesBackWhenAConnectionCloses() {
        ConnectionLimit limit = new ConnectionLimit(2);
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        EmbeddedChannel c = new EmbeddedChannel();

        assertThat(limit.admit(a)).isTrue();
        assertThat(limit.admit(b)).isTrue();
        assertThat(limit.admit(c)).as("one over the limit").isFalse();
        assertThat(limit.open()).as("a refused one is not counted").isEqualTo(2);

        a.close();
        assertThat(limit.open()).isEqualTo(1);
        assertThat(limit.admit(c)).isTrue();
        b.close();
        c.close();
        assertThat(limit.open()).isZero();
    }
}
