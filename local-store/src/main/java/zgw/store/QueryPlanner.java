// Chooses the index that serves a query and reads the documents from it, by the rules the platform's query-index check
// holds every query shape to (shared/src/query-rules.ts): equality fields first, then the sort, then a range. The chosen
// index is read only within the query's bounds: for each combination of the points of its leading fields ($in gives
// several), the range of the next field. When the index also gives the sort order (its fields after the fixed ones are
// the sort fields, all in the index's directions or all reversed) the documents come out in order and reading stops at
// the limit; several $in combinations are merged in sort order. Otherwise the candidates are read in the collection's
// natural order and sorted, exactly as a scan would. Either way every candidate is matched against the whole query, so
// the result is the scan's result, order included: entries with equal sort keys are returned in natural order, as the
// scan's stable sort leaves them. A query no index bounds or orders is scanned, and its shape logged once.

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

final class QueryPlanner {
    /** Set while a command asked for a collection scan (`hint: {$natural: ...}`), as MongoDB's hint does. */
    static final ThreadLocal<Boolean> SCAN = ThreadLocal.withInitial(() -> Boolean.FALSE);
    /** More combinations of $in values than this are not looked up one by one (the field then bounds nothing). */
    static final int MAX_COMBINATIONS = 4096;

    /**
     * Every query an index serves is also answered by a scan and the two compared (ZGW_MONGO_VERIFY=1, as the tests
     * run it): a difference is logged (with the query's shape, not its values) and counted.
     */
    static final boolean VERIFY = "1".equals(System.getenv("ZGW_MONGO_VERIFY")) || Boolean.getBoolean("zgw.verify");
    static final AtomicLong VERIFIED = new AtomicLong();
    static final AtomicLong MISMATCHES = new AtomicLong();
    /** Queries served from an index, queries scanned and index keys read: in all, and per database. */
    static final class Counters {
        final AtomicLong indexed = new AtomicLong();
        final AtomicLong scanned = new AtomicLong();
        final AtomicLong keysExamined = new AtomicLong();

        Document toDocument() {
            return new Document("indexed", indexed.get()).append("scanned", scanned.get()).append("keysExamined", keysExamined.get());
        }

        void reset() {
            indexed.set(0);
            scanned.set(0);
            keysExamined.set(0);
        }
    }

    static final Counters ALL = new Counters();
    /** Index keys read by the current thread's query. */
    private static final ThreadLocal<long[]> KEYS = ThreadLocal.withInitial(() -> new long[1]);

    static void count(Counters database, boolean indexed) {
        long keys = KEYS.get()[0];
        KEYS.get()[0] = 0;
        for (Counters c : new Counters[] {ALL, database}) {
            (indexed ? c.indexed : c.scanned).incrementAndGet();
            c.keysExamined.addAndGet(keys);
        }
    }
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    /** How one query is read from one index. */
    static final class Plan {
        final OrderedIndex index;
        /** Values of the leading point fields, one array per combination, in index order. */
        final List<Object[]> combinations;
        /** Intervals (ascending values) of the field after the points, or null when it is open. */
        final List<Bounds.Interval> range;
        /** The index gives the sort order (read forward, or backward when reverse). */
        final boolean sorted;
        final boolean reverse;
        /** The combinations must be merged to give the sort order. */
        final boolean merge;
        /** Index fields that give the sort order, in sort order. */
        final int[] sortFields;
        final int score;
        /** How many of the fields the query names the index's entries hold (set by plan). */
        int holds;
        /** The query matches nothing (an empty $in). */
        final boolean empty;

        Plan(OrderedIndex index, List<Object[]> combinations, List<Bounds.Interval> range, boolean sorted, boolean reverse,
             boolean merge, int[] sortFields, int score) {
            this.index = index;
            this.combinations = combinations;
            this.range = range;
            this.sorted = sorted;
            this.reverse = reverse;
            this.merge = merge;
            this.sortFields = sortFields;
            this.score = score;
            this.empty = combinations.isEmpty();
        }

        int prefix() {
            return combinations.isEmpty() ? 0 : combinations.get(0).length;
        }

        boolean bounded() {
            return empty || prefix() > 0 || range != null;
        }

        /** Whether the plan looks up points of a unique index, every field fixed: one entry at most per combination. */
        boolean pointsOfUnique() {
            return !empty && index.isUnique() && prefix() == index.fields().length;
        }
    }

    private QueryPlanner() {
    }

    /** The best plan for the query and sort, or null when a scan serves it as well (no index bounds or orders it). */
    static Plan plan(List<OrderedIndex> indexes, Document query, Document orderBy, int wanted) {
        if (SCAN.get()) {
            return null;
        }
        Bounds bounds = Bounds.of(query);
        List<String[]> sort = sortOf(orderBy);
        java.util.Set<String> named = BsonFields.ofQuery(query);
        Plan best = null, bestSorted = null, points = null;
        for (OrderedIndex index : indexes) {
            if (!eligible(index, bounds)) {
                continue;
            }
            Plan p = planFor(index, bounds, sort);
            if (p != null) {
                p.holds = named == null ? 0 : (int) java.util.Arrays.stream(index.fields()).filter(named::contains).count();
            }
            if (p != null && better(p, best)) {
                best = p;
            }
            if (p != null && p.sorted && better(p, bestSorted)) {
                bestSorted = p;
            }
            if (p != null && p.pointsOfUnique() && (points == null || p.combinations.size() < points.combinations.size())) {
                points = p;
            }
        }
        if (best == null || (!best.bounded() && !best.sorted)) {
            return null;
        }
        // Lookups in a unique index (more than score first: `_id` $in of many) read one entry each: fewer than other
        // bounds that hold more entries, even in sort order (the lookups' few documents are then sorted).
        if (points != null && best != points && larger(best, points.combinations.size())) {
            return points;
        }
        // A page (a limit) of a sorted query whose best bounds do not give the order: when those bounds hold many
        // entries, walking an index in sort order and stopping at the limit reads fewer.
        if (!best.sorted && bestSorted != null && wanted > 0 && larger(best, MANY + wanted)) {
            return bestSorted;
        }
        return best;
    }

    /** Bounds holding more entries than this make a page cheaper to read in sort order. */
    private static final int MANY = 1000;

    /**
     * The higher score; between equal ones, the index whose entries hold more of the fields the query names (its key
     * then decides those conditions without reading the documents), then the shorter one.
     */
    private static boolean better(Plan p, Plan than) {
        if (than == null || p.score != than.score) {
            return than == null || p.score > than.score;
        }
        return p.holds > than.holds || (p.holds == than.holds && p.index.fields().length < than.index.fields().length);
    }

    /** Whether the plan's bounds hold more than `limit` entries (reading at most that many). */
    private static boolean larger(Plan plan, int limit) {
        int n = 0;
        for (Iterator<OrderedIndex.Entry> run : runs(plan)) {
            while (run.hasNext()) {
                run.next();
                if (++n > limit) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The sort as [field, "1"|"-1"] pairs; empty for none or a natural order. */
    private static List<String[]> sortOf(Document orderBy) {
        List<String[]> out = new ArrayList<>();
        if (orderBy == null) {
            return out;
        }
        for (Map.Entry<String, Object> e : orderBy.entrySet()) {
            if (e.getKey().equals("$natural")) {
                return new ArrayList<>();
            }
            if (!(e.getValue() instanceof Number)) {
                return null; // {$meta: ...}: no index gives it
            }
            out.add(new String[] {e.getKey(), ((Number) e.getValue()).intValue() > 0 ? "1" : "-1"});
        }
        return out;
    }

    /** A sparse or partial index holds every match only when the query guarantees the fields it requires. */
    private static boolean eligible(OrderedIndex index, Bounds bounds) {
        Document partial = index.partialFilter();
        if (partial != null) {
            for (Map.Entry<String, Object> e : partial.entrySet()) {
                Object c = e.getValue();
                boolean exists = c instanceof Document && ((Document) c).size() == 1
                    && de.bwaldvogel.mongo.backend.Utils.isTrue(((Document) c).get("$exists"));
                if (!exists || !bounds.existing.contains(e.getKey())) {
                    return false;
                }
            }
        }
        if (index.sparse()) {
            for (String f : index.fields()) {
                if (bounds.existing.contains(f)) {
                    return true;
                }
            }
            return false;
        }
        return true;
    }

    private static Plan planFor(OrderedIndex index, Bounds bounds, List<String[]> sort) {
        String[] fields = index.fields();
        int n = fields.length;
        // leading fields bounded by points: their combinations
        List<Object[]> combinations = new ArrayList<>();
        combinations.add(new Object[0]);
        int k = 0;
        boolean[] fixed = new boolean[n];
        boolean[] multiPoint = new boolean[n];
        for (; k < n; k++) {
            List<Bounds.Interval> set = bounds.on(fields[k], index.multikey(k));
            if (set == null || !Bounds.allPoints(set)) {
                break;
            }
            if (set.isEmpty()) {
                return new Plan(index, List.of(), null, true, false, false, new int[0], 10_000); // matches nothing
            }
            if ((long) combinations.size() * set.size() > MAX_COMBINATIONS) {
                break;
            }
            List<Object> points = new ArrayList<>();
            for (Bounds.Interval i : set) {
                points.add(i.lo);
            }
            if (!index.ascending(k)) {
                Collections.reverse(points);
            }
            List<Object[]> next = new ArrayList<>(combinations.size() * points.size());
            for (Object[] c : combinations) {
                for (Object p : points) {
                    Object[] d = Arrays.copyOf(c, c.length + 1);
                    d[c.length] = p;
                    next.add(d);
                }
            }
            combinations = next;
            fixed[k] = set.size() == 1; // one point: each document once (a multikey one too: its elements are distinct)
            multiPoint[k] = set.size() > 1;
        }
        List<Bounds.Interval> range = k < n ? bounds.on(fields[k], index.multikey(k)) : null;
        if (range != null && range.isEmpty()) {
            return new Plan(index, List.of(), null, true, false, false, new int[0], 10_000);
        }

        // does the index give the sort order?
        boolean sorted = false, reverse = false, merge = false;
        int[] sortFields = new int[0];
        if (sort != null) {
            List<Integer> matched = new ArrayList<>();
            int i = 0, j = 0;
            Boolean rev = null;
            boolean ok = true;
            while (j < sort.size()) {
                String field = sort.get(j)[0];
                boolean asc = sort.get(j)[1].equals("1");
                if (i < n && fields[i].equals(field)) {
                    boolean r = asc != index.ascending(i);
                    if ((rev != null && rev != r) || index.multikey(i)) {
                        ok = false;
                        break;
                    }
                    rev = r;
                    matched.add(i);
                    i++;
                    j++;
                } else if (i < n && fixed[i]) {
                    i++;
                } else if (fixedField(index, bounds, field)) {
                    j++;
                } else if (i < n && i < k && multiPoint[i]) {
                    merge = true;
                    i++;
                } else {
                    ok = false;
                    break;
                }
            }
            if (ok) {
                sorted = true;
                reverse = rev != null && rev;
                sortFields = matched.stream().mapToInt(Integer::intValue).toArray();
                if (sortFields.length == 0) {
                    merge = false; // no sort at all, or only on fixed fields: any order of the matches is sorted
                }
            }
        }
        int prefix = k;
        int score;
        if (index.isUnique() && prefix == n && combinations.size() <= 16) {
            score = 1000;
        } else {
            score = prefix * 4 + (sorted && !sort.isEmpty() ? 2 : 0) + (range != null ? 1 : 0);
        }
        return new Plan(index, combinations, range, sorted && sort != null && !sort.isEmpty(), reverse, merge, sortFields, score);
    }

    /** A field every match holds one and the same value in (not an array): it does not change the sort order. */
    private static boolean fixedField(OrderedIndex index, Bounds bounds, String field) {
        String[] fields = index.fields();
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].equals(field)) {
                List<Bounds.Interval> set = bounds.on(field, index.multikey(i));
                return !index.multikey(i) && set != null && set.size() == 1 && set.get(0).isPoint();
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ reading

    /** The index entries the plan reads, per combination (each run in index order, or reversed). */
    private static List<Iterator<OrderedIndex.Entry>> runs(Plan plan) {
        OrderedIndex index = plan.index;
        int n = index.fields().length;
        int k = plan.prefix();
        List<Object[]> combinations = new ArrayList<>(plan.combinations);
        if (plan.reverse) {
            Collections.reverse(combinations);
        }
        List<Iterator<OrderedIndex.Entry>> runs = new ArrayList<>();
        for (Object[] c : combinations) {
            List<Iterable<OrderedIndex.Entry>> parts = new ArrayList<>();
            if (k == n) {
                parts.add(index.range(c, true, c, true, plan.reverse));
            } else {
                List<Bounds.Interval> intervals = plan.range != null ? new ArrayList<>(plan.range)
                    : List.of(new Bounds.Interval(OrderedIndex.LOW, true, OrderedIndex.HIGH, true));
                boolean asc = index.ascending(k);
                if (!asc) {
                    intervals = new ArrayList<>(intervals);
                    Collections.reverse(intervals);
                }
                if (plan.reverse) {
                    intervals = new ArrayList<>(intervals);
                    Collections.reverse(intervals);
                }
                for (Bounds.Interval iv : intervals) {
                    // the interval's ends in index order (a descending field starts at the high value)
                    Object start = asc ? iv.lo : iv.hi, end = asc ? iv.hi : iv.lo;
                    boolean startInc = asc ? iv.loInclusive : iv.hiInclusive, endInc = asc ? iv.hiInclusive : iv.loInclusive;
                    if (!asc) {
                        start = flip(start);
                        end = flip(end);
                    }
                    Object[] from = new Object[n], to = new Object[n];
                    System.arraycopy(c, 0, from, 0, k);
                    System.arraycopy(c, 0, to, 0, k);
                    from[k] = start;
                    to[k] = end;
                    for (int f = k + 1; f < n; f++) {
                        from[f] = startInc ? OrderedIndex.LOW : OrderedIndex.HIGH;
                        to[f] = endInc ? OrderedIndex.HIGH : OrderedIndex.LOW;
                    }
                    parts.add(index.range(from, startInc, to, endInc, plan.reverse));
                }
            }
            runs.add(concat(parts));
        }
        return runs;
    }

    /** An open end in value order is the other open end in a descending field's index order. */
    private static Object flip(Object v) {
        return v == OrderedIndex.LOW ? OrderedIndex.HIGH : v == OrderedIndex.HIGH ? OrderedIndex.LOW : v;
    }

    private static Iterator<OrderedIndex.Entry> concat(List<Iterable<OrderedIndex.Entry>> parts) {
        Iterator<Iterable<OrderedIndex.Entry>> outer = parts.iterator();
        return new Iterator<>() {
            Iterator<OrderedIndex.Entry> current = Collections.emptyIterator();

            @Override
            public boolean hasNext() {
                while (!current.hasNext() && outer.hasNext()) {
                    current = outer.next().iterator();
                }
                return current.hasNext();
            }

            @Override
            public OrderedIndex.Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                KEYS.get()[0]++;
                return current.next();
            }
        };
    }

    /** Compares entries by the index fields that give the sort, in the direction the plan reads them. */
    private static Comparator<OrderedIndex.Entry> sortOrder(Plan plan) {
        return (a, b) -> {
            for (int f : plan.sortFields) {
                int c = plan.index.compareField(f, a.key[f], b.key[f]);
                if (c != 0) {
                    return plan.reverse ? -c : c;
                }
            }
            return 0;
        };
    }

    /**
     * The positions of the candidates in sort order, each once: runs merged when needed, and entries with equal sort
     * keys in natural order (as a stable sort of the scan leaves them); with `keys`, only entries whose key passes it.
     */
    static Iterator<Integer> sortedPositions(Plan plan, java.util.function.Predicate<Object[]> keys) {
        List<Iterator<OrderedIndex.Entry>> runs = runs(plan);
        Comparator<OrderedIndex.Entry> order = sortOrder(plan);
        Iterator<OrderedIndex.Entry> entries = passing(runs.size() == 1 ? runs.get(0) : plan.merge ? merge(runs, order) : concatIterators(runs), keys);
        boolean dedupe = plan.index.anyMultikey();
        return new Iterator<>() {
            final ArrayList<Integer> group = new ArrayList<>();
            final Set<Integer> seen = dedupe ? new HashSet<>() : null;
            OrderedIndex.Entry pending;
            int at;

            private void fill() {
                while (at >= group.size()) {
                    group.clear();
                    at = 0;
                    OrderedIndex.Entry first = pending != null ? pending : entries.hasNext() ? entries.next() : null;
                    pending = null;
                    if (first == null) {
                        return;
                    }
                    group.add(first.position);
                    while (entries.hasNext()) {
                        OrderedIndex.Entry e = entries.next();
                        if (order.compare(first, e) != 0) {
                            pending = e;
                            break;
                        }
                        group.add(e.position);
                    }
                    if (group.size() > 1) {
                        Collections.sort(group);
                    }
                    if (seen != null) {
                        group.removeIf(p -> !seen.add(p));
                    }
                }
            }

            @Override
            public boolean hasNext() {
                fill();
                return at < group.size();
            }

            @Override
            public Integer next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return group.get(at++);
            }
        };
    }

    /** Every entry the plan reads whose key passes `keys`, run after run (not merged into one order). */
    static Iterator<OrderedIndex.Entry> entries(Plan plan, java.util.function.Predicate<Object[]> keys) {
        return passing(concatIterators(runs(plan)), keys);
    }

    /** The entries whose key passes `keys` (all of them without). */
    private static Iterator<OrderedIndex.Entry> passing(Iterator<OrderedIndex.Entry> entries, java.util.function.Predicate<Object[]> keys) {
        if (keys == null) {
            return entries;
        }
        return new Iterator<>() {
            OrderedIndex.Entry next;

            @Override
            public boolean hasNext() {
                while (next == null && entries.hasNext()) {
                    OrderedIndex.Entry e = entries.next();
                    if (keys.test(e.key)) {
                        next = e;
                    }
                }
                return next != null;
            }

            @Override
            public OrderedIndex.Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                OrderedIndex.Entry e = next;
                next = null;
                return e;
            }
        };
    }

    private static Iterator<OrderedIndex.Entry> concatIterators(List<Iterator<OrderedIndex.Entry>> runs) {
        Iterator<Iterator<OrderedIndex.Entry>> outer = runs.iterator();
        return new Iterator<>() {
            Iterator<OrderedIndex.Entry> current = Collections.emptyIterator();

            @Override
            public boolean hasNext() {
                while (!current.hasNext() && outer.hasNext()) {
                    current = outer.next();
                }
                return current.hasNext();
            }

            @Override
            public OrderedIndex.Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return current.next();
            }
        };
    }

    private static Iterator<OrderedIndex.Entry> merge(List<Iterator<OrderedIndex.Entry>> runs, Comparator<OrderedIndex.Entry> order) {
        final class Head {
            final OrderedIndex.Entry entry;
            final Iterator<OrderedIndex.Entry> rest;

            Head(OrderedIndex.Entry entry, Iterator<OrderedIndex.Entry> rest) {
                this.entry = entry;
                this.rest = rest;
            }
        }
        PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> order.compare(a.entry, b.entry));
        for (Iterator<OrderedIndex.Entry> run : runs) {
            if (run.hasNext()) {
                heads.add(new Head(run.next(), run));
            }
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !heads.isEmpty();
            }

            @Override
            public OrderedIndex.Entry next() {
                Head h = heads.poll();
                if (h == null) {
                    throw new NoSuchElementException();
                }
                if (h.rest.hasNext()) {
                    heads.add(new Head(h.rest.next(), h.rest));
                }
                return h.entry;
            }
        };
    }

    /** The positions of the candidates, each once, in natural order (descending when asked); with `keys`, as above. */
    static int[] naturalPositions(Plan plan, boolean descending, java.util.function.Predicate<Object[]> keys) {
        int[] out = new int[64];
        int size = 0;
        for (Iterator<OrderedIndex.Entry> all : runs(plan)) {
            Iterator<OrderedIndex.Entry> run = passing(all, keys);
            while (run.hasNext()) {
                if (size == out.length) {
                    out = Arrays.copyOf(out, size * 2);
                }
                out[size++] = run.next().position;
            }
        }
        int[] sorted = Arrays.copyOf(out, size);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        int[] result = Arrays.copyOf(sorted, distinct);
        if (descending) {
            for (int i = 0, j = result.length - 1; i < j; i++, j--) {
                int t = result[i];
                result[i] = result[j];
                result[j] = t;
            }
        }
        return result;
    }

    static void verify(String collection, Document query, Document orderBy, Plan plan, List<Document> indexed, List<Document> scanned) {
        VERIFIED.incrementAndGet();
        if (indexed.equals(scanned)) {
            return;
        }
        MISMATCHES.incrementAndGet();
        System.err.println("QueryPlanner: ERROR the index " + plan.index.getName() + " answered a query on " + collection + " "
            + Bounds.shape(query) + (orderBy != null ? " sort " + orderBy.keySet() : "") + " with " + indexed.size()
            + " documents where a scan finds " + scanned.size() + (indexed.size() == scanned.size() ? " (in another order)" : ""));
    }

    /**
     * The query without the top-level conditions the plan's bounds enforce exactly, so that counting the entries it
     * reads needs only the rest checked: an equality or $in on plain values, or a range closed at both ends within one
     * type, on a field that leads the index (or is its range field) and holds no arrays.
     */
    static Document residual(Plan plan, Document query) {
        String[] fields = plan.index.fields();
        int bounded = Math.min(fields.length, plan.prefix() + (plan.range != null ? 1 : 0));
        Document rest = new Document();
        for (Map.Entry<String, Object> e : query.entrySet()) {
            int at = -1;
            for (int i = 0; i < bounded; i++) {
                if (fields[i].equals(e.getKey())) {
                    at = i;
                }
            }
            if (at < 0 || plan.index.multikey(at) || !exact(e.getValue())) {
                rest.put(e.getKey(), e.getValue());
            }
        }
        return rest;
    }

    private static boolean plainValue(Object v) {
        return v instanceof String || v instanceof Instant || v instanceof Boolean
            || (v instanceof Number && !(v instanceof de.bwaldvogel.mongo.bson.Decimal128));
    }

    /** A condition whose intervals hold exactly the values it matches (for a field without arrays). */
    private static boolean exact(Object condition) {
        if (plainValue(condition)) {
            return true;
        }
        if (!(condition instanceof Document) || ((Document) condition).isEmpty()) {
            return false;
        }
        Document ops = (Document) condition;
        if (ops.size() == 1 && ops.containsKey("$eq")) {
            return plainValue(ops.get("$eq"));
        }
        if (ops.size() == 1 && ops.get("$in") instanceof java.util.Collection) {
            for (Object x : (java.util.Collection<?>) ops.get("$in")) {
                if (!plainValue(x)) {
                    return false;
                }
            }
            return true;
        }
        Object lo = null, hi = null;
        for (Map.Entry<String, Object> op : ops.entrySet()) {
            switch (op.getKey()) {
                case "$gt":
                case "$gte":
                    lo = op.getValue();
                    break;
                case "$lt":
                case "$lte":
                    hi = op.getValue();
                    break;
                default:
                    return false;
            }
        }
        if (!(plainValue(lo) && plainValue(hi)) || lo instanceof Boolean) {
            return false;
        }
        return lo instanceof Number ? hi instanceof Number : lo.getClass().equals(hi.getClass());
    }

    /**
     * The residual conditions that the index key decides alone, as a test of an entry's key, removed from `residual`
     * (null when there are none): on a field of the index that never held an array, a plain value, `$eq`, `$in` of
     * plain values, or a range of one type (a range matches only values of its bound's type, as in MongoDB); and an
     * `$or` whose branches hold only such conditions; within an `$and`, each branch's such conditions (a range is an
     * `$and` of its two ends once rewritten). A key holds null for a missing field, which none of these match.
     */
    static java.util.function.Predicate<Object[]> keyTest(Plan plan, Document residual) {
        List<java.util.function.Predicate<Object[]>> tests = new ArrayList<>();
        for (String name : new ArrayList<>(residual.keySet())) {
            if (name.equals("$and") && residual.get(name) instanceof List) {
                List<Object> left = new ArrayList<>();
                for (Object branch : (List<?>) residual.get(name)) {
                    // (a copy: the branch may be the query's own)
                    Document rest = branch instanceof Document ? new Document((Document) branch) : null;
                    java.util.function.Predicate<Object[]> test = rest == null ? null : keyTest(plan, rest);
                    if (test != null) {
                        tests.add(test);
                    }
                    if (rest == null || !rest.isEmpty()) {
                        left.add(rest == null ? branch : rest);
                    }
                }
                if (left.isEmpty()) {
                    residual.remove(name);
                } else {
                    residual.put(name, left);
                }
                continue;
            }
            java.util.function.Predicate<Object[]> test = name.equals("$or") ? anyBranch(plan.index, residual.get(name))
                : fieldTest(plan.index, name, residual.get(name));
            if (test != null) {
                tests.add(test);
                residual.remove(name);
            }
        }
        return tests.isEmpty() ? null : all(tests);
    }

    /** An `$or` as a key test when every branch is decided by the key alone (the authorisation filter's buckets). */
    private static java.util.function.Predicate<Object[]> anyBranch(OrderedIndex index, Object branches) {
        if (!(branches instanceof List) || ((List<?>) branches).isEmpty()) {
            return null;
        }
        List<java.util.function.Predicate<Object[]>> tests = new ArrayList<>();
        for (Object branch : (List<?>) branches) {
            if (!(branch instanceof Document)) {
                return null;
            }
            List<java.util.function.Predicate<Object[]>> conditions = new ArrayList<>();
            for (Map.Entry<String, Object> c : ((Document) branch).entrySet()) {
                java.util.function.Predicate<Object[]> test = fieldTest(index, c.getKey(), c.getValue());
                if (test == null) {
                    return null;
                }
                conditions.add(test);
            }
            tests.add(all(conditions));
        }
        return key -> {
            for (java.util.function.Predicate<Object[]> t : tests) {
                if (t.test(key)) {
                    return true;
                }
            }
            return false;
        };
    }

    /** A condition on one field as a key test: on a field of the index that never held an array; null otherwise. */
    private static java.util.function.Predicate<Object[]> fieldTest(OrderedIndex index, String name, Object condition) {
        int at = Arrays.asList(index.fields()).indexOf(name);
        if (at < 0 || index.multikey(at)) {
            return null;
        }
        java.util.function.Predicate<Object> test = valueTest(index, at, condition);
        return test == null ? null : key -> test.test(key[at]);
    }

    private static <T> java.util.function.Predicate<T> all(List<java.util.function.Predicate<T>> tests) {
        return x -> {
            for (java.util.function.Predicate<T> t : tests) {
                if (!t.test(x)) {
                    return false;
                }
            }
            return true;
        };
    }

    private static java.util.function.Predicate<Object> valueTest(OrderedIndex index, int at, Object condition) {
        if (keyValue(condition)) {
            condition = new Document("$eq", condition);
        }
        if (!(condition instanceof Document) || ((Document) condition).isEmpty()) {
            return null;
        }
        List<java.util.function.Predicate<Object>> parts = new ArrayList<>();
        for (Map.Entry<String, Object> op : ((Document) condition).entrySet()) {
            Object arg = op.getValue();
            switch (op.getKey()) {
                case "$eq":
                    if (!keyValue(arg)) {
                        return null;
                    }
                    parts.add(v -> Integer.valueOf(0).equals(compareSameType(index, at, v, arg)));
                    break;
                case "$in": {
                    if (!(arg instanceof java.util.Collection) || !((java.util.Collection<?>) arg).stream().allMatch(QueryPlanner::keyValue)) {
                        return null;
                    }
                    List<Object> values = new ArrayList<>((java.util.Collection<?>) arg);
                    parts.add(v -> values.stream().anyMatch(x -> Integer.valueOf(0).equals(compareSameType(index, at, v, x))));
                    break;
                }
                case "$gt":
                case "$gte":
                case "$lt":
                case "$lte": {
                    if (!keyValue(arg)) {
                        return null;
                    }
                    String o = op.getKey();
                    parts.add(v -> {
                        Integer c = compareSameType(index, at, v, arg);
                        return c != null && (o.equals("$gt") ? c > 0 : o.equals("$gte") ? c >= 0 : o.equals("$lt") ? c < 0 : c <= 0);
                    });
                    break;
                }
                default:
                    return null;
            }
        }
        return v -> {
            for (java.util.function.Predicate<Object> p : parts) {
                if (!p.test(v)) {
                    return false;
                }
            }
            return true;
        };
    }

    /** A value a key test can compare: a string, date, boolean or number (not NaN, not Decimal128), never null. */
    private static boolean keyValue(Object v) {
        return plainValue(v) && !(v instanceof Double && ((Double) v).isNaN()) && !(v instanceof Float && ((Float) v).isNaN());
    }

    /** A key value against a condition's value, ascending; null when of different types (never equal, never in range). */
    private static Integer compareSameType(OrderedIndex index, int at, Object v, Object x) {
        if (v == null || !(v instanceof Number ? x instanceof Number : v.getClass().equals(x.getClass()))) {
            return null;
        }
        int c = index.compareField(at, v, x);
        return index.ascending(at) ? c : -c;
    }

    /**
     * The number of distinct documents the plan reads that the residual query matches (with `keys`: whose key passes
     * it first; with `failing`: those not among the positions known to fail the residual, without reading a document).
     */
    static long count(Plan plan, Document residual, java.util.function.Predicate<Object[]> keys, java.util.BitSet failing,
                      java.util.function.IntFunction<Document> documents, java.util.function.Predicate<Document> matches) {
        boolean all = residual.isEmpty();
        Set<Integer> seen = plan.index.anyMultikey() ? new HashSet<>() : null;
        long n = 0;
        for (Iterator<OrderedIndex.Entry> bounded : runs(plan)) {
            Iterator<OrderedIndex.Entry> run = passing(bounded, keys);
            while (run.hasNext()) {
                int position = run.next().position;
                if (seen != null && !seen.add(position)) {
                    continue;
                }
                if (failing != null ? !failing.get(position) : all || matches.test(documents.apply(position))) {
                    n++;
                }
            }
        }
        return n;
    }

    static void verifyCount(String collection, Document query, Plan plan, long counted, long scanned) {
        VERIFIED.incrementAndGet();
        if (counted == scanned) {
            return;
        }
        MISMATCHES.incrementAndGet();
        System.err.println("QueryPlanner: ERROR the index " + plan.index.getName() + " counted " + counted + " documents for a query on "
            + collection + " " + Bounds.shape(query) + " where a scan finds " + scanned);
    }

    /** Under VERIFY: the groups read from an index against those of the documents (as sets: a group's order is free). */
    static void verifyGroups(String collection, Document query, List<Document> indexed, List<Document> scanned) {
        VERIFIED.incrementAndGet();
        if (indexed.size() == scanned.size() && new HashSet<>(indexed).equals(new HashSet<>(scanned))) {
            return;
        }
        MISMATCHES.incrementAndGet();
        System.err.println("QueryPlanner: ERROR the groups read from an index for a query on " + collection + " " + Bounds.shape(query) + " were "
            + indexed.size() + " where the documents give " + scanned.size());
    }

    /** Reports a remembered count that a write should have invalidated (checked under VERIFY beside verifyCount). */
    static void staleCount(String collection, Document query, long remembered, long counted) {
        MISMATCHES.incrementAndGet();
        System.err.println("QueryPlanner: ERROR a remembered count of " + remembered + " documents for a query on " + collection + " "
            + Bounds.shape(query) + " outlived a write; the index counts " + counted + " now");
    }

    /** Logs once per collection and shape a query that no index serves (values left out: they may be personal). */
    static void logScan(String collection, Document query, Document orderBy, int documents) {
        String shape = collection + " " + Bounds.shape(query) + (orderBy != null && !orderBy.isEmpty() ? " sort " + orderBy.keySet() : "");
        if (LOGGED.add(shape)) {
            System.err.println("QueryPlanner: WARN no index serves a query on " + shape + "; it scans the collection (" + documents + " documents now)");
        }
    }

}
