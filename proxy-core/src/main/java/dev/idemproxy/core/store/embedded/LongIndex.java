package dev.idemproxy.core.store.embedded;

import java.util.Arrays;

/**
 * A compact hash index from a name's 64-bit hash to a log position: one {@code long} a slot, open
 * addressing with linear probing, 8 bytes a slot and at most {@value #MAX_LOAD_PERCENT}% full, so
 * about 11 bytes per entry, with no object per entry. A slot holds the top {@value #TAG_BITS} bits
 * of the hash (its <em>tag</em>, whose top bits also give the slot's home, so the table can grow and
 * delete without the names) and a {@value #POS_BITS}-bit position. Several names can share a tag:
 * a lookup walks the slots with the caller's tag and the caller checks each position against the
 * log (the chance that a slot of another name carries the same tag is below one in a hundred at a
 * million entries). The same tag may be inserted more than once (a multimap: the business-id index).
 * Not thread-safe: the store's executor only.
 */
final class LongIndex {
    static final int TAG_BITS = 28;
    static final int POS_BITS = 64 - TAG_BITS;
    static final long POS_MASK = (1L << POS_BITS) - 1;
    private static final int MAX_LOAD_PERCENT = 80;
    private static final int MIN_BITS = 10;

    private long[] slots;
    private int bits;
    private int size;

    LongIndex() {
        bits = MIN_BITS;
        slots = new long[1 << bits];
    }

    /** The tag of a 64-bit hash. */
    static int tag(long hash) {
        return (int) (hash >>> POS_BITS);
    }

    /** A 64-bit hash of {@code s} under {@code seed} (a namespace: record ids, call ids, business ids). */
    static long hash(long seed, String s) {
        long h = seed * 0x9E3779B97F4A7C15L;
        for (int i = 0, n = s.length(); i < n; i++) {
            h = (h ^ s.charAt(i)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    int size() {
        return size;
    }

    /** Bytes the table takes on the heap. */
    long bytes() {
        return (long) slots.length * Long.BYTES;
    }

    private int home(int tag) {
        return tag >>> (TAG_BITS - bits);
    }

    /** The first slot at or after {@code from} (inclusive) whose tag is {@code tag}, before the run of slots ends; -1 when none. */
    private int scan(int tag, int from) {
        int mask = slots.length - 1;
        for (int i = from & mask; ; i = (i + 1) & mask) {
            long s = slots[i];
            if (s == 0) {
                return -1;
            }
            if ((int) (s >>> POS_BITS) == tag) {
                return i;
            }
        }
    }

    /** The first slot holding {@code tag}, or -1. Walk on with {@link #next}. */
    int first(int tag) {
        return scan(tag, home(tag));
    }

    /** The slot after {@code slot} holding {@code tag}, or -1. */
    int next(int tag, int slot) {
        return scan(tag, slot + 1);
    }

    long position(int slot) {
        return slots[slot] & POS_MASK;
    }

    void setPosition(int slot, long position) {
        slots[slot] = (slots[slot] & ~POS_MASK) | check(position);
    }

    /** Adds an entry (another one with the same tag may exist). */
    void insert(int tag, long position) {
        if ((long) (size + 1) * 100 > (long) slots.length * MAX_LOAD_PERCENT) {
            grow();
        }
        put(slots, bits, tag, check(position));
        size++;
    }

    private static void put(long[] table, int bits, int tag, long position) {
        int mask = table.length - 1;
        int i = tag >>> (TAG_BITS - bits);
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = ((long) tag << POS_BITS) | position;
    }

    /** Removes the entry at {@code slot}, moving later entries of its run back (no tombstones). */
    void removeAt(int slot) {
        int mask = slots.length - 1;
        int i = slot;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            long s = slots[j];
            if (s == 0) {
                break;
            }
            int h = home((int) (s >>> POS_BITS));
            // move s back to i unless its home lies cyclically in (i, j]
            boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (!stays) {
                slots[i] = s;
                i = j;
            }
        }
        slots[i] = 0;
        size--;
    }

    /** Calls {@code f} with every slot's position; a {@code false} answer removes that entry. */
    void retainIf(PositionFilter f) {
        long[] old = slots;
        long[] table = new long[old.length];
        int kept = 0;
        for (long s : old) {
            if (s != 0 && f.keep(s & POS_MASK)) {
                put(table, bits, (int) (s >>> POS_BITS), s & POS_MASK);
                kept++;
            }
        }
        slots = table;
        size = kept;
        while (bits > MIN_BITS && (long) size * 100 < (long) (slots.length / 4) * MAX_LOAD_PERCENT) {
            resize(bits - 1);
        }
    }

    interface PositionFilter {
        boolean keep(long position);
    }

    private void grow() {
        if (bits >= TAG_BITS) {
            throw new IllegalStateException("embedded store index is full: " + size + " entries");
        }
        resize(bits + 1);
    }

    private void resize(int newBits) {
        long[] table = new long[1 << newBits];
        for (long s : slots) {
            if (s != 0) {
                put(table, newBits, (int) (s >>> POS_BITS), s & POS_MASK);
            }
        }
        slots = table;
        bits = newBits;
    }

    private static long check(long position) {
        if (position <= 0 || position > POS_MASK) {
            throw new IllegalArgumentException("position " + position);
        }
        return position;
    }

    @Override
    public String toString() {
        return "LongIndex[size=" + size + ", slots=" + slots.length + "]";
    }

    /** For tests: the slots' raw values. */
    long[] raw() {
        return Arrays.copyOf(slots, slots.length);
    }
}
