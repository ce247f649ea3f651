// What a query says about the values of each field, as MongoDB's planner reads it: per field, the intervals of values
// a matching document can hold there. Only what certainly holds is kept, so the documents of those intervals are a
// superset of the matches (the matcher still checks every condition of every document the planner fetches):
// equality and $in are points, $gt/$gte/$lt/$lte and an anchored regex prefix are ranges, $exists: false is the null
// point; $and intersects, $or unites per field (a field bounded in every branch), and what cannot bound ($ne, $nin,
// $not, $nor, $elemMatch, $expr, geo, equality with an array, a regex without a fixed prefix) leaves the field open.

package zgw.store;

import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.MaxKey;
import de.bwaldvogel.mongo.bson.MinKey;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

final class Bounds {
    /** An interval of values in ascending value order; lo/hi are OrderedIndex.LOW/HIGH where open. */
    static final class Interval {
        final Object lo, hi;
        final boolean loInclusive, hiInclusive;

        Interval(Object lo, boolean loInclusive, Object hi, boolean hiInclusive) {
            this.lo = lo;
            this.loInclusive = loInclusive;
            this.hi = hi;
            this.hiInclusive = hiInclusive;
        }

        static Interval point(Object v) {
            return new Interval(v, true, v, true);
        }

        boolean isPoint() {
            return lo != OrderedIndex.LOW && hi != OrderedIndex.HIGH && compare(lo, hi) == 0 && loInclusive && hiInclusive;
        }

        @Override
        public String toString() {
            return (loInclusive ? "[" : "(") + lo + ", " + hi + (hiInclusive ? "]" : ")");
        }
    }

    /** Ascending value order, with LOW and HIGH beyond every value. */
    static int compare(Object x, Object y) {
        if (x == y) {
            return 0;
        }
        if (x == OrderedIndex.LOW || y == OrderedIndex.HIGH) {
            return -1;
        }
        if (x == OrderedIndex.HIGH || y == OrderedIndex.LOW) {
            return 1;
        }
        return ValueComparator.asc().compare(x, y);
    }

    /**
     * Per field, the interval sets of the conditions on it (each a sorted list of disjoint intervals). They are kept
     * apart rather than intersected, because on a multikey field each condition may hold for a different element.
     */
    final Map<String, List<List<Interval>>> fields = new LinkedHashMap<>();
    /** Fields every matching document has (so a sparse or $exists-partial index holds every match). */
    final Set<String> existing = new HashSet<>();

    static Bounds of(Document query) {
        Bounds b = new Bounds();
        for (Map.Entry<String, Object> e : query.entrySet()) {
            b.and(condition(e.getKey(), e.getValue()));
        }
        return b;
    }

    private void and(Bounds other) {
        if (other == null) {
            return;
        }
        for (Map.Entry<String, List<List<Interval>>> e : other.fields.entrySet()) {
            fields.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).addAll(e.getValue());
        }
        existing.addAll(other.existing);
    }

    /** The bounds of one top-level entry of a query (a field condition or a logical operator); null when none. */
    @SuppressWarnings("unchecked")
    private static Bounds condition(String key, Object value) {
        if (key.equals("$and") && value instanceof Collection) {
            Bounds b = new Bounds();
            for (Object part : (Collection<Object>) value) {
                if (part instanceof Document) {
                    b.and(of((Document) part));
                }
            }
            return b;
        }
        if (key.equals("$or") && value instanceof Collection) {
            Bounds union = null;
            for (Object part : (Collection<Object>) value) {
                if (!(part instanceof Document)) {
                    return null;
                }
                Bounds branch = of((Document) part);
                union = union == null ? branch : union.or(branch);
            }
            return union;
        }
        if (key.startsWith("$")) {
            return null; // $nor, $expr, $where, $text, $comment: nothing certain about a field
        }
        Bounds b = new Bounds();
        for (List<Interval> set : intervals(value, b, key)) {
            b.fields.computeIfAbsent(key, k -> new ArrayList<>()).add(set);
        }
        return b;
    }

    /** Either branch: a field is bounded when both bound it (by the union of what each allows). */
    private Bounds or(Bounds other) {
        Bounds b = new Bounds();
        for (Map.Entry<String, List<List<Interval>>> e : fields.entrySet()) {
            List<List<Interval>> theirs = other.fields.get(e.getKey());
            if (theirs == null) {
                continue;
            }
            // each side's conditions on the field all hold, so each side is within any one of them: take the narrowest
            List<Interval> mine = narrowest(e.getValue());
            List<Interval> union = new ArrayList<>(mine);
            union.addAll(narrowest(theirs));
            b.fields.put(e.getKey(), new ArrayList<>(List.of(normalize(union))));
        }
        for (String f : existing) {
            if (other.existing.contains(f)) {
                b.existing.add(f);
            }
        }
        return b;
    }

    /** Of several interval sets that all hold, the one with the fewest non-point intervals (points first). */
    static List<Interval> narrowest(List<List<Interval>> sets) {
        List<Interval> best = sets.get(0);
        for (List<Interval> s : sets) {
            if (allPoints(s) && (!allPoints(best) || s.size() < best.size())) {
                best = s;
            }
        }
        return best;
    }

    static boolean allPoints(List<Interval> set) {
        for (Interval i : set) {
            if (!i.isPoint()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The intervals each operator of a field's condition allows (none for what allows anything or cannot be read):
     * kept apart, because on an array each operator may hold for another element.
     */
    @SuppressWarnings("unchecked")
    private static List<List<Interval>> intervals(Object condition, Bounds b, String field) {
        List<List<Interval>> sets = new ArrayList<>();
        if (condition instanceof Document && isOperatorDocument((Document) condition)) {
            Document ops = (Document) condition;
            for (Map.Entry<String, Object> op : ops.entrySet()) {
                Object v = op.getValue();
                List<Interval> one;
                switch (op.getKey()) {
                    case "$eq":
                        one = equality(v, b, field);
                        break;
                    case "$in":
                        one = in(v, b, field);
                        break;
                    case "$gt":
                    case "$gte":
                    case "$lt":
                    case "$lte":
                        one = range(op.getKey(), v, b, field);
                        break;
                    case "$exists":
                        if (de.bwaldvogel.mongo.backend.Utils.isTrue(v)) {
                            b.existing.add(field);
                            one = null;
                        } else {
                            one = List.of(Interval.point(null));
                        }
                        break;
                    case "$regex":
                        Object options = ops.get("$options");
                        one = regex(new BsonRegularExpression(String.valueOf(v), options == null ? "" : String.valueOf(options)), b, field);
                        break;
                    default:
                        one = null; // $ne, $nin, $not, $size, $all, $type, $elemMatch, $mod, geo, $options
                }
                if (one != null) {
                    sets.add(one);
                }
            }
            return sets;
        }
        List<Interval> one = equality(condition, b, field);
        if (one != null) {
            sets.add(one);
        }
        return sets;
    }

    private static boolean isOperatorDocument(Document d) {
        if (d.isEmpty()) {
            return false;
        }
        for (String k : d.keySet()) {
            if (!k.startsWith("$")) {
                return false;
            }
        }
        return true;
    }

    private static boolean pointable(Object v) {
        return !(v instanceof Collection) && !(v instanceof BsonRegularExpression) && !(v instanceof MinKey) && !(v instanceof MaxKey);
    }

    private static List<Interval> equality(Object v, Bounds b, String field) {
        if (v instanceof BsonRegularExpression) {
            return regex((BsonRegularExpression) v, b, field);
        }
        if (v != null) {
            b.existing.add(field);
        }
        if (!pointable(v)) {
            return null; // an array equals the array or an element that is that array: not a range of keys
        }
        return List.of(Interval.point(v));
    }

    private static List<Interval> in(Object v, Bounds b, String field) {
        if (!(v instanceof Collection)) {
            return null;
        }
        List<Interval> set = new ArrayList<>();
        boolean nulls = false;
        for (Object x : (Collection<?>) v) {
            if (!pointable(x)) {
                return null;
            }
            nulls |= x == null;
            set.add(Interval.point(x));
        }
        if (!nulls) {
            b.existing.add(field);
        }
        return normalize(set);
    }

    private static List<Interval> range(String op, Object v, Bounds b, String field) {
        if (v == null || !pointable(v) || v instanceof Document) {
            return null;
        }
        b.existing.add(field);
        switch (op) {
            case "$gt":
                return List.of(new Interval(v, false, OrderedIndex.HIGH, true));
            case "$gte":
                return List.of(new Interval(v, true, OrderedIndex.HIGH, true));
            case "$lt":
                return List.of(new Interval(OrderedIndex.LOW, true, v, false));
            default:
                return List.of(new Interval(OrderedIndex.LOW, true, v, true));
        }
    }

    /** `^prefix` (no i/m/x flags) bounds the strings that start with the prefix. */
    private static List<Interval> regex(BsonRegularExpression r, Bounds b, String field) {
        b.existing.add(field);
        String options = r.getOptions() == null ? "" : r.getOptions();
        String p = r.getPattern();
        if (!p.startsWith("^") || options.contains("i") || options.contains("m") || options.contains("x")) {
            return null;
        }
        StringBuilder prefix = new StringBuilder();
        for (int i = 1; i < p.length(); i++) {
            char c = p.charAt(i);
            if ("\\^$.|?*+()[]{}".indexOf(c) >= 0) {
                break;
            }
            prefix.append(c);
        }
        if (prefix.length() == 0) {
            return null;
        }
        String lo = prefix.toString();
        char last = lo.charAt(lo.length() - 1);
        if (last == Character.MAX_VALUE) {
            return List.of(new Interval(lo, true, OrderedIndex.HIGH, true));
        }
        String hi = lo.substring(0, lo.length() - 1) + (char) (last + 1);
        return List.of(new Interval(lo, true, hi, false));
    }

    /** Sorted, with overlapping or touching intervals merged. */
    static List<Interval> normalize(List<Interval> set) {
        List<Interval> sorted = new ArrayList<>(set);
        sorted.sort((x, y) -> {
            int c = compare(x.lo, y.lo);
            if (c != 0) {
                return c;
            }
            return Boolean.compare(!x.loInclusive, !y.loInclusive);
        });
        List<Interval> out = new ArrayList<>();
        for (Interval i : sorted) {
            if (out.isEmpty()) {
                out.add(i);
                continue;
            }
            Interval last = out.get(out.size() - 1);
            int c = compare(i.lo, last.hi);
            if (c < 0 || (c == 0 && (i.loInclusive || last.hiInclusive))) {
                int h = compare(i.hi, last.hi);
                if (h > 0 || (h == 0 && i.hiInclusive && !last.hiInclusive)) {
                    out.set(out.size() - 1, new Interval(last.lo, last.loInclusive, i.hi, i.hiInclusive));
                }
            } else {
                out.add(i);
            }
        }
        return out;
    }

    static List<Interval> intersect(List<Interval> a, List<Interval> b) {
        List<Interval> out = new ArrayList<>();
        for (Interval x : a) {
            for (Interval y : b) {
                int lc = compare(x.lo, y.lo);
                Object lo = lc >= 0 ? x.lo : y.lo;
                boolean loInc = lc > 0 ? x.loInclusive : lc < 0 ? y.loInclusive : x.loInclusive && y.loInclusive;
                int hc = compare(x.hi, y.hi);
                Object hi = hc <= 0 ? x.hi : y.hi;
                boolean hiInc = hc < 0 ? x.hiInclusive : hc > 0 ? y.hiInclusive : x.hiInclusive && y.hiInclusive;
                int c = compare(lo, hi);
                if (c < 0 || (c == 0 && loInc && hiInc)) {
                    out.add(new Interval(lo, loInc, hi, hiInc));
                }
            }
        }
        return normalize(out);
    }

    /** A field's intervals for an index: on a multikey field one condition (the narrowest), else all intersected. */
    List<Interval> on(String field, boolean multikey) {
        List<List<Interval>> sets = fields.get(field);
        if (sets == null) {
            return null;
        }
        if (multikey) {
            return narrowest(sets);
        }
        List<Interval> out = sets.get(0);
        for (int i = 1; i < sets.size(); i++) {
            out = intersect(out, sets.get(i));
        }
        return out;
    }

    /** The query's structure without its values, for logging a shape no index serves (values may be personal data). */
    @SuppressWarnings("unchecked")
    static Object shape(Object query) {
        if (query instanceof Document) {
            Document out = new Document();
            for (Map.Entry<String, Object> e : ((Document) query).entrySet()) {
                Object v = e.getValue();
                boolean logical = e.getKey().equals("$and") || e.getKey().equals("$or") || e.getKey().equals("$nor");
                out.put(e.getKey(), logical || (v instanceof Document && isOperatorDocument((Document) v)) ? shape(v) : 1);
            }
            return out;
        }
        if (query instanceof Collection) {
            List<Object> out = new ArrayList<>();
            for (Object x : (Collection<Object>) query) {
                out.add(x instanceof Document ? shape(x) : 1);
            }
            return out;
        }
        return 1;
    }
}
