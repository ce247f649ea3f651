package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import de.bwaldvogel.mongo.bson.Document;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The heap watch: a warning when a collection leaves the heap nearly full, not more often than it helps. */
class HeapWatchTest {
    private static final long MB = 1024 * 1024;

    @Test
    void warnsWhenACollectionLeavesTheHeapNearlyFull() {
        AtomicLong last = new AtomicLong(Long.MIN_VALUE);
        assertNull(HeapWatch.warning(3000 * MB, 4096 * MB, 0, last), "73% is no warning");
        String warning = HeapWatch.warning(4000 * MB, 4096 * MB, 1_000, last);
        assertNotNull(warning);
        assertTrue(warning.contains("4000 MB of its 4096 MB") && warning.contains("98%") && warning.contains("ZGW_MONGO_HEAP"), warning);
        assertEquals(1_000, last.get());
    }

    @Test
    void warnsAgainOnlyAfterAWhile() {
        AtomicLong last = new AtomicLong(Long.MIN_VALUE);
        assertNotNull(HeapWatch.warning(4000 * MB, 4096 * MB, 0, last));
        assertNull(HeapWatch.warning(4000 * MB, 4096 * MB, HeapWatch.WARN_EVERY_MS - 1, last));
        assertNotNull(HeapWatch.warning(4000 * MB, 4096 * MB, HeapWatch.WARN_EVERY_MS, last));
    }

    @Test
    void reportsTheHeapAfterAFullCollection() {
        Document stats = HeapWatch.stats(true);
        long used = ((Number) stats.get("heapUsedBytes")).longValue();
        long max = ((Number) stats.get("heapMaxBytes")).longValue();
        assertTrue(used > 0 && used <= max, stats.toString());
        assertTrue(((Number) stats.get("residentBytes")).longValue() > used / 2, stats.toString());
    }
}
