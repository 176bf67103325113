package dev.idemproxy.app.cli;

import dev.idemproxy.app.demo.DemoUpstream;
import dev.idemproxy.app.demo.FaultPlan;
import dev.idemproxy.app.wiring.Signals;
import dev.idemproxy.core.HostPort;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy demo serve}: the demo's tickets service alone, without faults, for trying the
 * proxy by hand (README "Try it"; the example config's upstream). {@code POST /tickets} creates
 * a ticket with a new id every time (it ignores {@code Idempotency-Key}, as most services do),
 * {@code GET /tickets} counts them. Prints its URL and a line per ticket created, and serves
 * until SIGTERM or Ctrl-C (exit 0). Exit 1 when it cannot listen, 2 for a bad option.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Serve the demo's tickets service (not idempotent, no faults) until Ctrl-C, to try idemproxy by hand:"
                + " POST /tickets creates a ticket, GET /tickets counts them."},
        footer = {"", "Example (the upstream of config/idemproxy.yaml):",
                "  idemproxy demo serve --listen 127.0.0.1:8081",
                "", "Exit codes: 0 stopped, 1 cannot listen, 2 bad options."})
public final class DemoServeCommand implements Callable<Integer> {
    static final String DEFAULT_LISTEN = "127.0.0.1:8081";

    @Spec
    CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = DEFAULT_LISTEN,
            description = "Where to listen (default: ${DEFAULT-VALUE}); port 0 picks a free one.")
    String listen;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        HostPort address;
        try {
            address = HostPort.parse(listen);
        } catch (IllegalArgumentException e) {
            err.println("idemproxy demo serve: --listen: " + e.getMessage());
            err.flush();
            return IdemproxyCommand.USAGE;
        }
        DemoUpstream service;
        try {
            service = DemoUpstream.start(FaultPlan.none(), Duration.ZERO, address.toSocketAddress(), line -> {
                out.println(line);
                out.flush();
            });
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {  // the bind's BindException comes through Netty's sync() unchecked
            err.println("idemproxy demo serve: cannot listen on " + address + ": " + e.getMessage());
            err.flush();
            return IdemproxyCommand.RUNTIME_FAILURE;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Signals.installStop("the tickets service", stop::countDown);
        out.println("demo tickets service listening on " + service.uri() + ": POST /tickets creates a ticket,"
                + " GET /tickets counts them (Ctrl-C stops it)");
        out.flush();
        try {
            stop.await();
        } finally {
            service.close();
            out.println("demo tickets service stopped: " + service.ticketsCreated() + " tickets created");
            out.flush();
        }
        return IdemproxyCommand.OK;
    }
}
