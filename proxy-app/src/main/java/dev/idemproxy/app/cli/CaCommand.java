package dev.idemproxy.app.cli;

import dev.idemproxy.app.config.ConfigProblem;
import dev.idemproxy.app.config.InvalidConfigException;
import dev.idemproxy.app.config.YamlConfigLoader;
import dev.idemproxy.core.ProxyConfig;
import dev.idemproxy.core.forward.ForwardProxyPolicy;
import dev.idemproxy.core.forward.LocalCa;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code idemproxy ca cert|bundle [--config FILE]} (docs/operations.md, docs/https-proxy.md): prints the forward proxy's
 * CA certificate, or the system's trust roots followed by it, generating the CA first, as a start
 * would, when its files are absent (and saying so on stderr, with the files' absolute paths).
 * Never prints the CA's key. Exit codes: 0 printed, 1 the CA
 * could not be read or written, 2 no usable config or no {@code forwardProxy} in it.
 */
@Command(name = "ca", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Print the forward proxy's CA certificate (cert) or the trust roots with it (bundle).",
        subcommands = {CaCommand.Cert.class, CaCommand.Bundle.class},
        footer = {"", "Examples:",
                "  idemproxy ca cert --config idemproxy.yaml > idemproxy-ca.pem      # NODE_EXTRA_CA_CERTS, curl --cacert",
                "  idemproxy ca bundle --config idemproxy.yaml > ca-bundle.pem       # SSL_CERT_FILE, REQUESTS_CA_BUNDLE",
                "", "Exit codes: 0 ok, 1 the CA cannot be read or written, 2 no usable config or no forwardProxy in it."})
final class CaCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Config file (default: " + RunCommand.Options.DEFAULT_CONFIG + ").")
    Path config;

    @ParentCommand
    IdemproxyCommand parent;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing verb (expected: cert or bundle)");
    }

    /** The file given after the verb, else to {@code ca}, else before it, else the default. */
    Path configFile(Path own) {
        if (own != null) {
            return own;
        }
        if (config != null) {
            return config;
        }
        return parent != null && parent.runOptions.config() != null ? parent.runOptions.config()
                : Path.of(RunCommand.Options.DEFAULT_CONFIG);
    }

    /** What both verbs share: find the CA as the config places it, and print. */
    abstract static class Verb implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @ParentCommand
        CaCommand ca;

        @Option(names = {"-c", "--config"}, paramLabel = "FILE",
                description = "Config file (default: " + RunCommand.Options.DEFAULT_CONFIG + ").")
        Path config;

        /**
         * Prints what the verb prints for the CA whose certificate is {@code caPem}. (A PEM string,
         * not the CA: picocli reads these classes' signatures on every run, and the CA's classes
         * load only when a verb runs.)
         */
        abstract void print(PrintWriter out, String caPem) throws IOException;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Path file = ca.configFile(config);
            ProxyConfig loaded;
            try {
                loaded = new YamlConfigLoader().load(file);
            } catch (InvalidConfigException e) {
                for (ConfigProblem p : e.problems()) {
                    err.println(p);
                }
                err.flush();
                return IdemproxyCommand.USAGE;
            }
            ForwardProxyPolicy policy = loaded.forwardProxy();
            if (policy == null) {
                err.println(file + ": no forwardProxy section (expected: forwardProxy, whose CA this prints; "
                        + "see docs/https-proxy.md)");
                err.flush();
                return IdemproxyCommand.USAGE;
            }
            try {
                boolean absent = !Files.exists(policy.caCert()) && !Files.exists(policy.caKey());
                String pem = LocalCa.loadOrCreate(policy.caCert(), policy.caKey(), Clock.systemUTC(), new SecureRandom(),
                        loaded.store().embeddedPath()).certificatePem();
                if (absent) {
                    err.println("idemproxy ca: created a new CA: " + policy.caCert().toAbsolutePath()
                            + ", its key " + policy.caKey().toAbsolutePath() + " (mode 0600); a proxy run with "
                            + file + " uses it");
                    err.flush();
                }
                print(out, pem);
                out.flush();
                return IdemproxyCommand.OK;
            } catch (IllegalArgumentException | IOException e) {
                err.println("idemproxy: " + e.getMessage());
                err.flush();
                return IdemproxyCommand.RUNTIME_FAILURE;
            }
        }
    }

    @Command(name = "cert", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Print the CA certificate (PEM): for NODE_EXTRA_CA_CERTS, curl --cacert, a Java trust store.")
    static final class Cert extends Verb {
        @Override
        void print(PrintWriter out, String caPem) {
            out.print(caPem);
        }
    }

    @Command(name = "bundle", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Print the system's trust roots followed by the CA (PEM): for SSL_CERT_FILE, REQUESTS_CA_BUNDLE.")
    static final class Bundle extends Verb {
        @Override
        void print(PrintWriter out, String caPem) throws IOException {
            String roots = TrustRoots.pem();
            out.print(roots);
            if (!roots.isEmpty() && !roots.endsWith("\n")) {
                out.println();
            }
            out.print(caPem);
        }
    }
}
