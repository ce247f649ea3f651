package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Under ZGW_MONGO_VERIFY: every query of a small collection is checked by a scan, a share of a large one's. */
class VerifySamplerTest {
    private static int taken(VerifySampler s, long live, int queries) {
        int n = 0;
        for (int i = 0; i < queries; i++) {
            n += s.take(live) ? 1 : 0;
        }
        return n;
    }

    @Test
    void checksEveryQueryUpToTheSize() {
        VerifySampler s = new VerifySampler(10_000);
        assertEquals(500, taken(s, 1, 500));
        assertEquals(500, taken(s, 10_000, 500));
    }

    @Test
    void checksALargeCollectionsQueriesAtTheCostOfAScanOfTheSizeEach() {
        VerifySampler s = new VerifySampler(10_000);
        // 200,000 documents: one query in twenty, so the scans read 10,000 documents a query on average
        assertEquals(100, taken(s, 200_000, 2_000));
        // 25,000: two in five
        assertEquals(800, taken(new VerifySampler(10_000), 25_000, 2_000));
    }

    @Test
    void checksAgainAtOnceWhenTheCollectionShrinks() {
        VerifySampler s = new VerifySampler(10_000);
        taken(s, 1_000_000, 3);
        assertTrue(s.take(9_999));
        assertEquals(0, taken(s, 1_000_000, 99), "the credit starts again from nothing");
    }

    @Test
    void readsTheSettingOrKeepsTheDefault() {
        assertEquals(1_000, VerifySampler.docs(null));
        assertEquals(1_000, VerifySampler.docs(" "));
        assertEquals(1_000, VerifySampler.docs("many"));
        assertEquals(1_000, VerifySampler.docs("0"));
        assertEquals(2_500, VerifySampler.docs(" 2500 "));
    }
}
