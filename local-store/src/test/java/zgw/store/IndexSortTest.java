package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import de.bwaldvogel.mongo.backend.IndexKey;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * An index built at once sorts its entries as comparing them whole does, whether it takes the quick way (a string that
 * decides the order, sorted first by its leading characters) or not (other values, characters beyond ASCII).
 */
class IndexSortTest {
    private static final String HEX = "0123456789abcdef";

    private static OrderedIndex index(boolean ascending) {
        return new OrderedIndex("t_1_a_1", List.of(new IndexKey("t", true), new IndexKey("a", ascending)), false, false, null, null);
    }

    /** Strings with long shared beginnings, shorter ones that begin like longer ones, and repeats. */
    private static String text(Random random, String alphabet) {
        StringBuilder b = new StringBuilder(random.nextInt(3) == 0 ? "abc" : "");
        int length = random.nextInt(9);
        for (int i = 0; i < length; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    private static void sortsAsWhole(OrderedIndex index, List<Object> values) {
        OrderedIndex.Entry[] entries = new OrderedIndex.Entry[values.size()];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new OrderedIndex.Entry(new Object[] {"000000000", values.get(i)}, i);
        }
        OrderedIndex.Entry[] expected = entries.clone();
        Arrays.sort(expected, (x, y) -> {
            int c = index.compareKeys(x.key, y.key);
            return c != 0 ? c : Integer.compare(x.position, y.position);
        });
        index.sort(entries);
        for (int i = 0; i < entries.length; i++) {
            assertEquals(expected[i].position, entries[i].position, "entry " + i + ": " + Arrays.toString(expected[i].key) + " expected");
        }
    }

    @Test
    void sortsStringsByTheirBeginningThenWhole() {
        for (boolean ascending : new boolean[] {true, false}) {
            Random random = new Random(ascending ? 1 : 2);
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                values.add(text(random, HEX + "-:/"));
            }
            sortsAsWhole(index(ascending), values);
        }
    }

    @Test
    void sortsOtherValuesAndOtherCharactersAsBefore() {
        Random random = new Random(3);
        List<Object> beyondAscii = new ArrayList<>();
        List<Object> mixed = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            beyondAscii.add(text(random, "ab\u00e9\u20ac\ud83d\ude00\uffff"));
            mixed.add(i % 7 == 0 ? (Object) (long) random.nextInt(100) : i % 11 == 0 ? null : text(random, HEX));
        }
        sortsAsWhole(index(true), beyondAscii);
        sortsAsWhole(index(false), mixed);
    }
}
