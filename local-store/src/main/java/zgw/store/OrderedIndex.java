// An index of the durable stand-in, kept as MongoDB keeps one: an ordered set of (key, position) entries, one per
// document, or one per array element for a field that holds an array (multikey). Every index the platform declares
// is one of these, _id included: unique, sparse, partial ({field: {$exists: true}} and any other filter the matcher
// understands) and TTL (expireAfterSeconds, enforced by the database's sweeper). Keys are ordered by the same value
// comparator the library sorts documents with, so walking an index gives exactly the order a sort of the documents
// gives; entries with equal keys are ordered by position (the collection's natural order), as a stable sort leaves
// them. The planner (QueryPlanner) reads ranges of it.

package zgw.store;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.CannotIndexParallelArraysError;
import de.bwaldvogel.mongo.exception.DuplicateKeyError;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

final class OrderedIndex extends Index<Integer> {
    /** Bounds of a key range: below or above every value, whatever the field's direction. */
    static final Object LOW = new Object() { public String toString() { return "MinKey"; } };
    static final Object HIGH = new Object() { public String toString() { return "MaxKey"; } };

    static final class Entry {
        final Object[] key;
        final int position;

        Entry(Object[] key, int position) {
            this.key = key;
            this.position = position;
        }
    }

    private final String[] fields;
    private final boolean[] ascending;
    private final boolean unique;
    private final boolean sparse;
    /** Documents not matching it are not in the index; null when the index is not partial. */
    private final Document partialFilter;
    /** Seconds after the date in the (single) field at which a document expires; null when not a TTL index. */
    private final Long expireAfterSeconds;
    /** Per field: some document held an array there (never reset, as in MongoDB). */
    private final boolean[] multikey;
    private final Comparator<Entry> order;
    private final EntryChunks entries;
    /** Declared, to be built with the other indexes of its collection (see defer). */
    private boolean deferred;
    private final DefaultQueryMatcher matcher = new DefaultQueryMatcher();
    /** Documents by position, to tell whether a conflicting entry belongs to the document being updated. */
    private IntFunction<Document> documents = position -> null;

    OrderedIndex(String name, List<IndexKey> keys, boolean unique, boolean sparse, Document partialFilter, Long expireAfterSeconds) {
        super(name, keys, sparse);
        this.fields = keys.stream().map(IndexKey::getKey).toArray(String[]::new);
        this.ascending = new boolean[fields.length];
        for (int i = 0; i < fields.length; i++) {
            ascending[i] = keys.get(i).isAscending();
        }
        this.unique = unique;
        this.sparse = sparse;
        this.partialFilter = partialFilter;
        this.expireAfterSeconds = expireAfterSeconds;
        this.multikey = new boolean[fields.length];
        this.order = (a, b) -> {
            int c = compareKeys(a.key, b.key);
            return c != 0 ? c : Integer.compare(a.position, b.position);
        };
        this.entries = new EntryChunks(this::compareKeys);
    }

    void documents(IntFunction<Document> documents) {
        this.documents = documents;
    }

    String[] fields() {
        return fields;
    }

    boolean ascending(int field) {
        return ascending[field];
    }

    boolean multikey(int field) {
        return multikey[field];
    }

    boolean anyMultikey() {
        for (boolean m : multikey) {
            if (m) {
                return true;
            }
        }
        return false;
    }

    Document partialFilter() {
        return partialFilter;
    }

    Long expireAfterSeconds() {
        return expireAfterSeconds;
    }

    @Override
    public boolean isUnique() {
        return unique;
    }

    @Override
    protected boolean isSparse() {
        return sparse;
    }

    boolean sparse() {
        return sparse;
    }

    @Override
    public boolean hasSameOptions(Index<?> other) {
        if (!(other instanceof OrderedIndex)) {
            return false;
        }
        OrderedIndex o = (OrderedIndex) other;
        return unique == o.unique && sparse == o.sparse && java.util.Objects.equals(partialFilter, o.partialFilter)
            && java.util.Objects.equals(expireAfterSeconds, o.expireAfterSeconds) && getKeys().toString().equals(o.getKeys().toString());
    }

    /** Compares two keys field by field in the index's directions; LOW and HIGH bound every value. */
    int compareKeys(Object[] a, Object[] b) {
        for (int i = 0; i < fields.length; i++) {
            int c = compareField(i, a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    int compareField(int i, Object x, Object y) {
        if (x == y) {
            return 0;
        }
        if (x == LOW || y == HIGH) {
            return -1;
        }
        if (x == HIGH || y == LOW) {
            return 1;
        }
        int c;
        // the common cases without the type lookup (same results)
        if (x instanceof String && y instanceof String) {
            c = ValueComparator.compareStrings((String) x, (String) y);
        } else if (x instanceof java.time.Instant && y instanceof java.time.Instant) {
            c = ((java.time.Instant) x).compareTo((java.time.Instant) y);
        } else if (x instanceof Integer && y instanceof Integer) {
            c = Integer.compare((Integer) x, (Integer) y);
        } else {
            c = ValueComparator.asc().compare(x, y);
        }
        return ascending[i] ? c : -c;
    }

    // ------------------------------------------------------------------ keys of a document

    /** Whether the document belongs in this index at all (sparse: some key field exists; partial: the filter matches). */
    private boolean indexes(Document document, Boolean partial) {
        if (partialFilter != null && !(partial != null ? partial : partialMatches(document))) {
            return false;
        }
        if (sparse) {
            for (String field : fields) {
                if (!(valueOf(document, field) instanceof Missing)) {
                    return true;
                }
            }
            return false;
        }
        return true;
    }

    /**
     * The keys of a document: one, or one per element of the (at most one) field that holds an array, equal elements
     * once. Missing and null both index as null; an empty array indexes as itself (it sorts before null).
     */
    List<Object[]> keysOf(Document document, boolean[] arrays) {
        return keysOf(document, arrays, null);
    }

    /**
     * A field's value as the library's path lookup gives it (Missing when absent), without splitting a top-level name
     * into a path (the library does that with a regular expression, for every key of every index it builds).
     */
    private static Object valueOf(Document document, String field) {
        if (field.indexOf('.') >= 0) {
            return Utils.getSubdocumentValueCollectionAware(document, field);
        }
        Object value = document.get(field);
        return value != null || document.containsKey(field) ? value : Missing.getInstance();
    }

    /** Whether the document matches the partial filter (true when there is none). */
    boolean partialMatches(Document document) {
        return partialFilter == null || matcher.matches(document, partialFilter);
    }

    /** keysOf, where the caller may already know whether the document matches the partial filter (else null). */
    private List<Object[]> keysOf(Document document, boolean[] arrays, Boolean partial) {
        if (!indexes(document, partial)) {
            return List.of();
        }
        Object[] values = new Object[fields.length];
        int arrayField = -1;
        List<String> arrayPaths = null;
        for (int i = 0; i < fields.length; i++) {
            // (a key holds null for a missing field: a top-level one needs no second lookup to tell which)
            Object value = fields[i].indexOf('.') >= 0 ? valueOf(document, fields[i]) : document.get(fields[i]);
            if (value instanceof Missing) {
                value = null;
            }
            if (value instanceof Collection) {
                if (arrays != null) {
                    arrays[i] = true;
                }
                if (arrayField >= 0) {
                    if (arrayPaths == null) {
                        arrayPaths = new ArrayList<>(List.of(fields[arrayField]));
                    }
                    arrayPaths.add(fields[i]);
                }
                arrayField = i;
            }
            values[i] = value;
        }
        if (arrayPaths != null) {
            throw new CannotIndexParallelArraysError(arrayPaths);
        }
        if (arrayField < 0) {
            return java.util.Collections.singletonList(values);
        }
        Collection<?> elements = (Collection<?>) values[arrayField];
        if (elements.isEmpty()) {
            return java.util.Collections.singletonList(values);
        }
        final int f = arrayField;
        TreeSet<Object> distinct = new TreeSet<>((x, y) -> compareField(f, x, y));
        for (Object element : elements) {
            distinct.add(element instanceof Missing ? null : element);
        }
        List<Object[]> keys = new ArrayList<>(distinct.size());
        for (Object element : distinct) {
            Object[] key = values.clone();
            key[f] = element;
            keys.add(key);
        }
        return keys;
    }

    // ------------------------------------------------------------------ the library's interface

    @Override
    public Integer getPosition(Document document) {
        if (!unique) {
            return null;
        }
        for (Object[] key : keysOf(document, null)) {
            Entry e = first(key);
            if (e != null) {
                return e.position;
            }
        }
        return null;
    }

    private Entry first(Object[] key) {
        Entry e = entries.ceiling(key, Integer.MIN_VALUE);
        return e != null && compareKeys(e.key, key) == 0 ? e : null;
    }

    /**
     * A unique index refuses a key another document holds (null counts: only a sparse index skips documents). An
     * update passes the _id of the document it changes (`updating`), which may itself be null.
     */
    private void checkUnique(Document document, boolean updating, Object self, MongoCollection<Integer> collection) {
        if (!unique) {
            return;
        }
        for (Object[] key : keysOf(document, null)) {
            for (Entry e : entries.range(key, Integer.MIN_VALUE, key, Integer.MAX_VALUE, false)) {
                Document holder = documents.apply(e.position);
                if (updating && holder != null && ValueComparator.asc().compare(holder.get("_id"), self) == 0) {
                    continue;
                }
                throw new DuplicateKeyError(collection, getName() + " dup key: " + describe(key));
            }
        }
    }

    private String describe(Object[] key) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
            parts.add(fields[i] + ": " + de.bwaldvogel.mongo.bson.Json.toCompactJsonValue(key[i]));
        }
        return parts.stream().collect(Collectors.joining(", ", "{ ", " }"));
    }

    @Override
    public void checkAdd(Document document, MongoCollection<Integer> collection) {
        keysOf(document, null); // parallel arrays
        checkUnique(document, false, null, collection);
    }

    @Override
    public void add(Document document, Integer position, MongoCollection<Integer> collection) {
        boolean[] arrays = new boolean[fields.length];
        for (Object[] key : keysOf(document, arrays)) {
            entries.add(shared(key), position);
        }
        mark(arrays);
    }

    private void mark(boolean[] arrays) {
        for (int i = 0; i < arrays.length; i++) {
            multikey[i] |= arrays[i];
        }
    }

    /** Removes the document's entries (it is at `position`); the library's remove(document) is not used. */
    void remove(Document document, int position) {
        for (Object[] key : keysOf(document, null)) {
            entries.remove(key, position);
        }
    }

    @Override
    public Integer remove(Document document) {
        Integer position = getPosition(document);
        if (position != null) {
            remove(document, position);
        }
        return position;
    }

    @Override
    public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Integer> collection) {
        keysOf(newDocument, null);
        checkUnique(newDocument, true, oldDocument.get("_id"), collection);
    }

    @Override
    public void updateInPlace(Document oldDocument, Document newDocument, Integer position, MongoCollection<Integer> collection) {
        List<Object[]> before = keysOf(oldDocument, null);
        boolean[] arrays = new boolean[fields.length];
        List<Object[]> after = keysOf(newDocument, arrays);
        if (sameKeys(before, after)) {
            return;
        }
        for (Object[] key : before) {
            entries.remove(key, position);
        }
        for (Object[] key : after) {
            entries.add(shared(key), position);
        }
        mark(arrays);
    }

    private boolean sameKeys(List<Object[]> a, List<Object[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            Object[] x = a.get(i), y = b.get(i);
            for (int f = 0; f < fields.length; f++) {
                // equal by the comparator and of the same class: 1 and 1.0 are one key, but the entry keeps the value
                if (compareField(f, x[f], y[f]) != 0 || (x[f] != null && y[f] != null && x[f].getClass() != y[f].getClass())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Adds the entries of a document at `position` to `out` (building the index from every document at once). */
    void entriesOf(Document document, int position, List<Entry> out, Boolean partial) {
        boolean[] arrays = new boolean[fields.length];
        for (Object[] key : keysOf(document, arrays, partial)) {
            out.add(new Entry(shared(key), position));
        }
        for (boolean array : arrays) {
            if (array) { // rare: the lock only then (builds read documents on several threads)
                synchronized (this) {
                    mark(arrays);
                }
                break;
            }
        }
    }

    /** Loads the index from every entry at once (start, createIndexes on a filled collection): sort, then load. */
    void load(List<Entry> all, MongoCollection<Integer> collection) {
        Entry[] sorted = all.toArray(new Entry[0]);
        all.clear();
        sort(sorted);
        if (unique) {
            for (int k = 1; k < sorted.length; k++) {
                if (compareKeys(sorted[k - 1].key, sorted[k].key) == 0 && sorted[k - 1].position != sorted[k].position) {
                    throw new DuplicateKeyError(collection, getName() + " dup key: " + describe(sorted[k].key));
                }
            }
        }
        entries.load(sorted);
        deferred = false;
    }

    /** Characters of a key's string that sortByPrefix packs into a number (8 bits each), and the bits left for the entry. */
    private static final int PREFIX_CHARS = 5;
    private static final int ENTRY_BITS = 23;
    private static final long MAX_PREFIX = (1L << (8 * PREFIX_CHARS)) - 1;

    /**
     * Sorts entries in index order. Keys whose order the first field that varies decides, a string of ASCII (a uuid, a
     * URL), are sorted first as numbers made of that string's first characters, then those with one such number by
     * comparing them whole: comparing the keys (from entry to key to string to its bytes) is what sorting a million
     * entries whose keys come in no order spends its time on.
     */
    void sort(Entry[] entries) {
        if (!sortByPrefix(entries)) {
            Arrays.parallelSort(entries, order);
        }
    }

    private boolean sortByPrefix(Entry[] entries) {
        int n = entries.length;
        if (n < 4096 || n >= (1 << ENTRY_BITS)) {
            return false;
        }
        int f = 0;
        while (f < fields.length && sameIn(entries, f)) {
            f++;
        }
        if (f == fields.length) {
            return false;
        }
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
            Object value = entries[i].key[f];
            long p = value instanceof String ? prefix((String) value) : -1;
            if (p < 0) {
                return false;
            }
            packed[i] = ((ascending[f] ? p : MAX_PREFIX - p) << ENTRY_BITS) | i;
        }
        Arrays.parallelSort(packed);
        Entry[] byPrefix = new Entry[n];
        for (int i = 0; i < n; i++) {
            byPrefix[i] = entries[(int) (packed[i] & ((1 << ENTRY_BITS) - 1))];
        }
        for (int from = 0; from < n; ) { // entries with one prefix: in full order
            int to = from + 1;
            while (to < n && packed[to] >>> ENTRY_BITS == packed[from] >>> ENTRY_BITS) {
                to++;
            }
            if (to - from > 1) {
                Arrays.sort(byPrefix, from, to, order);
            }
            from = to;
        }
        System.arraycopy(byPrefix, 0, entries, 0, n);
        return true;
    }

    /** Whether every entry holds the same value in field `f` (it then does not decide their order). */
    private boolean sameIn(Entry[] entries, int f) {
        Object first = entries[0].key[f];
        for (Entry e : entries) {
            if (compareField(f, e.key[f], first) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first PREFIX_CHARS characters of `s` as a number in their order (each one plus 1 in 8 bits, 0 past the end, so
     * a shorter string comes first); -1 when one of them is not ASCII (their order as code points is not kept then).
     */
    private static long prefix(String s) {
        long p = 0;
        for (int k = 0; k < PREFIX_CHARS; k++) {
            int c = k < s.length() ? s.charAt(k) + 1 : 0;
            if (c > 0x80) {
                return -1;
            }
            p = (p << 8) | c;
        }
        return p;
    }

    /** The index is declared but built later, with the collection's others (its collection is being recovered). */
    void defer() {
        deferred = true;
    }

    @Override
    public boolean isEmpty() {
        return !deferred && entries.isEmpty();
    }

    /**
     * A key as the index keeps it: its strings shared with equal ones (Compact), since the documents it came from are
     * decoded copies that do not stay in memory, and many keys repeat a value (a type URL, an organisation).
     */
    private static Object[] shared(Object[] key) {
        for (int i = 0; i < key.length; i++) {
            if (key[i] instanceof String) {
                key[i] = Compact.string((String) key[i]);
            }
        }
        return key;
    }

    /** The entries from `from` to `to` (keys with LOW/HIGH where a field is open), in index order or reversed. */
    Iterable<Entry> range(Object[] from, boolean fromInclusive, Object[] to, boolean toInclusive, boolean reverse) {
        Entry lo = new Entry(from, fromInclusive ? Integer.MIN_VALUE : Integer.MAX_VALUE);
        Entry hi = new Entry(to, toInclusive ? Integer.MAX_VALUE : Integer.MIN_VALUE);
        if (order.compare(lo, hi) > 0) {
            return List.of();
        }
        return entries.range(lo.key, lo.position, hi.key, hi.position, reverse);
    }

    Iterable<Entry> all(boolean reverse) {
        return entries.all(reverse);
    }

    @Override
    public boolean canHandle(Document query) {
        return false; // queries are planned by QueryPlanner, not by the library's index lookup
    }

    @Override
    public Iterable<Integer> getPositions(Document query) {
        throw new UnsupportedOperationException("planned by QueryPlanner");
    }

    @Override
    public long getCount() {
        return entries.size();
    }

    @Override
    public long getDataSize() {
        // an entry: its key array (16, and 4 a field) and its key and position in a chunk (8)
        return (long) entries.size() * (24 + 4L * fields.length);
    }

    @Override
    public void drop() {
        entries.clear();
    }

    @Override
    public Document toIndexDescription() {
        Document description = super.toIndexDescription();
        if (partialFilter != null) {
            description.put("partialFilterExpression", partialFilter);
        }
        if (expireAfterSeconds != null) {
            description.put("expireAfterSeconds", expireAfterSeconds);
        }
        return description;
    }
}
