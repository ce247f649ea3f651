package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * The chunks an index keeps its entries in answer as a TreeSet of the same entries does (keys, then positions), through
 * splits, appends at the end, removals down to nothing and a load.
 */
class EntryChunksTest {
    private static final Comparator<Object[]> KEYS = (a, b) -> Integer.compare((Integer) a[0], (Integer) b[0]);
    private static final Comparator<OrderedIndex.Entry> ORDER = (a, b) -> {
        int c = KEYS.compare(a.key, b.key);
        return c != 0 ? c : Integer.compare(a.position, b.position);
    };

    private static OrderedIndex.Entry entry(int key, int position) {
        return new OrderedIndex.Entry(new Object[] {key}, position);
    }

    private static String text(OrderedIndex.Entry e) {
        return e == null ? "none" : e.key[0] + "@" + e.position;
    }

    private static List<String> texts(Iterable<OrderedIndex.Entry> entries) {
        List<String> out = new ArrayList<>();
        entries.forEach(e -> out.add(text(e)));
        return out;
    }

    private static void same(TreeSet<OrderedIndex.Entry> expected, EntryChunks chunks, Random random, int bound) {
        assertEquals(expected.size(), chunks.size());
        assertEquals(texts(expected), texts(chunks.all(false)));
        assertEquals(texts(expected.descendingSet()), texts(chunks.all(true)));
        for (int k = 0; k < 20; k++) {
            int a = random.nextInt(bound + 20) - 10, b = random.nextInt(bound + 20) - 10;
            OrderedIndex.Entry lo = entry(Math.min(a, b), random.nextBoolean() ? Integer.MIN_VALUE : random.nextInt(4));
            OrderedIndex.Entry hi = entry(Math.max(a, b), random.nextBoolean() ? Integer.MAX_VALUE : random.nextInt(4));
            if (ORDER.compare(lo, hi) > 0) {
                continue;
            }
            NavigableSet<OrderedIndex.Entry> sub = expected.subSet(lo, true, hi, true);
            String range = text(lo) + ".." + text(hi);
            assertEquals(texts(sub), texts(chunks.range(lo.key, lo.position, hi.key, hi.position, false)), range);
            assertEquals(texts(sub.descendingSet()), texts(chunks.range(lo.key, lo.position, hi.key, hi.position, true)), "reversed " + range);
            assertEquals(text(expected.ceiling(lo)), text(chunks.ceiling(lo.key, lo.position)), "ceiling " + text(lo));
        }
    }

    @Test
    void answersAsATreeSetThroughRandomAddsAndRemovals() {
        for (int seed = 0; seed < 6; seed++) {
            Random random = new Random(seed);
            int bound = seed % 2 == 0 ? 300 : 20_000; // dense (many equal keys and repeated entries) and sparse
            TreeSet<OrderedIndex.Entry> expected = new TreeSet<>(ORDER);
            EntryChunks chunks = new EntryChunks(KEYS);
            for (int step = 0; step < 30_000; step++) {
                OrderedIndex.Entry e = entry(random.nextInt(bound), random.nextInt(4));
                if (random.nextInt(3) == 0) {
                    assertEquals(expected.remove(e), chunks.remove(e.key, e.position));
                } else {
                    assertEquals(expected.add(e), chunks.add(e.key, e.position));
                }
                if (step % 5_000 == 0) {
                    same(expected, chunks, random, bound);
                }
            }
            same(expected, chunks, random, bound);
            while (!expected.isEmpty()) { // down to nothing: chunks emptied go
                OrderedIndex.Entry e = expected.pollFirst();
                assertEquals(true, chunks.remove(e.key, e.position));
            }
            same(expected, chunks, random, bound);
        }
    }

    @Test
    void fillsItsChunksWhenEntriesArriveInOrderAndAfterALoad() {
        EntryChunks appended = new EntryChunks(KEYS);
        TreeSet<OrderedIndex.Entry> expected = new TreeSet<>(ORDER);
        for (int v = 0; v < 10 * EntryChunks.CHUNK; v++) {
            appended.add(new Object[] {v}, v);
            expected.add(entry(v, v));
        }
        same(expected, appended, new Random(1), expected.size());
        EntryChunks loaded = new EntryChunks(KEYS);
        loaded.load(expected.toArray(new OrderedIndex.Entry[0]));
        same(expected, loaded, new Random(2), expected.size());
        // inserts into the full chunks of a load split them
        Random random = new Random(3);
        for (int k = 0; k < 2_000; k++) {
            OrderedIndex.Entry e = entry(-5_000 + random.nextInt(20_000), random.nextInt(4));
            assertEquals(expected.add(e), loaded.add(e.key, e.position));
        }
        same(expected, loaded, random, 15_000);
    }

    @Test
    void aWalkFailsFastWhenTheSetChanges() {
        EntryChunks chunks = new EntryChunks(KEYS);
        for (int v = 0; v < 10; v++) {
            chunks.add(new Object[] {v}, 0);
        }
        Iterator<OrderedIndex.Entry> walk = chunks.range(new Object[] {2}, 0, new Object[] {8}, 0, false).iterator();
        walk.next();
        chunks.add(new Object[] {100}, 0);
        assertThrows(ConcurrentModificationException.class, walk::next);
    }
}
