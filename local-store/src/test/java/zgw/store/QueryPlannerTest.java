package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.bson.Document;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The planner chooses indexes by equality, then sort, then range, and reads only within the query's bounds. */
class QueryPlannerTest {
    private OrderedIndex byA, byAB, byC, byTags;
    private List<OrderedIndex> indexes;
    private final List<Document> documents = new ArrayList<>();

    private static OrderedIndex index(String name, IndexKey... keys) {
        return new OrderedIndex(name, List.of(keys), false, false, null, null);
    }

    @BeforeEach
    void load() {
        byA = index("a_1", new IndexKey("a", true));
        byAB = index("a_1_b_-1", new IndexKey("a", true), new IndexKey("b", false));
        byC = index("c_1", new IndexKey("c", true));
        byTags = index("tags_1", new IndexKey("tags", true));
        indexes = List.of(byA, byAB, byC, byTags);
        String[] as = {"x", "y", "x", "z", "x", "y"};
        for (int i = 0; i < as.length; i++) {
            Document d = new Document("_id", i).append("a", as[i]).append("b", i % 3).append("c", i * 10);
            if (i % 2 == 0) {
                d.append("tags", List.of("t" + i, "even"));
            }
            documents.add(d);
            for (OrderedIndex index : indexes) {
                index.add(d, i, null);
            }
        }
    }

    private static List<Integer> positions(QueryPlanner.Plan plan) {
        List<Integer> out = new ArrayList<>();
        for (Iterator<OrderedIndex.Entry> e = QueryPlanner.entries(plan, null); e.hasNext();) {
            out.add(e.next().position);
        }
        return out;
    }

    @Test
    void equalityThenSortTakesTheIndexThatGivesTheOrder() {
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, new Document("a", "x"), new Document("b", -1), 0);
        assertNotNull(plan);
        assertEquals("a_1_b_-1", plan.index.getName());
        assertTrue(plan.sorted);
        assertFalse(plan.reverse);
        // a = x: positions 0 (b 0), 2 (b 2), 4 (b 1); b descending
        assertEquals(List.of(2, 4, 0), positions(plan));
    }

    @Test
    void theSameIndexReadBackwardGivesTheReversedSort() {
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, new Document("a", "x"), new Document("b", 1), 0);
        assertEquals("a_1_b_-1", plan.index.getName());
        assertTrue(plan.sorted);
        assertTrue(plan.reverse);
    }

    @Test
    void aRangeIsReadWithinItsBoundsOnly() {
        Document query = new Document("c", new Document("$gte", 15).append("$lt", 40));
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, query, null, 0);
        assertEquals("c_1", plan.index.getName());
        assertNotNull(plan.range);
        assertEquals(List.of(2, 3), positions(plan));
    }

    @Test
    void inGivesOneCombinationPerValueMergedInSortOrder() {
        Document query = new Document("a", new Document("$in", List.of("y", "z")));
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, query, new Document("b", -1), 0);
        assertEquals("a_1_b_-1", plan.index.getName());
        assertEquals(2, plan.combinations.size());
        assertTrue(plan.merge);
        // y: 1 (b 1), 5 (b 2); z: 3 (b 0): merged by b descending
        List<Integer> found = new ArrayList<>();
        for (Iterator<Integer> p = QueryPlanner.sortedPositions(plan, null); p.hasNext();) {
            found.add(p.next());
        }
        assertEquals(List.of(5, 1, 3), found);
    }

    @Test
    void anEmptyInMatchesNothingWithoutReading() {
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, new Document("a", new Document("$in", List.of())), null, 0);
        assertNotNull(plan);
        assertTrue(plan.empty);
        assertEquals(List.of(), positions(plan));
    }

    @Test
    void anArrayFieldIsFoundByEachOfItsElements() {
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, new Document("tags", "even"), null, 0);
        assertEquals("tags_1", plan.index.getName());
        assertTrue(plan.index.multikey(0));
        assertEquals(List.of(0, 2, 4), positions(plan));
    }

    @Test
    void whatNoIndexBoundsOrOrdersIsLeftToAScan() {
        assertNull(QueryPlanner.plan(indexes, new Document("d", 1), null, 0));
        assertNull(QueryPlanner.plan(indexes, new Document("a", new Document("$ne", "x")), null, 0));
    }

    @Test
    void aHintForTheNaturalOrderIsAScan() {
        QueryPlanner.SCAN.set(true);
        try {
            assertNull(QueryPlanner.plan(indexes, new Document("a", "x"), null, 0));
        } finally {
            QueryPlanner.SCAN.set(false);
        }
    }

    @Test
    void whatIsLeftAfterTheIndexIsTheResidualTheMatcherChecks() {
        Document query = new Document("a", "x").append("d", 1);
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, query, null, 0);
        assertEquals(new Document("d", 1), QueryPlanner.residual(plan, query));
    }

    @Test
    void aRangeOnALaterFieldOfTheIndexWithinAnAndIsDecidedByTheKey() {
        // a = x sorted by b (a_1_b_-1): a range of b written as an $and of its two ends (as MatchRules writes ranges) is
        // decided by the entry's key, and the query's own conditions are left as they are
        List<Document> ends = List.of(new Document("b", new Document("$gte", 1)), new Document("b", new Document("$lte", 2)));
        Document query = new Document("a", "x").append("$and", ends).append("d", new Document("$exists", false));
        QueryPlanner.Plan plan = QueryPlanner.plan(indexes, query, new Document("b", -1), 0);
        assertEquals("a_1_b_-1", plan.index.getName());
        Document residual = new Document("$and", ends).append("d", new Document("$exists", false));
        java.util.function.Predicate<Object[]> keys = QueryPlanner.keyTest(plan, residual);
        assertEquals(new Document("d", new Document("$exists", false)), residual);
        assertEquals(new Document("b", new Document("$gte", 1)), ends.get(0));
        assertEquals(new Document("b", new Document("$lte", 2)), ends.get(1));
        List<Integer> passing = new ArrayList<>();
        for (Iterator<OrderedIndex.Entry> e = QueryPlanner.entries(plan, keys); e.hasNext();) {
            passing.add(e.next().position);
        }
        // a = x: positions 0 (b 0), 2 (b 2), 4 (b 1): b within [1, 2]
        assertEquals(List.of(2, 4), passing);
    }

    @Test
    void betweenIndexesEquallyGoodTheOneWhoseEntriesHoldMoreOfTheQuerysFieldsIsChosen() {
        // a = x sorted by b, and c >= 15: both serve a and the order alike; only the second's entries hold c
        OrderedIndex withD = index("a_1_b_1_d_1", new IndexKey("a", true), new IndexKey("b", true), new IndexKey("d", true));
        OrderedIndex withC = index("a_1_b_1_c_1", new IndexKey("a", true), new IndexKey("b", true), new IndexKey("c", true));
        Document query = new Document("a", "x").append("c", new Document("$gte", 15));
        QueryPlanner.Plan plan = QueryPlanner.plan(List.of(withD, withC), query, new Document("b", 1), 0);
        assertEquals("a_1_b_1_c_1", plan.index.getName());
        assertEquals("a_1_b_1_c_1", QueryPlanner.plan(List.of(withC, withD), query, new Document("b", 1), 0).index.getName());
    }

    @Test
    void manyLookupsInAUniqueIndexAreReadAsLookupsNotThroughWiderBounds() {
        // `_id` $in of more values than score first, beside a fixed field that leads another index (as a tenant leads
        // `_tenant, _created, _id`), whose entries hold `_id` too
        OrderedIndex byId = new OrderedIndex("_id_", List.of(new IndexKey("_id", true)), true, false, null, null);
        OrderedIndex byABId = index("a_1_b_1__id_1", new IndexKey("a", true), new IndexKey("b", true), new IndexKey("_id", true));
        List<OrderedIndex> both = List.of(byId, byABId);
        for (int i = 0; i < 400; i++) {
            Document d = new Document("_id", i).append("a", "x").append("b", i % 7);
            byId.add(d, i, null);
            byABId.add(d, i, null);
        }
        List<Object> ids = new ArrayList<>();
        for (int i = 0; i < 40; i += 2) {
            ids.add(i);
        }
        Document query = new Document("a", "x").append("_id", new Document("$in", ids));
        QueryPlanner.Plan plan = QueryPlanner.plan(both, query, null, 0);
        assertEquals("_id_", plan.index.getName());
        assertEquals(20, positions(plan).size());
        // with few values the lookups score first anyway; with a sort too, they read fewer than the sorted walk
        assertEquals("_id_", QueryPlanner.plan(both, new Document("a", "x").append("_id", new Document("$in", ids.subList(0, 3))), null, 0).index.getName());
        assertEquals("_id_", QueryPlanner.plan(both, query, new Document("b", 1).append("_id", 1), 10).index.getName());
    }
}
