// A quicker matcher for the queries the platform sends most: conditions on top-level fields (a value, $eq, $in,
// $gt/$gte/$lt/$lte on strings, numbers, dates and booleans, $exists) joined by $and and $or. It answers for a document
// whose fields in question hold plain values; for anything else (an array, an embedded document, a dotted path, another
// operator) it answers "ask the library's matcher". Used for the documents the planner reads from an index, so every
// query it answers is also checked against the library's matcher when the store verifies (ZGW_MONGO_VERIFY).

package zgw.store;

import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.bson.Document;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

final class FastMatch {
    /** The answer for one document: it matches, it does not, or this matcher cannot tell. */
    enum Answer { YES, NO, ASK }

    private interface Condition {
        Answer test(Document document);
    }

    private final Condition root;

    private FastMatch(Condition root) {
        this.root = root;
    }

    Answer test(Document document) {
        return root.test(document);
    }

    /** The matcher for a query, or null when the query holds something it does not handle. */
    static FastMatch of(Document query) {
        Condition c = conjunction(query);
        return c == null ? null : new FastMatch(c);
    }

    @SuppressWarnings("unchecked")
    private static Condition conjunction(Document query) {
        List<Condition> all = new ArrayList<>();
        for (Map.Entry<String, Object> e : query.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            Condition c;
            if (key.equals("$and") || key.equals("$or")) {
                if (!(value instanceof Collection)) {
                    return null;
                }
                List<Condition> parts = new ArrayList<>();
                for (Object p : (Collection<Object>) value) {
                    Condition part = p instanceof Document ? conjunction((Document) p) : null;
                    if (part == null) {
                        return null;
                    }
                    parts.add(part);
                }
                c = key.equals("$and") ? all(parts) : any(parts);
            } else if (key.startsWith("$") || key.contains(".")) {
                return null;
            } else {
                c = field(key, value);
            }
            if (c == null) {
                return null;
            }
            all.add(c);
        }
        return all(all);
    }

    private static Condition all(List<Condition> parts) {
        return d -> {
            Answer result = Answer.YES;
            for (Condition c : parts) {
                Answer a = c.test(d);
                if (a == Answer.NO) {
                    return Answer.NO;
                }
                if (a == Answer.ASK) {
                    result = Answer.ASK;
                }
            }
            return result;
        };
    }

    private static Condition any(List<Condition> parts) {
        return d -> {
            Answer result = Answer.NO;
            for (Condition c : parts) {
                Answer a = c.test(d);
                if (a == Answer.YES) {
                    return Answer.YES;
                }
                if (a == Answer.ASK) {
                    result = Answer.ASK;
                }
            }
            return result;
        };
    }

    /** Values this matcher compares itself (a decimal, whose equality the library reads as a double's, it does not). */
    private static boolean plain(Object v) {
        return v instanceof String || (v instanceof Number && !(v instanceof de.bwaldvogel.mongo.bson.Decimal128)) || v instanceof Instant || v instanceof Boolean;
    }

    /** A condition on one field, or null when it is not one this matcher handles. */
    private static Condition field(String field, Object condition) {
        if (plain(condition)) {
            return equal(field, condition);
        }
        if (!(condition instanceof Document) || ((Document) condition).isEmpty()) {
            return null;
        }
        List<Condition> ops = new ArrayList<>();
        for (Map.Entry<String, Object> op : ((Document) condition).entrySet()) {
            Object operand = op.getValue();
            switch (op.getKey()) {
                case "$eq":
                    if (!plain(operand)) {
                        return null;
                    }
                    ops.add(equal(field, operand));
                    break;
                case "$in": {
                    if (!(operand instanceof Collection)) {
                        return null;
                    }
                    List<Object> values = new ArrayList<>((Collection<?>) operand);
                    for (Object x : values) {
                        if (!plain(x)) {
                            return null;
                        }
                    }
                    ops.add(value(field, v -> {
                        for (Object x : values) {
                            if (ValueComparator.compareValues(v, x) == 0) {
                                return true;
                            }
                        }
                        return false;
                    }));
                    break;
                }
                case "$gt":
                case "$gte":
                case "$lt":
                case "$lte": {
                    if (!plain(operand)) {
                        return null;
                    }
                    String name = op.getKey();
                    ops.add(value(field, v -> {
                        // only values of the operand's type compare (a number with any number)
                        boolean comparable = v instanceof Number && operand instanceof Number || v.getClass().equals(operand.getClass());
                        if (!comparable) {
                            return false;
                        }
                        int c = ValueComparator.compareValues(v, operand);
                        switch (name) {
                            case "$gt":
                                return c > 0;
                            case "$gte":
                                return c >= 0;
                            case "$lt":
                                return c < 0;
                            default:
                                return c <= 0;
                        }
                    }));
                    break;
                }
                case "$exists": {
                    boolean wanted = de.bwaldvogel.mongo.backend.Utils.isTrue(operand);
                    ops.add(d -> {
                        Object v = d.getOrMissing(field);
                        return (v instanceof Missing) != wanted ? Answer.YES : Answer.NO;
                    });
                    break;
                }
                default:
                    return null;
            }
        }
        return all(ops);
    }

    /** Equal by MongoDB's order: the same type (any number with any number) and value. */
    private static Condition equal(String field, Object operand) {
        return value(field, v -> ValueComparator.compareValues(v, operand) == 0);
    }

    private interface ValueTest {
        boolean test(Object value);
    }

    /** A test of a field's plain value; a missing or null field never meets it, an array or document asks. */
    private static Condition value(String field, ValueTest test) {
        return d -> {
            Object v = d.getOrMissing(field);
            if (v instanceof Missing || v == null) {
                return Answer.NO;
            }
            if (!plain(v)) {
                return Answer.ASK;
            }
            return test.test(v) ? Answer.YES : Answer.NO;
        };
    }
}
