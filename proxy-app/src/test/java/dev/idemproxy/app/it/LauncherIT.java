package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/idemproxy}, the command every doc writes as {@code idemproxy} (CONTRACT §2, issue #43):
 * run as a user runs it, from another folder and through a symbolic link, it finds the clone's jar
 * and JVM profile, lets {@code IDEMPROXY_JAVA_OPTS} override the profile, keeps stdout for what
 * idemproxy prints, says what to do when there is no jar, and execs java so signals reach it.
 */
class LauncherIT {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path LAUNCHER = ROOT.resolve("bin/idemproxy");

    @TempDir
    Path dir;

    /** The launcher's environment: this JVM's java, none of the launcher's variables unless a test sets them. */
    static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("JAVA_HOME", System.getProperty("java.home"));
        for (String name : List.of("IDEMPROXY_JAR", "IDEMPROXY_JVM_OPTIONS", "IDEMPROXY_JAVA_OPTS", "IDEMPROXY_LOG_LEVEL")) {
            env.put(name, null);
        }
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    static ChildProxy.Finished run(Path launcher, Path workDir, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        return ChildProxy.command(command, workDir, env).finish();
    }

    @Test
    void aLinkToItOnAnotherFolderRunsTheClonesJar() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("on-path"));
        Files.createSymbolicLink(bin.resolve("idemproxy"), LAUNCHER);
        Path chained = Files.createSymbolicLink(dir.resolve("idemproxy-again"), Path.of("on-path/idemproxy"));

        ChildProxy.Finished version = run(chained, Files.createDirectories(dir.resolve("elsewhere")), env(), "--version");

        assertThat(version.exitCode()).as(version.toString()).isZero();
        assertThat(version.stdout()).first().asString().startsWith("idemproxy ");
        assertThat(version.stderr()).isEmpty();
    }

    /**
     * The arguments java gets, in order, as a stand-in {@code JAVA_HOME/bin/java} that prints them:
     * the profile as an argument file, then {@code IDEMPROXY_JAVA_OPTS} split at spaces and not
     * expanded, then {@code -jar} and the jar, then the arguments unchanged.
     */
    @Test
    void javaGetsTheProfileThenTheUsersOptionsThenTheJarAndTheArgumentsUnchanged() throws Exception {
        Path javaHome = fakeJava();

        ChildProxy.Finished r = run(LAUNCHER, dir, env("JAVA_HOME", javaHome.toString(),
                "IDEMPROXY_JAVA_OPTS", "-Xmx64m  -Dtag=*"), "validate", "--config", "a b.yaml", "*");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout()).containsExactly("@" + ROOT.resolve("config/jvm.options"), "-Xmx64m", "-Dtag=*", "-jar",
                ROOT.resolve("proxy-app/target/idemproxy.jar").toString(), "validate", "--config", "a b.yaml", "*");
    }

    @Test
    void idemproxyJvmOptionsNamesAnotherProfileOrNone() throws Exception {
        Path javaHome = fakeJava();
        Path small = Files.writeString(dir.resolve("small.options"), "-Xmx48m\n");

        ChildProxy.Finished other = run(LAUNCHER, dir, env("JAVA_HOME", javaHome.toString(), "IDEMPROXY_JVM_OPTIONS", small.toString()),
                "--version");
        ChildProxy.Finished none = run(LAUNCHER, dir, env("JAVA_HOME", javaHome.toString(), "IDEMPROXY_JVM_OPTIONS", ""), "--version");
        ChildProxy.Finished missing = run(LAUNCHER, dir, env("JAVA_HOME", javaHome.toString(),
                "IDEMPROXY_JVM_OPTIONS", dir.resolve("nope").toString()), "--version");

        assertThat(other.stdout()).first().isEqualTo("@" + small);
        assertThat(none.stdout()).first().isEqualTo("-jar");
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.stderr()).containsExactly("idemproxy: IDEMPROXY_JVM_OPTIONS=" + dir.resolve("nope") + ": no such file");
        assertThat(missing.stdout()).isEmpty();
    }

    /** With the real JVM: the profile applies, and an option of IDEMPROXY_JAVA_OPTS wins over the profile's. */
    @Test
    void theProfileAppliesAndIdemproxyJavaOptsOverridesIt() throws Exception {
        ChildProxy.Finished r = run(LAUNCHER, dir, env("IDEMPROXY_JAVA_OPTS", "-XX:MaxRAMPercentage=60 -XX:+PrintFlagsFinal"),
                "--version");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(flag(r, "UseSerialGC")).as("from config/jvm.options").isEqualTo("true");
        assertThat(flag(r, "SurvivorRatio")).as("from config/jvm.options").isEqualTo("3");
        assertThat(flag(r, "MaxRAMPercentage")).as("IDEMPROXY_JAVA_OPTS, after the profile's 40").isEqualTo("60.000000");
    }

    @Test
    void withoutAJarItSaysToBuildOneAndPrintsNothingOnStdout() throws Exception {
        assumeFalse(Files.exists(Path.of("/app/idemproxy.jar")), "the image's jar is there, which the launcher would use");
        Path alone = Files.copy(LAUNCHER, dir.resolve("idemproxy"));

        ChildProxy.Finished r = run(alone, dir, env(), "--version");

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr()).singleElement().asString()
                .startsWith("idemproxy: no idemproxy.jar (looked beside " + dir.toRealPath() + ", in "
                        + dir.toRealPath().getParent() + "/proxy-app/target and /app)")
                .contains("run mvn -q package -DskipTests first");
    }

    @Test
    void aJavaHomeWithoutJavaIsNamed() throws Exception {
        ChildProxy.Finished r = run(LAUNCHER, dir, env("JAVA_HOME", dir.toString()), "--version");

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).containsExactly("idemproxy: JAVA_HOME=" + dir + " has no bin/java (expected: a Java 17 or later runtime)");
    }

    /** stdout carries the PEM alone, so {@code idemproxy ca cert … > ca.pem} captures it; what the CA verb says goes to stderr. */
    @Test
    void caCertThroughTheLauncherPrintsThePemAloneOnStdout() throws Exception {
        Path config = Files.writeString(dir.resolve("idemproxy.yaml"), "forwardProxy: { ca: { cert: ca/ca.crt, key: ca/ca.key } }\n");

        ChildProxy.Finished r = run(LAUNCHER, ROOT, env(), "ca", "cert", "--config", config.toString());

        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(String.join("\n", r.stdout()) + "\n").isEqualTo(Files.readString(dir.resolve("ca/ca.crt")));
        assertThat(r.stderr()).singleElement().asString().startsWith("idemproxy ca: created a new CA: " + dir.resolve("ca/ca.crt"));
    }

    /** The launcher execs java: the process started is the JVM, so SIGTERM reaches it and it drains and exits 0. */
    @Test
    void theLauncherBecomesTheJvmSoSigtermDrainsIt() throws Exception {
        Path config = Files.writeString(dir.resolve("idemproxy.yaml"), "listen: 127.0.0.1:0\nadmin: { listen: 127.0.0.1:0 }\n"
                + "store: { type: memory }\n");
        try (ChildProxy proxy = ChildProxy.command(List.of(LAUNCHER.toString(), "run", "--config", config.toString()), dir, env())) {
            proxy.awaitLine("admin listening on");
            Optional<String> command = ProcessHandle.of(proxy.pid()).flatMap(p -> p.info().command());
            assertThat(command).as("the launcher's pid runs java").hasValueSatisfying(c -> assertThat(c).endsWith("/java"));

            proxy.signal("TERM");

            assertThat(proxy.waitFor(ChildProxy.DEFAULT_WAIT)).as(proxy.transcript()).isZero();
            proxy.awaitLine("drain ended: finished=0 cut=0");
        }
    }

    /** A JAVA_HOME whose bin/java prints its arguments, one a line. */
    private Path fakeJava() throws Exception {
        Path home = dir.resolve("fake-java-home");
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    /** A flag's value in {@code -XX:+PrintFlagsFinal}'s table. */
    private static String flag(ChildProxy.Finished r, String name) {
        return r.stdout().stream().map(String::trim).filter(l -> l.matches("\\S+\\s+" + name + "\\s+=.*"))
                .map(l -> l.replaceAll("^\\S+\\s+" + name + "\\s+=\\s+(\\S+).*$", "$1")).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in the flags:\n" + r));
    }
}
