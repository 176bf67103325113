package dev.idemproxy.core.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Programs a test drives from outside the JVM (curl, the system Python's httpx and requests,
 * Node): a probe command says whether they are there, and when one fails and this runs as root
 * on a Debian machine, Debian's packages are installed once per JVM, as {@link RedisServerFixture}
 * does for {@code redis-server}, so the README's test command needs nothing installed by hand.
 * Otherwise the failure says what to install. Thread-safe.
 */
public final class SystemPackages {
    private static final Map<String, Boolean> INSTALLED = new HashMap<>();

    private SystemPackages() {}

    /**
     * Makes sure {@code probe} runs with exit code 0, installing {@code packages} with
     * {@code apt-get} first when it does not.
     *
     * @throws IllegalStateException when the probe still fails, naming the packages to install
     */
    public static synchronized void require(List<String> probe, String... packages) {
        if (succeeds(probe)) {
            return;
        }
        String key = String.join(" ", packages);
        if (!INSTALLED.containsKey(key)) {
            INSTALLED.put(key, install(packages));
        }
        if (!succeeds(probe)) {
            throw new IllegalStateException(String.join(" ", probe) + " fails: run `apt-get install -y " + key
                    + "` (the tests do this themselves when they run as root on Debian)");
        }
    }

    private static boolean install(String... packages) {
        if (!"root".equals(System.getProperty("user.name")) || !new java.io.File("/usr/bin/apt-get").canExecute()) {
            return false;
        }
        List<String> cmd = new ArrayList<>(List.of("bash", "-c",
                "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq " + String.join(" ", packages)));
        try {
            Process p = new ProcessBuilder(cmd).inheritIO().start();
            return p.waitFor(10, TimeUnit.MINUTES) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether {@code command} runs and exits 0 within a minute (its output discarded). */
    public static boolean succeeds(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
