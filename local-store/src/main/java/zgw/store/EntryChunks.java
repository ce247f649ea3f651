// The ordered set of an index's entries (key, position): sorted chunks of at most CHUNK entries, each chunk an array of
// keys beside an array of positions, the chunks themselves in order. A TreeSet of entry objects spends a node of 40
// bytes and an entry of 24 on each (with a million documents and 35 indexes: 2.2 GB); here an entry is a slot of 4
// bytes for its key and 4 for its position (with the room chunks keep, 10 to 16), and a walk reads neighbours from
// one array. A lookup is a binary search over the chunks' last entries, then one within the chunk; an insert moves at
// most a chunk's entries, and a full chunk splits in two (at the end of the set it starts a new one instead, so entries
// that arrive in order, such as creation times, fill their chunks). Entries equal in key go by position. A walk hands
// out Entry objects made as it goes; it fails fast on a change, as TreeSet's iterators do.

package zgw.store;

import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

final class EntryChunks {
    static final int CHUNK = 128;

    /** The order of keys (the index's fields and directions); equal keys go by position. */
    private final Comparator<Object[]> order;
    private Object[][][] keys = new Object[4][][];
    private int[][] positions = new int[4][];
    private int[] sizes = new int[4];
    /** Chunks in use, entries in all. */
    private int count;
    private int size;
    private int changes;

    EntryChunks(Comparator<Object[]> order) {
        this.order = order;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        keys = new Object[4][][];
        positions = new int[4][];
        sizes = new int[4];
        count = 0;
        size = 0;
        changes++;
    }

    /** Replaces the content by `sorted` (in this set's order, no two equal), in full chunks. */
    void load(OrderedIndex.Entry[] sorted) {
        int n = (sorted.length + CHUNK - 1) / CHUNK;
        int room = Math.max(4, n);
        keys = new Object[room][][];
        positions = new int[room][];
        sizes = new int[room];
        for (int c = 0; c < n; c++) {
            int from = c * CHUNK, to = Math.min(sorted.length, from + CHUNK);
            Object[][] k = new Object[CHUNK][];
            int[] p = new int[CHUNK];
            for (int i = from; i < to; i++) {
                k[i - from] = sorted[i].key;
                p[i - from] = sorted[i].position;
            }
            keys[c] = k;
            positions[c] = p;
            sizes[c] = to - from;
        }
        count = n;
        size = sorted.length;
        changes++;
    }

    /** Adds the entry unless an equal one is held; true when added. */
    boolean add(Object[] key, int position) {
        if (count == 0) {
            insertChunk(0, key, position);
            return true;
        }
        int c = chunkFor(key, position);
        if (c == count) { // after every entry: at the end of the last chunk
            c = count - 1;
            if (sizes[c] == CHUNK) {
                insertChunk(count, key, position);
            } else {
                put(c, sizes[c], key, position);
            }
            return true;
        }
        int i = search(c, key, position);
        if (i >= 0) {
            return false;
        }
        i = -i - 1;
        if (sizes[c] == CHUNK) { // split in halves, then insert into the half it falls in
            split(c);
            if (i > sizes[c]) {
                i -= sizes[c];
                c++;
            }
        }
        put(c, i, key, position);
        return true;
    }

    /** Removes the entry equal to (key, position); true when there was one. */
    boolean remove(Object[] key, int position) {
        int c = chunkFor(key, position);
        if (c == count) {
            return false;
        }
        int i = search(c, key, position);
        if (i < 0) {
            return false;
        }
        int n = sizes[c];
        System.arraycopy(keys[c], i + 1, keys[c], i, n - i - 1);
        System.arraycopy(positions[c], i + 1, positions[c], i, n - i - 1);
        keys[c][n - 1] = null;
        sizes[c] = n - 1;
        size--;
        changes++;
        if (n == 1) {
            System.arraycopy(keys, c + 1, keys, c, count - c - 1);
            System.arraycopy(positions, c + 1, positions, c, count - c - 1);
            System.arraycopy(sizes, c + 1, sizes, c, count - c - 1);
            count--;
            keys[count] = null;
            positions[count] = null;
        }
        return true;
    }

    /** The least entry greater than or equal to (key, position), or null. */
    OrderedIndex.Entry ceiling(Object[] key, int position) {
        int c = chunkFor(key, position);
        if (c == count) {
            return null;
        }
        int i = search(c, key, position);
        return entry(c, i >= 0 ? i : -i - 1);
    }

    /** Every entry, in order or reversed. */
    Iterable<OrderedIndex.Entry> all(boolean reverse) {
        return () -> count == 0 ? Collections.emptyIterator()
            : reverse ? new Walk(count - 1, sizes[count - 1] - 1, null, 0, true) : new Walk(0, 0, null, 0, false);
    }

    /** The entries from (loKey, loPosition) to (hiKey, hiPosition), both included, in order or reversed. */
    Iterable<OrderedIndex.Entry> range(Object[] loKey, int loPosition, Object[] hiKey, int hiPosition, boolean reverse) {
        return () -> reverse ? descendingFrom(hiKey, hiPosition, loKey, loPosition) : ascendingFrom(loKey, loPosition, hiKey, hiPosition);
    }

    private Iterator<OrderedIndex.Entry> ascendingFrom(Object[] loKey, int loPosition, Object[] hiKey, int hiPosition) {
        int c = chunkFor(loKey, loPosition);
        if (c == count) {
            return Collections.emptyIterator();
        }
        int i = search(c, loKey, loPosition);
        return new Walk(c, i >= 0 ? i : -i - 1, hiKey, hiPosition, false);
    }

    private Iterator<OrderedIndex.Entry> descendingFrom(Object[] hiKey, int hiPosition, Object[] loKey, int loPosition) {
        // the last entry <= hi: just before the first one > hi
        int c = chunkFor(hiKey, hiPosition);
        int i;
        if (c == count) {
            c = count - 1;
            i = c < 0 ? -1 : sizes[c] - 1;
        } else {
            int s = search(c, hiKey, hiPosition);
            i = s >= 0 ? s : -s - 2;
            if (i < 0 && c > 0) {
                c--;
                i = sizes[c] - 1;
            }
        }
        if (c < 0 || i < 0) {
            return Collections.emptyIterator();
        }
        return new Walk(c, i, loKey, loPosition, true);
    }

    /** Walks from chunk `c`, index `i`, forward or back, up to (endKey, endPosition) included (a null key: to the end). */
    private final class Walk implements Iterator<OrderedIndex.Entry> {
        private int c;
        private int i;
        private final Object[] endKey;
        private final int endPosition;
        private final boolean back;
        private final int expected = changes;
        private boolean more;

        Walk(int c, int i, Object[] endKey, int endPosition, boolean back) {
            this.c = c;
            this.i = i;
            this.endKey = endKey;
            this.endPosition = endPosition;
            this.back = back;
            advance();
        }

        private void advance() {
            if (!back && c < count && i >= sizes[c]) {
                c++;
                i = 0;
            }
            more = back ? c >= 0 && i >= 0 : c < count;
            if (more && endKey != null) {
                int cmp = compare(c, i, endKey, endPosition);
                more = back ? cmp >= 0 : cmp <= 0;
            }
        }

        @Override
        public boolean hasNext() {
            return more;
        }

        @Override
        public OrderedIndex.Entry next() {
            if (changes != expected) {
                throw new ConcurrentModificationException();
            }
            if (!more) {
                throw new NoSuchElementException();
            }
            OrderedIndex.Entry e = entry(c, i);
            if (back) {
                if (--i < 0 && --c >= 0) {
                    i = sizes[c] - 1;
                }
            } else {
                i++;
            }
            advance();
            return e;
        }
    }

    private OrderedIndex.Entry entry(int c, int i) {
        return new OrderedIndex.Entry(keys[c][i], positions[c][i]);
    }

    /** The entry at chunk c, index i against (key, position). */
    private int compare(int c, int i, Object[] key, int position) {
        int r = order.compare(keys[c][i], key);
        return r != 0 ? r : Integer.compare(positions[c][i], position);
    }

    /** The first chunk whose last entry is >= (key, position); `count` when it is after every entry. */
    private int chunkFor(Object[] key, int position) {
        int lo = 0, hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(mid, sizes[mid] - 1, key, position) < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Binary search in chunk c: the index of (key, position), or -(insertion point) - 1. */
    private int search(int c, Object[] key, int position) {
        int lo = 0, hi = sizes[c] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = compare(c, mid, key, position);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    private void put(int c, int i, Object[] key, int position) {
        int n = sizes[c];
        System.arraycopy(keys[c], i, keys[c], i + 1, n - i);
        System.arraycopy(positions[c], i, positions[c], i + 1, n - i);
        keys[c][i] = key;
        positions[c][i] = position;
        sizes[c] = n + 1;
        size++;
        changes++;
    }

    /** A new chunk at `c` holding the entry alone. */
    private void insertChunk(int c, Object[] key, int position) {
        room();
        shiftChunks(c);
        keys[c] = new Object[CHUNK][];
        positions[c] = new int[CHUNK];
        keys[c][0] = key;
        positions[c][0] = position;
        sizes[c] = 1;
        count++;
        size++;
        changes++;
    }

    /** Splits full chunk `c` in halves (c and c + 1). */
    private void split(int c) {
        room();
        shiftChunks(c + 1);
        int half = CHUNK / 2;
        Object[][] upperKeys = new Object[CHUNK][];
        int[] upperPositions = new int[CHUNK];
        System.arraycopy(keys[c], half, upperKeys, 0, CHUNK - half);
        System.arraycopy(positions[c], half, upperPositions, 0, CHUNK - half);
        Arrays.fill(keys[c], half, CHUNK, null);
        keys[c + 1] = upperKeys;
        positions[c + 1] = upperPositions;
        sizes[c + 1] = CHUNK - half;
        sizes[c] = half;
        count++;
    }

    /** Moves the chunks from `c` on one place up (room() made the place). */
    private void shiftChunks(int c) {
        System.arraycopy(keys, c, keys, c + 1, count - c);
        System.arraycopy(positions, c, positions, c + 1, count - c);
        System.arraycopy(sizes, c, sizes, c + 1, count - c);
    }

    private void room() {
        if (count == keys.length) {
            int n = keys.length + (keys.length >> 1) + 1;
            keys = Arrays.copyOf(keys, n);
            positions = Arrays.copyOf(positions, n);
            sizes = Arrays.copyOf(sizes, n);
        }
    }
}
