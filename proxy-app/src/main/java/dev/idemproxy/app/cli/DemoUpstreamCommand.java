package dev.idemproxy.app.cli;

import dev.idemproxy.app.config.DurationParser;
import dev.idemproxy.app.demo.DemoUpstream;
import dev.idemproxy.app.demo.Fault;
import dev.idemproxy.app.demo.FaultPlan;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy demo-upstream} (hidden): the demo's flaky tickets service alone, as a process,
 * for {@code bench/soak.sh}. Prints its URL, then serves until SIGTERM, when it prints what it
 * served. Not part of the public CLI.
 */
@Command(name = "demo-upstream", hidden = true, mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Run the demo's flaky tickets service alone until SIGTERM (for bench/soak.sh).")
public final class DemoUpstreamCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "Seed of the fault plan (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--late-by", paramLabel = "DURATION", defaultValue = "600ms",
            description = "How late the late answers come (default: ${DEFAULT-VALUE}).")
    String lateBy;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        Duration late;
        try {
            late = DurationParser.parse(lateBy);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("idemproxy demo-upstream: --late-by: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return IdemproxyCommand.USAGE;
        }
        DemoUpstream upstream = DemoUpstream.start(new FaultPlan(seed), late);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("demo upstream served " + upstream.requests() + " requests, " + upstream.proxyRetries()
                    + " with X-Attempt above 1");
            for (Map.Entry<Fault, Integer> e : upstream.faultsServed().entrySet()) {
                out.println("  " + e.getKey().description() + ": " + e.getValue());
            }
            out.flush();
            upstream.close();
            stopped.countDown();
        }, "demo-upstream-stop"));
        out.println("demo upstream listening on " + upstream.uri());
        out.flush();
        stopped.await();
        return IdemproxyCommand.OK;
    }
}
