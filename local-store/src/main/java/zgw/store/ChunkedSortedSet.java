// The ordered set an index keeps its entries in: sorted arrays of at most CHUNK elements, themselves in order. A
// TreeSet spends a node of 40 bytes on every element (with a million documents and 35 indexes: 1.4 GB of nodes); a
// chunk spends a slot of 4 (about 5 to 8 with the room chunks keep), and a walk reads neighbours from one array. A
// lookup is a binary search over the chunks' last elements, then one within the chunk; an insert moves at most a
// chunk's elements, and a full chunk splits in two (at the end of the set it starts a new one instead, so entries that
// arrive in order, such as creation times, fill their chunks). Iterators fail fast on a change, as TreeSet's do.

package zgw.store;

import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

final class ChunkedSortedSet<E> implements Iterable<E> {
    static final int CHUNK = 128;

    private final Comparator<? super E> order;
    private Object[][] chunks = new Object[4][];
    private int[] sizes = new int[4];
    /** Chunks in use, elements in all. */
    private int count;
    private int size;
    private int changes;

    ChunkedSortedSet(Comparator<? super E> order) {
        this.order = order;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        chunks = new Object[4][];
        sizes = new int[4];
        count = 0;
        size = 0;
        changes++;
    }

    /** Replaces the content by `sorted` (in this set's order, without equal elements), in full chunks. */
    void load(E[] sorted) {
        int n = (sorted.length + CHUNK - 1) / CHUNK;
        chunks = new Object[Math.max(4, n)][];
        sizes = new int[chunks.length];
        for (int c = 0; c < n; c++) {
            int from = c * CHUNK, to = Math.min(sorted.length, from + CHUNK);
            Object[] chunk = new Object[CHUNK];
            System.arraycopy(sorted, from, chunk, 0, to - from);
            chunks[c] = chunk;
            sizes[c] = to - from;
        }
        count = n;
        size = sorted.length;
        changes++;
    }

    /** Adds `e` unless an equal element is held; true when added. */
    boolean add(E e) {
        if (count == 0) {
            insertChunk(0, e);
            return true;
        }
        int c = chunkFor(e);
        if (c == count) { // after every element: at the end of the last chunk
            c = count - 1;
            if (sizes[c] == CHUNK) {
                insertChunk(count, e);
                return true;
            }
            put(c, sizes[c], e);
            return true;
        }
        int i = search(c, e);
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
        put(c, i, e);
        return true;
    }

    /** Removes the element equal to `e`; true when there was one. */
    boolean remove(E e) {
        int c = chunkFor(e);
        if (c == count) {
            return false;
        }
        int i = search(c, e);
        if (i < 0) {
            return false;
        }
        Object[] chunk = chunks[c];
        int n = sizes[c];
        System.arraycopy(chunk, i + 1, chunk, i, n - i - 1);
        chunk[n - 1] = null;
        sizes[c] = n - 1;
        size--;
        changes++;
        if (n == 1) {
            System.arraycopy(chunks, c + 1, chunks, c, count - c - 1);
            System.arraycopy(sizes, c + 1, sizes, c, count - c - 1);
            chunks[--count] = null;
        }
        return true;
    }

    /** The least element greater than or equal to `e`, or null. */
    E ceiling(E e) {
        int c = chunkFor(e);
        if (c == count) {
            return null;
        }
        int i = search(c, e);
        return at(c, i >= 0 ? i : -i - 1);
    }

    /** Every element, in order or reversed. */
    Iterable<E> all(boolean reverse) {
        return () -> count == 0 ? Collections.emptyIterator()
            : reverse ? new Walk(count - 1, sizes[count - 1] - 1, null, true) : new Walk(0, 0, null, false);
    }

    /** The elements from `lo` to `hi`, both included, in order or reversed (the walk starts at `hi` then). */
    Iterable<E> range(E lo, E hi, boolean reverse) {
        return () -> reverse ? descendingFrom(hi, lo) : ascendingFrom(lo, hi);
    }

    @Override
    public Iterator<E> iterator() {
        return all(false).iterator();
    }

    private Iterator<E> ascendingFrom(E lo, E hi) {
        int c = chunkFor(lo);
        if (c == count) {
            return Collections.emptyIterator();
        }
        int i = search(c, lo);
        return new Walk(c, i >= 0 ? i : -i - 1, hi, false);
    }

    private Iterator<E> descendingFrom(E hi, E lo) {
        // the last element <= hi: just before the first one > hi
        int c = chunkFor(hi);
        int i;
        if (c == count) {
            c = count - 1;
            i = c < 0 ? -1 : sizes[c] - 1;
        } else {
            int s = search(c, hi);
            i = s >= 0 ? s : -s - 2;
            if (i < 0 && c > 0) {
                c--;
                i = sizes[c] - 1;
            }
        }
        if (c < 0 || i < 0) {
            return Collections.emptyIterator();
        }
        return new Walk(c, i, lo, true);
    }

    /** Walks from chunk `c`, index `i`, forward or back, up to `end` (included; null: to the end). */
    private final class Walk implements Iterator<E> {
        private int c;
        private int i;
        private final E end;
        private final boolean back;
        private final int expected = changes;
        private E next;

        Walk(int c, int i, E end, boolean back) {
            this.c = c;
            this.i = i;
            this.end = end;
            this.back = back;
            advance();
        }

        private void advance() {
            if (!back && c < count && i >= sizes[c]) {
                c++;
                i = 0;
            }
            E e = back ? (c >= 0 && i >= 0 ? at(c, i) : null) : (c < count ? at(c, i) : null);
            if (e != null && end != null && (back ? order.compare(e, end) < 0 : order.compare(e, end) > 0)) {
                e = null;
            }
            next = e;
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public E next() {
            if (changes != expected) {
                throw new ConcurrentModificationException();
            }
            if (next == null) {
                throw new NoSuchElementException();
            }
            E e = next;
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

    @SuppressWarnings("unchecked")
    private E at(int c, int i) {
        return (E) chunks[c][i];
    }

    /** The first chunk whose last element is >= e; `count` when e is after every element. */
    private int chunkFor(E e) {
        int lo = 0, hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (order.compare(at(mid, sizes[mid] - 1), e) < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Binary search in chunk c: the index of e, or -(insertion point) - 1. */
    private int search(int c, E e) {
        int lo = 0, hi = sizes[c] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = order.compare(at(c, mid), e);
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

    private void put(int c, int i, E e) {
        Object[] chunk = chunks[c];
        System.arraycopy(chunk, i, chunk, i + 1, sizes[c] - i);
        chunk[i] = e;
        sizes[c]++;
        size++;
        changes++;
    }

    /** A new chunk at `c` holding `e` alone. */
    private void insertChunk(int c, E e) {
        room();
        System.arraycopy(chunks, c, chunks, c + 1, count - c);
        System.arraycopy(sizes, c, sizes, c + 1, count - c);
        Object[] chunk = new Object[CHUNK];
        chunk[0] = e;
        chunks[c] = chunk;
        sizes[c] = 1;
        count++;
        size++;
        changes++;
    }

    /** Splits full chunk `c` in halves (c and c + 1). */
    private void split(int c) {
        room();
        System.arraycopy(chunks, c + 1, chunks, c + 2, count - c - 1);
        System.arraycopy(sizes, c + 1, sizes, c + 2, count - c - 1);
        Object[] chunk = chunks[c];
        int half = CHUNK / 2;
        Object[] upper = new Object[CHUNK];
        System.arraycopy(chunk, half, upper, 0, CHUNK - half);
        Arrays.fill(chunk, half, CHUNK, null);
        chunks[c + 1] = upper;
        sizes[c + 1] = CHUNK - half;
        sizes[c] = half;
        count++;
    }

    private void room() {
        if (count == chunks.length) {
            int n = chunks.length + (chunks.length >> 1) + 1;
            chunks = Arrays.copyOf(chunks, n);
            sizes = Arrays.copyOf(sizes, n);
        }
    }
}
