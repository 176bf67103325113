package dev.idemproxy.core.store.embedded;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.mvstore.Chunk;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;

/**
 * {@link StoreWriteCost}'s count of what MVStore wrote: each chunk found in the store's chunk
 * table while it lives, its table of contents read, its pages' bytes added to their maps, and the
 * file's write counter (read by reflection: MVStore keeps them private).
 */
final class ChunkCensus {
    private final MVStore mv;
    private final FileStore<?> fileStore;
    private final Set<Integer> chunksSeen = new HashSet<>();
    /** Map name to {bytes, pages, leaf bytes, leaves}, this round. */
    final Map<String, long[]> bytesByMap = new TreeMap<>();
    long chunkBytes;
    long chunkCount;
    /** The lowest and highest chunk id seen this round: ids are given in sequence, so a gap would be a chunk missed. */
    int minId;
    int maxId;

    ChunkCensus(MVStore mv) {
        this.mv = mv;
        this.fileStore = mv.getFileStore();
    }

    /** Starts a round: what the chunks seen so far wrote is forgotten (they stay seen). */
    synchronized void reset() {
        chunkBytes = 0;
        chunkCount = 0;
        minId = Integer.MAX_VALUE;
        maxId = 0;
        bytesByMap.clear();
    }

    /**
     * Reads the table of contents of every chunk not seen yet (when {@code count}: adds its pages'
     * bytes to their maps). A chunk stays in MVStore's chunk table at least the retention time
     * after it was written, so a poll every 20 ms sees every one.
     */
    synchronized void poll(boolean count) {
        try {
            Map<Integer, ? extends Chunk<?>> chunks = chunkTable();
            for (Chunk<?> c : List.copyOf(chunks.values())) {
                if (c.block == Long.MAX_VALUE || c.len == 0 || !chunksSeen.add(c.id)) {
                    continue;  // not yet on the file, or seen
                }
                if (count) {
                    countChunk(c);
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private void countChunk(Chunk<?> c) throws ReflectiveOperationException {
        long[] toc = (long[]) tocMethod().invoke(fileStore, c);
        int tocPos = tocPos().getInt(c);
        Long[] order = new Long[toc.length];
        for (int i = 0; i < toc.length; i++) {
            order[i] = toc[i];
        }
        Arrays.sort(order, Comparator.comparingInt(DataUtils::getPageOffset));
        for (int i = 0; i < order.length; i++) {
            long e = order[i];
            int end = i + 1 < order.length ? DataUtils.getPageOffset(order[i + 1]) : tocPos;
            int len = end - DataUtils.getPageOffset(e);
            int mapId = DataUtils.getPageMapId(e);
            String name = mv.getMapName(mapId);
            long[] v = bytesByMap.computeIfAbsent(name == null ? "(meta/layout " + mapId + ")" : name, k -> new long[4]);
            v[0] += len;
            v[1]++;
            if (DataUtils.getPageType(e) == DataUtils.PAGE_TYPE_LEAF) {
                v[2] += len;
                v[3]++;
            }
        }
        chunkBytes += (long) c.len * 4096;  // MVStore's block size
        minId = Math.min(minId, c.id);
        maxId = Math.max(maxId, c.id);
        chunkCount++;
    }

    @SuppressWarnings("unchecked")
    private Map<Integer, ? extends Chunk<?>> chunkTable() throws ReflectiveOperationException {
        Method m = FileStore.class.getDeclaredMethod("getChunks");
        m.setAccessible(true);
        return (Map<Integer, ? extends Chunk<?>>) m.invoke(fileStore);
    }

    private static Method tocMethod() throws ReflectiveOperationException {
        Method m = FileStore.class.getDeclaredMethod("getToC", Chunk.class);
        m.setAccessible(true);
        return m;
    }

    private static Field tocPos() throws ReflectiveOperationException {
        Field f = Chunk.class.getDeclaredField("tocPos");
        f.setAccessible(true);
        return f;
    }

    long writeBytes() {
        try {
            Field f = FileStore.class.getDeclaredField("writeBytes");
            f.setAccessible(true);
            return ((AtomicLong) f.get(fileStore)).get();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
