package dev.idemproxy.core;

import dev.idemproxy.core.pipeline.ServerPolicy;
import dev.idemproxy.core.util.Checks;

import static dev.idemproxy.core.util.Checks.requireArgument;
import static java.util.Objects.requireNonNull;

import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.retry.RetryBudgetPolicy;
import dev.idemproxy.core.retry.TaskPolicy;
import dev.idemproxy.core.route.Route;
import dev.idemproxy.core.secret.Redactor;
import dev.idemproxy.core.store.StorePolicy;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The whole effective configuration: the root of the immutable config records that the app
 * maps YAML onto. This class is immutable.
 *
 * @param forwardProxy the forward proxy's settings, or null when the config has none (CONNECT: 405)
 * @param telemetry    what is exported about calls (traces), or null when the config has none (nothing is)
 */
public record ProxyConfig(
        HostPort listen,
        Duration shutdownGrace,
        AdminPolicy admin,
        ServerPolicy server,
        StorePolicy store,
        TaskPolicy tasks,
        RetryBudgetPolicy retryBudget,
        List<String> secretHeaders,
        List<String> secretQueryParams,
        List<Route> routes,
        ForwardProxyPolicy forwardProxy,
        TelemetryPolicy telemetry) {

    public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 8080);
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(20);

    public ProxyConfig {
        requireNonNull(listen, "listen");
        Checks.nonNegative(shutdownGrace, "shutdown.grace");
        requireNonNull(admin, "admin");
        requireNonNull(server, "server");
        requireNonNull(store, "store");
        requireNonNull(tasks, "tasks");
        requireNonNull(retryBudget, "retryBudget");
        secretHeaders = List.copyOf(requireNonNull(secretHeaders, "secretHeaders"));
        secretQueryParams = List.copyOf(requireNonNull(secretQueryParams, "secretQueryParams"));
        routes = List.copyOf(requireNonNull(routes, "routes"));
        Set<String> names = new HashSet<>();
        for (Route r : routes) {
            requireArgument(names.add(r.name()), "route name '" + r.name() + "' is used twice (expected: unique names)");
        }
    }

    /** A config without {@code telemetry}. */
    public ProxyConfig(HostPort listen, Duration shutdownGrace, AdminPolicy admin, ServerPolicy server, StorePolicy store,
            TaskPolicy tasks, RetryBudgetPolicy retryBudget, List<String> secretHeaders, List<String> secretQueryParams,
            List<Route> routes, ForwardProxyPolicy forwardProxy) {
        this(listen, shutdownGrace, admin, server, store, tasks, retryBudget, secretHeaders, secretQueryParams, routes,
                forwardProxy, null);
    }

    /** A config without {@code secretQueryParams} of its own (only the built-in names are secret) nor {@code forwardProxy}. */
    public ProxyConfig(HostPort listen, Duration shutdownGrace, AdminPolicy admin, ServerPolicy server, StorePolicy store,
            TaskPolicy tasks, RetryBudgetPolicy retryBudget, List<String> secretHeaders, List<Route> routes) {
        this(listen, shutdownGrace, admin, server, store, tasks, retryBudget, secretHeaders, List.of(), routes, null);
    }

    /** A config without {@code forwardProxy}. */
    public ProxyConfig(HostPort listen, Duration shutdownGrace, AdminPolicy admin, ServerPolicy server, StorePolicy store,
            TaskPolicy tasks, RetryBudgetPolicy retryBudget, List<String> secretHeaders, List<String> secretQueryParams,
            List<Route> routes) {
        this(listen, shutdownGrace, admin, server, store, tasks, retryBudget, secretHeaders, secretQueryParams, routes, null);
    }

    /** Defaults everywhere and no routes: what {@code run} uses when there is no config file. */
    public static ProxyConfig empty() {
        return new ProxyConfig(DEFAULT_LISTEN, DEFAULT_GRACE, AdminPolicy.DEFAULT, ServerPolicy.DEFAULT, StorePolicy.DEFAULT,
                TaskPolicy.DEFAULT, RetryBudgetPolicy.DEFAULT, List.of(), List.of(), List.of());
    }

    /** What is redacted wherever this config's requests, URLs and values are shown . */
    public Redactor redactor() {
        return Redactor.of(secretHeaders, secretQueryParams);
    }

    public ProxyConfig withRoutes(List<Route> newRoutes) {
        return new ProxyConfig(listen, shutdownGrace, admin, server, store, tasks, retryBudget, secretHeaders, secretQueryParams,
                newRoutes, forwardProxy, telemetry);
    }

    public ProxyConfig withListen(HostPort newListen, AdminPolicy newAdmin) {
        return new ProxyConfig(newListen, shutdownGrace, newAdmin, server, store, tasks, retryBudget, secretHeaders,
                secretQueryParams, routes, forwardProxy, telemetry);
    }
}
