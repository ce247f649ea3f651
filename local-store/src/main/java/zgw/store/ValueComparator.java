// The order of BSON values as MongoDB documents it ("Comparison/Sort Order"), for the local store. The store's jar is
// built with every reference of the library to its own ValueComparator pointing here instead (the shade plugin's
// relocation in pom.xml; the library's class is left out), so the library's sorts, range operators ($gt, ...),
// $min/$max and group keys, and the store's own indexes all follow one order:
//
//   MinKey < null (and a missing field) < numbers < strings < objects < arrays < binary data < ObjectId < booleans
//   < dates < timestamps < regular expressions < MaxKey
//
// Numbers of every type compare by their exact value (a long beyond 2^53 against a double, a decimal against both;
// NaN below every other number); strings by code point (the byte order of UTF-8, MongoDB's simple collation), not by
// UTF-16 unit; objects pair by pair (the type of the value, then the name, then the value; fewer pairs first); arrays
// element by element (shorter first). In a sort an array stands for its smallest element ascending and its largest
// descending, and an empty array sorts before null.
package zgw.store;

import de.bwaldvogel.mongo.backend.Missing;

import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Decimal128;
import de.bwaldvogel.mongo.bson.LegacyUUID;
import de.bwaldvogel.mongo.bson.MaxKey;
import de.bwaldvogel.mongo.bson.MinKey;
import de.bwaldvogel.mongo.bson.ObjectId;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;

public final class ValueComparator implements Comparator<Object> {
    private static final ValueComparator ASCENDING = new ValueComparator(true, true);
    private static final ValueComparator DESCENDING = new ValueComparator(false, true);
    private static final ValueComparator PLAIN = new ValueComparator(true, false);

    private final boolean ascending;
    /** As in a sort: an array stands for one of its elements. Otherwise arrays compare as arrays. */
    private final boolean sortArrays;

    private ValueComparator(boolean ascending, boolean sortArrays) {
        this.ascending = ascending;
        this.sortArrays = sortArrays;
    }

    public static ValueComparator asc() {
        return ASCENDING;
    }

    public static ValueComparator desc() {
        return DESCENDING;
    }

    public static ValueComparator ascWithoutListHandling() {
        return PLAIN;
    }

    @Override
    public ValueComparator reversed() {
        return ascending ? DESCENDING : ASCENDING;
    }

    @Override
    public int compare(Object a, Object b) {
        int c = sortArrays && (a instanceof Collection || b instanceof Collection) ? compareSortKeys(a, b) : compareValues(a, b);
        return ascending ? c : -c;
    }

    /** The rank of a value's type in MongoDB's order. */
    public static int rank(Object v) {
        if (v instanceof MinKey) {
            return 0;
        }
        if (v == null || v instanceof Missing) {
            return 1;
        }
        if (v instanceof Number) {
            return 2;
        }
        if (v instanceof String) {
            return 3;
        }
        if (v instanceof Map) {
            return 4;
        }
        if (v instanceof Collection) {
            return 5;
        }
        if (v instanceof BinData) {
            return 6;
        }
        if (v instanceof LegacyUUID) {
            return 7;
        }
        if (v instanceof UUID) {
            return 8;
        }
        if (v instanceof ObjectId) {
            return 9;
        }
        if (v instanceof Boolean) {
            return 10;
        }
        if (v instanceof Instant) {
            return 11;
        }
        if (v instanceof BsonTimestamp) {
            return 12;
        }
        if (v instanceof BsonRegularExpression) {
            return 13;
        }
        if (v instanceof MaxKey) {
            return 14;
        }
        throw new UnsupportedOperationException("can't sort " + v.getClass());
    }

    public static int compareTypes(Object a, Object b) {
        return Integer.compare(rank(a), rank(b));
    }

    /** A sort key: an array is its smallest element (largest, descending); an empty array is below null. */
    private int compareSortKeys(Object a, Object b) {
        Object x = sortKey(a), y = sortKey(b);
        boolean ex = x == EMPTY, ey = y == EMPTY;
        if (ex || ey) {
            if (ex && ey) {
                return 0;
            }
            Object other = ex ? y : x;
            int c = other instanceof MinKey ? 1 : -1; // only MinKey is below an empty array
            return ex ? c : -c;
        }
        return compareValues(x, y);
    }

    private static final Object EMPTY = new Object();

    private Object sortKey(Object v) {
        if (!(v instanceof Collection)) {
            return v;
        }
        Iterator<?> it = ((Collection<?>) v).iterator();
        if (!it.hasNext()) {
            return EMPTY;
        }
        Object best = it.next();
        while (it.hasNext()) {
            Object e = it.next();
            int c = compareValues(e, best);
            if (ascending ? c < 0 : c > 0) {
                best = e;
            }
        }
        return best;
    }

    /** MongoDB's order of two values (arrays as arrays), ascending. */
    public static int compareValues(Object a, Object b) {
        if (a == b) {
            return 0;
        }
        int ra = rank(a), rb = rank(b);
        if (ra != rb) {
            return Integer.compare(ra, rb);
        }
        switch (ra) {
            case 2:
                return compareNumbers((Number) a, (Number) b);
            case 3:
                return compareStrings((String) a, (String) b);
            case 4:
                return compareObjects((Map<?, ?>) a, (Map<?, ?>) b);
            case 5:
                return compareArrays((Collection<?>) a, (Collection<?>) b);
            case 6:
                return ((BinData) a).compareTo((BinData) b);
            case 7:
                return ((LegacyUUID) a).compareTo((LegacyUUID) b);
            case 8:
                return a.toString().compareTo(b.toString()); // hex digits in byte order
            case 9:
                return ((ObjectId) a).compareTo((ObjectId) b);
            case 10:
                return Boolean.compare((Boolean) a, (Boolean) b);
            case 11:
                return ((Instant) a).compareTo((Instant) b);
            case 12:
                return ((BsonTimestamp) a).compareTo((BsonTimestamp) b);
            case 13: {
                BsonRegularExpression x = (BsonRegularExpression) a, y = (BsonRegularExpression) b;
                int c = compareStrings(x.getPattern(), y.getPattern());
                return c != 0 ? c : compareStrings(String.valueOf(x.getOptions()), String.valueOf(y.getOptions()));
            }
            default:
                return 0; // MinKey, null and missing, MaxKey: one value each
        }
    }

    /** Strings by code point: the order of their UTF-8 bytes. */
    public static int compareStrings(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i), y = b.charAt(i);
            if (x != y) {
                // below the surrogates, and between two surrogates, a UTF-16 unit orders as its code point does
                boolean sx = Character.isSurrogate(x), sy = Character.isSurrogate(y);
                if (sx == sy) {
                    return Character.compare(x, y);
                }
                // a surrogate is part of a code point above U+FFFF: after any other unit
                return sx ? 1 : -1;
            }
        }
        return Integer.compare(a.length(), b.length());
    }

    /** Numbers by exact value, whatever their types; NaN below every other number and equal to itself. */
    static int compareNumbers(Number a, Number b) {
        if (integral(a) && integral(b)) {
            return Long.compare(a.longValue(), b.longValue());
        }
        boolean na = isNaN(a), nb = isNaN(b);
        if (na || nb) {
            return na && nb ? 0 : na ? -1 : 1;
        }
        if (!(a instanceof Decimal128) && !(b instanceof Decimal128) && !integral(a) && !integral(b)) {
            double x = a.doubleValue(), y = b.doubleValue();
            return x == y ? 0 : x < y ? -1 : 1; // -0.0 == 0.0
        }
        double da = a.doubleValue(), db = b.doubleValue();
        if (Double.isInfinite(da) || Double.isInfinite(db)) {
            return da == db ? 0 : da < db ? -1 : 1;
        }
        return exact(a).compareTo(exact(b));
    }

    private static boolean integral(Number n) {
        return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte;
    }

    private static boolean isNaN(Number n) {
        return n instanceof Decimal128 ? n.equals(Decimal128.NaN) || Double.isNaN(n.doubleValue()) : !integral(n) && Double.isNaN(n.doubleValue());
    }

    private static BigDecimal exact(Number n) {
        if (integral(n)) {
            return BigDecimal.valueOf(n.longValue());
        }
        if (n instanceof Decimal128) {
            return ((Decimal128) n).toBigDecimal();
        }
        return new BigDecimal(n.doubleValue());
    }

    /** Objects pair by pair: the type of the value, then the name, then the value; the one with fewer pairs first. */
    private static int compareObjects(Map<?, ?> a, Map<?, ?> b) {
        Iterator<? extends Map.Entry<?, ?>> x = a.entrySet().iterator(), y = b.entrySet().iterator();
        while (x.hasNext() && y.hasNext()) {
            Map.Entry<?, ?> p = x.next(), q = y.next();
            int c = Integer.compare(rank(p.getValue()), rank(q.getValue()));
            if (c == 0) {
                c = compareStrings(String.valueOf(p.getKey()), String.valueOf(q.getKey()));
            }
            if (c == 0) {
                c = compareValues(p.getValue(), q.getValue());
            }
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(x.hasNext(), y.hasNext());
    }

    private static int compareArrays(Collection<?> a, Collection<?> b) {
        Iterator<?> x = a.iterator(), y = b.iterator();
        while (x.hasNext() && y.hasNext()) {
            int c = compareValues(x.next(), y.next());
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(x.hasNext(), y.hasNext());
    }
}
