package dev.idemproxy.core.store.embedded;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * {@link LogFiles} in memory that keeps every change as an event, so that a test can rebuild the
 * files as they stood after any prefix of the events, with the next append cut after any byte (a
 * process crash), and optionally with every segment's bytes after its last force dropped (a power
 * loss). Single-threaded, as the store's executor uses it.
 */
final class MemoryLogFiles implements LogFiles {
    sealed interface Event permits Append, Delete, Truncate, Force {
    }

    record Append(long id, byte[] bytes) implements Event {
    }

    record Delete(long id) implements Event {
    }

    record Truncate(long id, long size) implements Event {
    }

    record Force(long id) implements Event {
    }

    private static final class File {
        byte[] data = new byte[0];
        int size;
        int forced;
    }

    final List<Event> events = new ArrayList<>();
    private final TreeMap<Long, File> files = new TreeMap<>();

    /** The files after {@code events[0, upTo)} and the first {@code partial} bytes of {@code events[upTo]} (an append). */
    static MemoryLogFiles crashed(List<Event> events, int upTo, int partial, boolean powerLoss) {
        MemoryLogFiles m = new MemoryLogFiles();
        for (int i = 0; i < upTo; i++) {
            m.apply(events.get(i));
        }
        if (partial > 0 && events.get(upTo) instanceof Append a) {
            m.apply(new Append(a.id(), Arrays.copyOf(a.bytes(), partial)));
        }
        if (powerLoss) {
            m.files.values().forEach(f -> f.size = f.forced);
        }
        m.events.clear();
        return m;
    }

    private void apply(Event e) {
        if (e instanceof Append a) {
            File f = files.computeIfAbsent(a.id(), k -> new File());
            if (f.data.length < f.size + a.bytes().length) {
                f.data = Arrays.copyOf(f.data, Math.max(f.data.length * 2, f.size + a.bytes().length));
            }
            System.arraycopy(a.bytes(), 0, f.data, f.size, a.bytes().length);
            f.size += a.bytes().length;
        } else if (e instanceof Delete d) {
            files.remove(d.id());
        } else if (e instanceof Truncate t) {
            File f = files.get(t.id());
            f.size = (int) t.size();
            f.forced = Math.min(f.forced, f.size);
        } else if (e instanceof Force fo) {
            File f = files.get(fo.id());
            if (f != null) {
                f.forced = f.size;
            }
        }
    }

    private void record(Event e) {
        events.add(e);
        apply(e);
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
                record(new Append(id, b));
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
                record(new Force(id));
            }

            @Override
            public void truncate(long size) {
                record(new Truncate(id, size));
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void delete(long id) {
        record(new Delete(id));
    }

    @Override
    public void syncDirectory() {
    }

    @Override
    public void close() {
    }
}
