package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/** The chunked set an index keeps its entries in answers as a TreeSet does, through splits, appends and removals. */
class ChunkedSortedSetTest {
    private static List<Integer> list(Iterable<Integer> it) {
        List<Integer> out = new ArrayList<>();
        it.forEach(out::add);
        return out;
    }

    private static void same(TreeSet<Integer> expected, ChunkedSortedSet<Integer> set, Random random, int bound) {
        assertEquals(expected.size(), set.size());
        assertEquals(new ArrayList<>(expected), list(set.all(false)));
        assertEquals(new ArrayList<>(expected.descendingSet()), list(set.all(true)));
        for (int k = 0; k < 20; k++) {
            int a = random.nextInt(bound + 20) - 10, b = random.nextInt(bound + 20) - 10;
            int lo = Math.min(a, b), hi = Math.max(a, b);
            NavigableSet<Integer> sub = expected.subSet(lo, true, hi, true);
            assertEquals(new ArrayList<>(sub), list(set.range(lo, hi, false)), "range " + lo + ".." + hi);
            assertEquals(new ArrayList<>(sub.descendingSet()), list(set.range(lo, hi, true)), "reversed " + lo + ".." + hi);
            assertEquals(expected.ceiling(a), set.ceiling(a), "ceiling " + a);
        }
    }

    @Test
    void answersAsATreeSetThroughRandomAddsAndRemovals() {
        for (int seed = 0; seed < 6; seed++) {
            Random random = new Random(seed);
            int bound = seed % 2 == 0 ? 500 : 20_000; // dense (many equal attempts) and sparse
            TreeSet<Integer> expected = new TreeSet<>();
            ChunkedSortedSet<Integer> set = new ChunkedSortedSet<>(Integer::compare);
            for (int step = 0; step < 30_000; step++) {
                int v = random.nextInt(bound);
                if (random.nextInt(3) == 0) {
                    assertEquals(expected.remove(v), set.remove(v));
                } else {
                    assertEquals(expected.add(v), set.add(v));
                }
                if (step % 5_000 == 0) {
                    same(expected, set, random, bound);
                }
            }
            same(expected, set, random, bound);
            while (!expected.isEmpty()) { // down to nothing: chunks emptied go
                int v = expected.first();
                expected.remove(v);
                set.remove(v);
            }
            same(expected, set, random, bound);
        }
    }

    @Test
    void fillsItsChunksWhenEntriesArriveInOrderAndAfterALoad() {
        ChunkedSortedSet<Integer> appended = new ChunkedSortedSet<>(Integer::compare);
        TreeSet<Integer> expected = new TreeSet<>();
        for (int v = 0; v < 10 * ChunkedSortedSet.CHUNK; v++) {
            appended.add(v);
            expected.add(v);
        }
        same(expected, appended, new Random(1), expected.size());
        Integer[] sorted = expected.toArray(new Integer[0]);
        ChunkedSortedSet<Integer> loaded = new ChunkedSortedSet<>(Integer::compare);
        loaded.load(sorted);
        same(expected, loaded, new Random(2), expected.size());
        // inserts into the full chunks of a load split them
        Random random = new Random(3);
        for (int k = 0; k < 2_000; k++) {
            int v = -5_000 + random.nextInt(20_000);
            assertEquals(expected.add(v), loaded.add(v));
        }
        same(expected, loaded, random, 15_000);
    }

    @Test
    void aWalkFailsFastWhenTheSetChanges() {
        ChunkedSortedSet<Integer> set = new ChunkedSortedSet<>(Integer::compare);
        for (int v = 0; v < 10; v++) {
            set.add(v);
        }
        Iterator<Integer> walk = set.range(2, 8, false).iterator();
        walk.next();
        set.add(100);
        assertThrows(ConcurrentModificationException.class, walk::next);
    }
}
