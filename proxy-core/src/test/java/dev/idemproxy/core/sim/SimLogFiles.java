package dev.idemproxy.core.sim;

import dev.idemproxy.core.store.embedded.LogFiles;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The embedded store's files in memory for one simulated process: each segment's bytes and how
 * many of them were last forced. Every append and force enters the run's digest (the same seed
 * writes the same bytes). A crash can be armed to happen in the next write ({@link #arm}): that
 * append stores a drawn part of its bytes, or that force does not happen, and the process dies
 * there ({@link Died} leaves the store's task). {@link #afterCrash} gives the files a restarted
 * process finds: everything appended (the process died, the operating system kept its writes), or
 * after a power loss each segment's forced bytes and perhaps a torn part of the rest. Directory
 * changes (a segment created or deleted) are durable at once: the store syncs the directory right
 * after each under {@code interval} and {@code always}, the only modes a power loss is drawn for.
 * Not thread-safe: the simulation's one thread.
 */
final class SimLogFiles implements LogFiles {
    /** How the process that wrote the files ended. */
    enum Crash { PROCESS, POWER }

    /** The process died in a write: thrown out of the store's task, caught by its executor. */
    static final class Died extends Error {
        Died() {
            super("simulated: the process died in a write", null, false, false);
        }
    }

    private static final class File {
        byte[] data = new byte[256];
        int size;
        int forced;
    }

    private final TreeMap<Long, File> files = new TreeMap<>();
    private final Trace trace;
    private SplittableRandom armed;
    private boolean dead;

    SimLogFiles(Trace trace) {
        this.trace = trace;
    }

    /** The next append or force kills the process (drawing from {@code r} how much of an append lands). */
    void arm(SplittableRandom r) {
        armed = r;
    }

    boolean dead() {
        return dead;
    }

    /** The end of the log now: the last segment's id and length, as {@link #durable} takes it. */
    long mark() {
        if (files.isEmpty()) {
            return 0;
        }
        return (files.lastKey() << 32) | files.lastEntry().getValue().size;
    }

    /** Whether everything up to {@code mark} would survive a power loss now (a deleted segment's live parts were forced on first). */
    boolean durable(long mark) {
        File f = files.get(mark >>> 32);
        return f == null || f.forced >= (int) mark;
    }

    /** The files a process restarted after {@code crash} finds; {@code r} draws what of the unforced bytes a power loss left. */
    SimLogFiles afterCrash(Crash crash, SplittableRandom r) {
        SimLogFiles after = new SimLogFiles(trace);
        files.forEach((id, f) -> {
            int keep = f.size;
            if (crash == Crash.POWER) {
                keep = f.forced + (f.size > f.forced && r.nextInt(3) == 0 ? r.nextInt(f.size - f.forced + 1) : 0);
            }
            File g = new File();
            g.data = Arrays.copyOf(f.data, Math.max(keep, 1));
            g.size = keep;
            g.forced = keep;
            after.files.put(id, g);
        });
        return after;
    }

    /** Bytes in all segments (for the trace). */
    long bytes() {
        long n = 0;
        for (File f : files.values()) {
            n += f.size;
        }
        return n;
    }

    @Override
    public List<Long> list() {
        return new ArrayList<>(files.keySet());
    }

    @Override
    public Segment open(long id) {
        files.computeIfAbsent(id, k -> new File());
        return new Segment() {
            @Override
            public long size() {
                File f = files.get(id);
                return f == null ? 0 : f.size;
            }

            @Override
            public void append(ByteBuffer src) {
                byte[] b = new byte[src.remaining()];
                src.get(b);
                int n = b.length;
                boolean dies = armed != null;
                if (dies) {
                    n = armed.nextInt(b.length + 1);
                }
                File f = files.get(id);
                if (f.data.length < f.size + n) {
                    f.data = Arrays.copyOf(f.data, Math.max(f.data.length * 2, f.size + n));
                }
                System.arraycopy(b, 0, f.data, f.size, n);
                f.size += n;
                trace.step("append", id, Arrays.hashCode(b), n + " bytes to segment " + id);
                if (dies) {
                    die();
                }
            }

            @Override
            public int read(long position, ByteBuffer dst) {
                File f = files.get(id);
                int n = (int) Math.max(0, Math.min(dst.remaining(), f.size - position));
                dst.put(f.data, (int) position, n);
                return n;
            }

            @Override
            public void force() {
                if (armed != null) {
                    die();
                }
                File f = files.get(id);
                if (f != null) {
                    f.forced = f.size;
                }
                trace.step("force", id, f == null ? 0 : f.size, null);
            }

            @Override
            public void truncate(long size) {
                File f = files.get(id);
                trace.step("truncate", id, size, "segment " + id + " from " + f.size + " to " + size + " bytes");
                f.size = (int) size;
                f.forced = Math.min(f.forced, f.size);
            }

            @Override
            public void close() {
            }
        };
    }

    private void die() {
        armed = null;
        dead = true;
        trace.step("died", 0, 0, "in a write");
        throw new Died();
    }

    @Override
    public void delete(long id) {
        files.remove(id);
        trace.step("deleteSegment", id, 0, null);
    }

    @Override
    public void syncDirectory() {
    }

    @Override
    public void close() {
    }
}
