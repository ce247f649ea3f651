// A collection of the durable stand-in: documents live in memory in numbered slots (as in the library's memory
// backend) and every change of a slot is appended to the store's journal while the collection's lock is held, so the
// journal order is the order of the changes. Slots freed by deletes are reused.

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractSynchronizedMongoCollection;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DocumentWithPosition;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;

final class DurableCollection extends AbstractSynchronizedMongoCollection<Integer> {
    private final DurableStore store;
    private final ArrayList<Document> slots;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int live;
    private final AtomicLong dataSize = new AtomicLong();

    DurableCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors,
                      DurableStore store, ArrayList<Document> recovered) {
        super(database, name, options, cursors);
        this.store = store;
        this.slots = recovered != null ? recovered : new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i) == null) {
                free.add(i);
            } else {
                live++;
            }
        }
    }

    @Override
    protected Integer addDocumentInternal(Document document) {
        Compact.document(document);
        Integer position = free.poll();
        if (position == null) {
            position = slots.size();
            slots.add(document);
        } else {
            slots.set(position, document);
        }
        live++;
        store.put(getFullName(), position, document);
        return position;
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        Compact.values(newDocument);
        store.put(getFullName(), position, newDocument);
    }

    @Override
    protected void removeDocument(Integer position) {
        slots.set(position, null);
        free.add(position);
        live--;
        store.delete(getFullName(), position);
    }

    @Override
    protected Document getDocument(Integer position) {
        return slots.get(position);
    }

    /**
     * The library serves a query from a unique index only when the query names exactly that index's fields, so
     * `{_id: x, _tombstone: {$exists: false}}` (the platform's lookup of a live document) would scan every document.
     * A query that also names `_id` (a value or `$in`) or all fields of another unique index (values, not arrays) is served from
     * that index here: the index gives the candidates, and the whole query is still matched against each of them. `$in`
 * on fields of a compound unique index is served by one lookup per combination of values.
     */
    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                         Document fieldSelector) {
        if (query.size() > 1) {
            for (Index<Integer> index : getIndexes()) {
                Document narrowed = new Document();
                for (IndexKey key : index.getKeys()) {
                    Object value = query.get(key.getKey());
                    if (value == null || value instanceof Collection || (value instanceof Document && !((Document) value).keySet().equals(Set.of("$in")))) {
                        narrowed = null;
                        break;
                    }
                    narrowed.put(key.getKey(), value);
                }
                if (narrowed == null) {
                    continue;
                }
                if (index.canHandle(narrowed)) {
                    return matchDocuments(query, index.getPositions(narrowed), orderBy, numberToSkip, limit, batchSize, fieldSelector);
                }
                // A compound unique index with `$in` on some of its fields (the library serves `$in` on single-field
                // indexes only): one lookup per combination of values, e.g. a file's chunks by `files_id` and numbers.
                List<Document> lookups = combinations(narrowed);
                if (lookups != null && !lookups.isEmpty() && index.canHandle(lookups.get(0))) {
                    LinkedHashSet<Integer> positions = new LinkedHashSet<>();
                    for (Document lookup : lookups) {
                        for (Integer position : index.getPositions(lookup)) {
                            positions.add(position);
                        }
                    }
                    return matchDocuments(query, positions, orderBy, numberToSkip, limit, batchSize, fieldSelector);
                }
            }
        }
        return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    /** At most this many lookups stand in for one query with `$in` on a compound index (more: the query scans). */
    private static final int MAX_LOOKUPS = 1000;

    /** The equality queries whose union a query with `$in` on some of these fields is; null when there are too many. */
    private static List<Document> combinations(Document narrowed) {
        List<Document> out = new ArrayList<>();
        out.add(new Document());
        for (String key : narrowed.keySet()) {
            Object value = narrowed.get(key);
            Collection<?> values = value instanceof Document ? (Collection<?>) ((Document) value).get("$in") : List.of(value);
            if (values == null || (long) out.size() * values.size() > MAX_LOOKUPS) {
                return null;
            }
            List<Document> next = new ArrayList<>();
            for (Document partial : out) {
                for (Object v : values) {
                    if (v == null || v instanceof Collection || v instanceof Document) {
                        return null;
                    }
                    Document d = new Document(partial);
                    d.put(key, v);
                    next.add(d);
                }
            }
            out = next;
        }
        return out;
    }

    @Override
    protected QueryResult matchDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                         Document fieldSelector) {
        int n = slots.size();
        IntStream order = isNaturalDescending(orderBy) ? IntStream.range(0, n).map(i -> n - 1 - i) : IntStream.range(0, n);
        Stream<Document> documents = order.mapToObj(slots::get).filter(d -> d != null);
        return matchDocumentsFromStream(documents, query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    @Override
    protected Stream<DocumentWithPosition<Integer>> streamAllDocumentsWithPosition() {
        return IntStream.range(0, slots.size())
            .filter(i -> slots.get(i) != null)
            .mapToObj(i -> new DocumentWithPosition<>(slots.get(i), i));
    }

    @Override
    protected Integer findDocumentPosition(Document document) {
        int position = slots.indexOf(document);
        return position < 0 ? null : position;
    }

    @Override
    public synchronized int count() {
        return live;
    }

    @Override
    public synchronized boolean isEmpty() {
        return live == 0;
    }

    @Override
    protected void updateDataSize(int sizeDelta) {
        dataSize.addAndGet(sizeDelta);
    }

    @Override
    protected int getDataSize() {
        // recovered documents are not measured at start (that would encode every one of them again)
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, dataSize.get()));
    }

    @Override
    public synchronized void drop() {
        super.drop();
        slots.clear();
        free.clear();
        live = 0;
        store.drop(getFullName());
    }

    @Override
    public synchronized void renameTo(MongoDatabase newDatabase, String newCollectionName) {
        String from = getFullName();
        super.renameTo(newDatabase, newCollectionName);
        store.rename(from, getFullName());
    }
}
