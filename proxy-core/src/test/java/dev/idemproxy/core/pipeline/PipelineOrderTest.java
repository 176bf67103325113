package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.ServerPolicy;
import dev.idemproxy.core.Transport;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.upstream.UpstreamPools;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Keeps PipelineNames' Javadoc, the README diagram and the real pipeline in one order. */
@ExtendWith(LeakDetection.class)
class PipelineOrderTest {
    static dev.idemproxy.core.call.CallServices services(UpstreamPools pools) {
        java.time.Clock clock = java.time.Clock.systemUTC();
        return new dev.idemproxy.core.call.CallServices(pools, new dev.idemproxy.core.retry.RetryRules(new java.util.Random(1), clock),
                dev.idemproxy.core.retry.TaskPolicy.DEFAULT,
                dev.idemproxy.core.call.TaskBudgets.local(
                        new dev.idemproxy.core.retry.LocalTaskBudgets(dev.idemproxy.core.retry.TaskPolicy.DEFAULT, clock)),
                dev.idemproxy.core.retry.RetryBudgetPolicy.DEFAULT, null, dev.idemproxy.core.store.StorePolicy.OnUnavailable.REJECT,
                dev.idemproxy.core.secret.Redactor.BUILT_IN, new java.util.Random(2), dev.idemproxy.core.Ticker.system(), clock,
                dev.idemproxy.core.metrics.ProxyMetrics.noop(), true);
    }

    @Test
    void clientPipelineIsInTheDocumentedOrder() throws Exception {
        try (UpstreamPools pools = new UpstreamPools(Transport.NIO)) {
            ProxyChannelInitializer init = new ProxyChannelInitializer(ServerPolicy.DEFAULT, new ServerState(), services(pools),
                    new DefaultChannelGroup(GlobalEventExecutor.INSTANCE));
            EmbeddedChannel ch = new EmbeddedChannel();
            init.addHandlers(ch.pipeline(), ch);
            List<String> names = ch.pipeline().names();
            assertThat(names.subList(0, names.size() - 1)).containsExactly(
                    PipelineNames.IDLE, PipelineNames.HTTP_CODEC, PipelineNames.IDLE_CLOSE, PipelineNames.SEQUENCER,
                    PipelineNames.KEEP_ALIVE, PipelineNames.GUARD, PipelineNames.ROUTE, PipelineNames.BODY, PipelineNames.IDEMPOTENCY,
                    PipelineNames.FORWARD, PipelineNames.PROBLEMS);
            ch.finishAndReleaseAll();
        }
    }
}
