package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.ServerPolicy;
import dev.idemproxy.core.Transport;
import dev.idemproxy.core.upstream.UpstreamPools;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps PipelineNames' Javadoc, the README diagram and the real pipeline in one order. */
class PipelineOrderTest {
    @Test
    void clientPipelineIsInTheDocumentedOrder() throws Exception {
        try (UpstreamPools pools = new UpstreamPools(Transport.NIO)) {
            ProxyChannelInitializer init = new ProxyChannelInitializer(ServerPolicy.DEFAULT, new ServerState(), pools,
                    new DefaultChannelGroup(GlobalEventExecutor.INSTANCE));
            EmbeddedChannel ch = new EmbeddedChannel();
            init.addHandlers(ch.pipeline(), ch);
            List<String> names = ch.pipeline().names();
            assertThat(names.subList(0, names.size() - 1)).containsExactly(
                    PipelineNames.IDLE, PipelineNames.HTTP_CODEC, PipelineNames.IDLE_CLOSE, PipelineNames.SEQUENCER,
                    PipelineNames.KEEP_ALIVE, PipelineNames.GUARD, PipelineNames.EXPECT_CONTINUE, PipelineNames.ROUTE,
                    PipelineNames.FORWARD, PipelineNames.PROBLEMS);
            ch.finishAndReleaseAll();
        }
    }
}
