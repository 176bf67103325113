package dev.idemproxy.core.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened in one run, kept small: a 64-bit digest of every step and every byte that crossed
 * a simulated connection (two runs of a seed must give the same digest), the text of the steps only
 * when asked for (a failing seed replayed verbosely), and the exceptions engine tasks threw. Not
 * thread-safe: one simulation thread.
 */
final class Trace {
    private final boolean verbose;
    private final List<String> lines;
    private final List<String> thrown = new ArrayList<>();
    private long digest = 0xcbf29ce484222325L;
    private long steps;
    private final SimTime time;

    Trace(SimTime time, boolean verbose) {
        this.time = time;
        this.verbose = verbose;
        this.lines = verbose ? new ArrayList<>() : List.of();
    }

    boolean verbose() {
        return verbose;
    }

    /** One step: {@code kind} and two numbers enter the digest; {@code detail} only the text. */
    void step(String kind, long a, long b, String detail) {
        steps++;
        mix(kind.hashCode());
        mix(a);
        mix(b);
        if (verbose) {
            lines.add(String.format("%8d ms  %-14s %d %d %s", time.elapsedMillis(), kind, a, b, detail == null ? "" : detail));
        }
    }

    /** Bytes that crossed a connection ({@code channel} names it). */
    void bytes(long channel, byte[] data) {
        mix(channel);
        for (byte x : data) {
            digest = (digest ^ (x & 0xff)) * 0x100000001b3L;
        }
        if (verbose) {
            String s = new String(data, java.nio.charset.StandardCharsets.ISO_8859_1);
            lines.add(String.format("%8d ms  bytes#%d %s", time.elapsedMillis(), channel,
                    s.length() > 400 ? s.substring(0, 400) + "…" : s).replace("\r\n", "\\r\\n"));
        }
    }

    void note(String text) {
        if (verbose) {
            lines.add(String.format("%8d ms  %s", time.elapsedMillis(), text));
        }
    }

    void thrown(String where, Throwable e) {
        thrown.add(where + ": " + e);
        step("thrown", 0, 0, where + ": " + e);
        if (verbose) {
            java.io.StringWriter w = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(w));
            lines.add(w.toString());
        }
    }

    List<String> thrownByTasks() {
        return thrown;
    }

    private void mix(long v) {
        digest = (digest ^ v) * 0x100000001b3L;
        digest ^= digest >>> 29;
    }

    long digest() {
        return digest;
    }

    long steps() {
        return steps;
    }

    List<String> lines() {
        return lines;
    }
}
