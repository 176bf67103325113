package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.core.net.Transport;
import dev.idemproxy.core.testing.LeakDetection;
import dev.idemproxy.core.upstream.UpstreamPools;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
                dev.idemproxy.core.secret.Redactor.BUILT_IN, new java.util.Random(2), dev.idemproxy.core.util.Ticker.system(), clock,
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
                    PipelineNames.HTTP_CODEC, PipelineNames.TIMEOUTS, PipelineNames.SEQUENCER,
                    PipelineNames.KEEP_ALIVE, PipelineNames.GUARD, PipelineNames.ROUTE, PipelineNames.BODY, PipelineNames.IDEMPOTENCY,
                    PipelineNames.FORWARD, PipelineNames.PROBLEMS);
            // The drawing also shows the connect handler, which only a proxy with forwardProxy has.
            List<String> drawn = new ArrayList<>(namesDrawnIn(Path.of("..", "docs", "architecture.md"), "## The request path"));
            assertThat(drawn.remove(PipelineNames.CONNECT)).as("the drawing shows the connect handler").isTrue();
            assertThat(drawn).as("docs/architecture.md's request path").containsExactlyElementsOf(names.subList(0, names.size() - 1));
            ch.finishAndReleaseAll();
        }
    }

    /** The handler names of the first diagram under {@code heading}: each {@code → name} up to the first blank line. */
    static List<String> namesDrawnIn(Path file, String heading) throws Exception {
        List<String> lines = Files.readAllLines(file);
        int at = lines.indexOf(heading);
        assertThat(at).as(heading + " in " + file).isNotNegative();
        List<String> names = new ArrayList<>();
        boolean inBlock = false;
        for (String line : lines.subList(at, lines.size())) {
            if (line.startsWith("```")) {
                if (inBlock) {
                    break;
                }
                inBlock = true;
                continue;
            }
            if (inBlock && line.isBlank() && !names.isEmpty()) {
                break;
            }
            Matcher m = ARROW.matcher(line);
            if (inBlock && m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    private static final Pattern ARROW = Pattern.compile("^\\s+→ (\\w+)");
}
