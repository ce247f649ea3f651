// A collection of the durable stand-in: documents live in memory in numbered slots (as in the library's memory
// backend) and every change of a slot is appended to the store's journal while the collection's lock is held, so the
// journal order is the order of the changes. Slots freed by deletes are reused.
//
// A slot holds where the document's BSON lies in the store's files (a locator: its record in the snapshot or the
// journal, DurableStore.document), decoded when it is read: the heap holds eight bytes a document and the indexes, the
// documents stay in the files (through memory maps, in the kernel's page cache), and a read decodes only the few
// documents its index range selects (a find answered as stored, none: storedDocuments). The indexes hold the keys, so
// counts and the choice of a page read no document.

package zgw.store;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractSynchronizedMongoCollection;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DocumentWithPosition;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.IndexBuildFailedException;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.Oplog;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

final class DurableCollection extends AbstractSynchronizedMongoCollection<Integer> {
    private final DurableStore store;
    private final Slots slots;
    /** Indexes declared while the collection is being recovered, built together in one pass (finishRecovery). */
    private final List<OrderedIndex> deferred = new ArrayList<>();
    private boolean recovering;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int live;
    private final AtomicLong dataSize = new AtomicLong();

    DurableCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors,
                      DurableStore store, Slots recovered) {
        super(database, name, options, cursors);
        this.store = store;
        this.slots = recovered != null ? recovered : new Slots();
        this.recovering = recovered != null;
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i) == 0) {
                free.add(i);
            } else {
                live++;
            }
        }
    }

    @Override
    protected Integer addDocumentInternal(Document document) {
        Integer position = free.poll();
        if (position == null) {
            position = slots.size();
        }
        keep(position, document);
        live++;
        version++;
        return position;
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        keep(position, newDocument);
        version++;
    }

    /** Appends the document's BSON to the journal and keeps in its slot where it is read from from now on. */
    private void keep(int position, Document document) {
        ByteBuf bson = Unpooled.buffer(256);
        try {
            BsonEncoder.encodeDocument(document, bson);
            slots.set(position, store.put(getFullName(), position, bson));
        } finally {
            bson.release();
        }
    }

    static Document decode(ByteBuf bson) {
        return bson == null ? null : BsonDecoder.decodeBson(bson);
    }

    /** The BSON of the document in a slot (a view of the store's file), or null when the slot is free. */
    private ByteBuf bson(int position) {
        long locator = slots.get(position);
        return locator == 0 ? null : store.document(locator);
    }

    /**
     * The documents at positions that match the query, decoded, else null: each is first read for the fields the query
     * names only, and decoded whole only when that part matches (the library's matcher then sees the whole document
     * again). A query that may read other fields ($expr and the like) has every document decoded.
     */
    private java.util.function.IntFunction<Document> matching(Document query) {
        BsonFields reader = readerOf(query);
        if (reader == null || reader.isEmpty()) {
            return this::doc;
        }
        // its own matcher: the one set for the read (`fast`) may be of a larger query than this part of it
        FastMatch own = FastMatch.of(query);
        return position -> {
            ByteBuf bson = bson(position);
            return bson != null && matches(own, reader.read(bson), query) ? decode(bson) : null;
        };
    }

    private boolean matches(FastMatch f, Document document, Document query) {
        FastMatch.Answer a = f == null ? FastMatch.Answer.ASK : f.test(document);
        return a == FastMatch.Answer.ASK ? super.documentMatchesQuery(document, query) : a == FastMatch.Answer.YES;
    }

    /** The documents at positions, each with just the fields the query names (whole, when it may read others). */
    private java.util.function.IntFunction<Document> fieldsOf(Document query) {
        BsonFields reader = readerOf(query);
        return reader == null ? this::doc : position -> reader.read(bson(position));
    }

    /** A reader of the fields a query names; null when it may read others. */
    private static BsonFields readerOf(Document query) {
        java.util.Set<String> fields = BsonFields.ofQuery(query);
        return fields == null ? null : new BsonFields(fields);
    }

    /** The document in a slot, decoded (a new object on every call: changing it changes nothing stored); null if free. */
    private Document doc(int position) {
        return decode(bson(position));
    }

    @Override
    protected void removeDocument(Integer position) {
        slots.set(position, 0);
        free.add(position);
        live--;
        version++;
        store.delete(getFullName(), position);
    }

    @Override
    protected Document getDocument(Integer position) {
        return doc(position);
    }

    /** The collection's ordered indexes (every index but a geo or text one, which serve nothing here). */
    List<OrderedIndex> orderedIndexes() {
        List<OrderedIndex> out = new ArrayList<>();
        for (Index<Integer> index : getIndexes()) {
            if (index instanceof OrderedIndex) {
                out.add((OrderedIndex) index);
            }
        }
        return out;
    }

    /**
     * Every read, count, update and delete finds its documents here: from the index the planner chooses, or by a scan
     * of every document when none serves the query (see QueryPlanner).
     */
    @Override
    protected synchronized QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                                      Document fieldSelector) {
        long started = System.nanoTime();
        try {
            // planned on the query as sent (its bounds), matched by MongoDB's rules (MatchRules)
            QueryPlanner.Plan plan = QueryPlanner.plan(orderedIndexes(), query, orderBy, limit > 0 ? numberToSkip + limit : 0);
            Document residual = plan == null ? null : MatchRules.rewrite(QueryPlanner.residual(plan, query));
            java.util.function.Predicate<Object[]> keys = plan == null ? null : QueryPlanner.keyTest(plan, residual);
            query = MatchRules.rewrite(query);
            QueryPlanner.Counters counters = ((DurableDatabase) getDatabase()).counters;
            if (plan == null) {
                QueryPlanner.count(counters, false);
                if (!QueryPlanner.SCAN.get() && !getCollectionName().startsWith("system.")) {
                    QueryPlanner.logScan(getFullName(), query, orderBy, live);
                }
                return matchDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
            }
            // an entry whose key fails is never read; a document is read for the rest of the conditions, then decoded
            java.util.function.IntFunction<Document> read = matching(residual);
            Iterator<Integer> positions = positions(plan, keys, orderBy);
            Stream<Document> documents = StreamSupport.stream(Spliterators.spliteratorUnknownSize(positions, Spliterator.ORDERED), false)
                .map(read::apply).filter(d -> d != null);
            Comparator<Document> comparator = plan.sorted ? null : deriveComparator(orderBy);
            List<Document> result;
            fast.set(FastMatch.of(query));
            try {
                result = matchDocumentsFromStream(query, documents, numberToSkip, limit, 0, comparator, fieldSelector).collectDocuments();
            } finally {
                fast.remove();
            }
            QueryPlanner.count(counters, true);
            if (verifies()) {
                List<Document> scanned = matchDocuments(query, orderBy, numberToSkip, limit, 0, fieldSelector).collectDocuments();
                QueryPlanner.verify(getFullName(), query, orderBy, plan, result, scanned);
            }
            return createQueryResult(result, batchSize);
        } finally {
            QueryTimes.record(System.nanoTime() - started);
        }
    }

    /**
     * The positions of a plan's candidates whose keys pass: in the index's order when it gives the sort, else in their
     * natural order (a sort the index does not give is then the matcher's).
     */
    private Iterator<Integer> positions(QueryPlanner.Plan plan, java.util.function.Predicate<Object[]> keys, Document orderBy) {
        return plan.sortFields.length > 0 ? QueryPlanner.sortedPositions(plan, keys)
            : IntStream.of(QueryPlanner.naturalPositions(plan, isNaturalDescending(orderBy), keys)).iterator();
    }

    /**
     * The documents a find selects, skipped and limited (0: all), each as its stored BSON copied out of the store's files,
     * for a reply that writes them as they are (DurableDatabase.findStored): of each candidate the index yields in the
     * sort's order (without a sort: in their natural order), only the fields of the conditions that neither its key nor
     * absentFrom decides are read to match it, and nothing is decoded. Null when the library's path must answer: no
     * index serves the query (in its order, when it has a sort), a condition may read fields it does not name, or there
     * would be more than `most` documents or more than `maxBytes`.
     */
    synchronized List<StoredBson> storedDocuments(Document filter, Document orderBy, int skip, int limit, int most, int maxBytes) {
        long started = System.nanoTime();
        try {
            QueryPlanner.Plan plan = QueryPlanner.plan(orderedIndexes(), filter, orderBy, limit > 0 ? skip + limit : 0);
            // (without a sort the documents come in their natural order, as queryDocuments gives them)
            if (plan == null || !(plan.sorted || orderBy == null || orderBy.isEmpty())) {
                return null;
            }
            Document residual = MatchRules.rewrite(QueryPlanner.residual(plan, filter));
            java.util.function.Predicate<Object[]> keys = QueryPlanner.keyTest(plan, residual); // takes what it decides out of residual
            // {field: {$exists: false}} decided by an index of the documents that have the field (no `_tombstone`), as counts are
            java.util.BitSet failing = null;
            for (String field : new ArrayList<>(residual.keySet())) {
                java.util.BitSet present = absentFrom(new Document(field, residual.get(field)));
                if (present != null) {
                    if (failing == null) {
                        failing = present;
                    } else {
                        failing.or(present);
                    }
                    residual.remove(field);
                }
            }
            BsonFields reader = readerOf(residual);
            if (reader == null) {
                return null;
            }
            // (null when the quicker matcher cannot judge the rest: the library's matcher then reads the fields)
            FastMatch match = FastMatch.of(residual);
            Iterator<Integer> positions = positions(plan, keys, orderBy);
            List<StoredBson> out = new ArrayList<>();
            long bytes = 0;
            int skipped = 0;
            while ((limit == 0 || out.size() < limit) && positions.hasNext()) {
                int position = positions.next();
                if (failing != null && failing.get(position)) {
                    continue;
                }
                ByteBuf bson = bson(position);
                if (bson == null || (!reader.isEmpty() && !matches(match, reader.read(bson), residual))) {
                    continue;
                }
                if (skipped < skip) {
                    skipped++;
                    continue;
                }
                bytes += bson.readableBytes();
                if (bytes > maxBytes || out.size() == most) {
                    return null;
                }
                byte[] copy = new byte[bson.readableBytes()];
                bson.getBytes(bson.readerIndex(), copy);
                out.add(new StoredBson(copy));
            }
            QueryPlanner.count(((DurableDatabase) getDatabase()).counters, true);
            if (verifies()) {
                Document query = MatchRules.rewrite(filter);
                List<Document> indexed = new ArrayList<>();
                for (StoredBson d : out) {
                    indexed.add(decode(Unpooled.wrappedBuffer(d.bytes)));
                }
                List<Document> scanned = matchDocuments(query, orderBy, skip, limit, 0, null).collectDocuments();
                QueryPlanner.verify(getFullName(), query, orderBy, plan, indexed, scanned);
            }
            return out;
        } finally {
            QueryTimes.record(System.nanoTime() - started);
        }
    }

    private final VerifySampler sampler = new VerifySampler();

    /** Under ZGW_MONGO_VERIFY: whether this query served from an index is also answered by a scan (VerifySampler). */
    boolean verifies() {
        return QueryPlanner.VERIFY && sampler.take(live);
    }

    /** Changes with every write to the collection: a remembered count holds while it has not changed. */
    private volatile long version;

    /**
     * The counts of the last queries (a list's count is asked again with every page and every client that shows it),
     * each with the version it was counted at.
     */
    private final java.util.Map<Document, long[]> counts = new java.util.LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<Document, long[]> eldest) {
            return size() > 256;
        }
    };

    /**
     * The number of documents a query matches, counted from an index where one serves it: the entries within the
     * bounds, each checked only against the conditions the bounds do not enforce. -1 when no index serves the query.
     */
    synchronized long countFromIndex(Document query) {
        long started = System.nanoTime();
        try {
            long at = version;
            long[] cached = counts.get(query);
            boolean verify = verifies();
            if (cached != null && cached[0] == at && !verify) {
                return cached[1];
            }
            QueryPlanner.Plan plan = QueryPlanner.plan(orderedIndexes(), query, null, 0);
            if (plan == null) {
                return -1;
            }
            Document residual = MatchRules.rewrite(QueryPlanner.residual(plan, query));
            java.util.function.Predicate<Object[]> keys = QueryPlanner.keyTest(plan, residual); // takes what it decides out of residual
            long n;
            fast.set(FastMatch.of(residual));
            try {
                n = QueryPlanner.count(plan, residual, keys, absentFrom(residual), fieldsOf(residual), d -> documentMatchesQuery(d, residual));
            } finally {
                fast.remove();
            }
            QueryPlanner.count(((DurableDatabase) getDatabase()).counters, true);
            if (verify) {
                long scanned = matchDocuments(MatchRules.rewrite(query), null, 0, 0, 0, null).collectDocuments().size();
                QueryPlanner.verifyCount(getFullName(), query, plan, n, scanned);
                if (cached != null && cached[0] == at && cached[1] != n) {
                    QueryPlanner.staleCount(getFullName(), query, cached[1], n);
                }
            }
            counts.put(query, new long[] {at, n});
            return n;
        } finally {
            QueryTimes.record(System.nanoTime() - started);
        }
    }

    /**
     * The groups of [{$match}, {$sort}?, {$group: {_id: {<name>: "$<field>", ...}}}] (no accumulators) read from the
     * keys of the index that serves the match, as MongoDB's DISTINCT_SCAN does: each distinct combination of the
     * fields' values once, in index order, without reading a document (but those whose key holds null: null and
     * missing index alike, so each such document is read to tell them apart, and a missing field is left out of the
     * group's _id). Null when no index serves the match,
     * holds every field (none as an array) and decides the match by its keys; the caller then groups the documents.
     */
    synchronized List<Document> groupsFromIndex(Document query, Document sort, Document id) {
        long started = System.nanoTime();
        try {
            QueryPlanner.Plan plan = QueryPlanner.plan(orderedIndexes(), query, sort, 0);
            // (a sparse index lacks the documents without any of its fields: their group would be missed)
            if (plan == null || plan.index.sparse() || id.size() > 31) {
                return null;
            }
            List<String> fields = java.util.Arrays.asList(plan.index.fields());
            String[] names = new String[id.size()];
            String[] paths = new String[id.size()];
            int[] at = new int[id.size()];
            int j = 0;
            for (java.util.Map.Entry<String, Object> e : id.entrySet()) {
                Object v = e.getValue();
                if (!(v instanceof String) || !((String) v).startsWith("$") || e.getKey().startsWith("$")) {
                    return null;
                }
                paths[j] = ((String) v).substring(1);
                at[j] = fields.indexOf(paths[j]);
                if (at[j] < 0 || plan.index.multikey(at[j])) {
                    return null;
                }
                names[j++] = e.getKey();
            }
            Document residual = MatchRules.rewrite(QueryPlanner.residual(plan, query));
            java.util.function.Predicate<Object[]> keys = QueryPlanner.keyTest(plan, residual); // takes what it decides out of residual
            java.util.BitSet failing = residual.isEmpty() ? null : absentFrom(residual);
            if (!residual.isEmpty() && failing == null) {
                return null;
            }
            OrderedIndex index = plan.index;
            // a group is its key values and which of its null values are missing fields (null and missing index alike)
            java.util.TreeSet<Object[]> groups = new java.util.TreeSet<>((x, y) -> {
                for (int i = 0; i < at.length; i++) {
                    int c = index.compareField(at[i], x[i], y[i]);
                    if (c != 0) {
                        return c;
                    }
                }
                return Integer.compare((Integer) x[at.length], (Integer) y[at.length]);
            });
            List<Document> result = new ArrayList<>();
            for (java.util.Iterator<OrderedIndex.Entry> e = QueryPlanner.entries(plan, keys); e.hasNext();) {
                OrderedIndex.Entry entry = e.next();
                if (failing != null && failing.get(entry.position)) {
                    continue;
                }
                Object[] values = new Object[at.length + 1];
                int missing = 0;
                Document read = null;
                for (int i = 0; i < at.length; i++) {
                    values[i] = entry.key[at[i]];
                    if (values[i] == null) {
                        read = read != null ? read : doc(entry.position);
                        if (Utils.getSubdocumentValueCollectionAware(read, paths[i]) instanceof Missing) {
                            missing |= 1 << i;
                        }
                    }
                }
                values[at.length] = missing;
                if (!groups.add(values)) {
                    continue;
                }
                Document group = new Document();
                for (int i = 0; i < at.length; i++) {
                    if ((missing & (1 << i)) == 0) {
                        group.put(names[i], values[i]);
                    }
                }
                result.add(new Document("_id", group));
            }
            return result;
        } finally {
            QueryTimes.record(System.nanoTime() - started);
        }
    }

    /**
     * When the only condition left is {field: {$exists: false}} and an index holds exactly the documents that have the
     * field (sparse on it alone, or partial on {field: {$exists: true}}, as the tenant-led one is: the platform's live
     * documents have no `_tombstone`), the positions that fail it: few, and no document needs to be read for the others.
     * Null otherwise.
     */
    private java.util.BitSet absentFrom(Document residual) {
        if (residual.size() != 1) {
            return null;
        }
        String field = residual.keySet().iterator().next();
        if (!new Document("$exists", false).equals(residual.get(field))) {
            return null;
        }
        for (OrderedIndex index : orderedIndexes()) {
            boolean sparseOnIt = index.sparse() && index.partialFilter() == null && index.fields().length == 1 && index.fields()[0].equals(field);
            if (sparseOnIt || new Document(field, new Document("$exists", true)).equals(index.partialFilter())) {
                java.util.BitSet present = new java.util.BitSet();
                for (OrderedIndex.Entry e : index.all(false)) {
                    present.set(e.position);
                }
                return present;
            }
        }
        return null;
    }

    /** The documents a query selects (in order, skipped and limited), for an aggregation that starts with $match. */
    synchronized List<Document> select(Document query, Document orderBy, int skip, int limit) {
        return queryDocuments(query, orderBy, skip, limit, 0, null).collectDocuments();
    }

    /** The quicker matcher of the query being read from an index (null: the library's matcher for every document). */
    private final ThreadLocal<FastMatch> fast = new ThreadLocal<>();

    @Override
    protected boolean documentMatchesQuery(Document document, Document query) {
        return matches(fast.get(), document, query);
    }

    @Override
    public synchronized Document updateDocuments(Document selector, Document updateQuery, ArrayFilters arrayFilters,
                                                 boolean isMulti, boolean isUpsert, Oplog oplog) {
        return super.updateDocuments(isUpsert ? upsertSelector(selector) : selector, updateQuery, arrayFilters, isMulti, isUpsert, oplog);
    }

    @Override
    public synchronized Document findAndModify(Document query) {
        if (Boolean.TRUE.equals(query.get("upsert")) && query.get("query") instanceof Document) {
            query = query.clone();
            query.put("query", upsertSelector((Document) query.get("query")));
        }
        return super.findAndModify(query);
    }

    /**
     * An upsert takes its new _id from the query only where the query fixes it: an equality, or an `$in` of one value
     * (as MongoDB does). The library also took the first of several `$in` values; wrapped in `$and`, the same
     * condition matches the same documents and a new document gets an ObjectId.
     */
    private static Document upsertSelector(Document selector) {
        Object id = selector.get("_id");
        if (!(id instanceof Document) || !(((Document) id).get("$in") instanceof java.util.Collection)
            || ((java.util.Collection<?>) ((Document) id).get("$in")).size() == 1) {
            return selector;
        }
        Document rest = selector.clone();
        rest.remove("_id");
        List<Object> and = new ArrayList<>();
        and.add(new Document("_id", id));
        if (!rest.isEmpty()) {
            and.add(rest);
        }
        return new Document("$and", and);
    }

    /** Builds a new index from the documents at once (sorted, then loaded), instead of one insertion per document. */
    @Override
    public synchronized void addIndex(Index<Integer> index) {
        if (index instanceof OrderedIndex) {
            OrderedIndex ordered = (OrderedIndex) index;
            ordered.documents(this::doc);
            boolean exists = getIndexes().stream().anyMatch(i -> i.getName().equals(index.getName()));
            if (!exists && live > 0) {
                if (recovering) {
                    ordered.defer();
                    deferred.add(ordered);
                } else {
                    build(List.of(ordered));
                }
            }
        }
        super.addIndex(index);
    }

    /** The collection's recovered indexes, built together: every document decoded once for all of them. */
    synchronized void finishRecovery() {
        recovering = false;
        if (!deferred.isEmpty()) {
            build(deferred);
            deferred.clear();
        }
    }

    /**
     * Builds indexes from every document: of each document only the fields the indexes read are decoded, once for all
     * of them (in parallel, in ranges of slots); its keys are collected for every index, then each index is sorted and
     * loaded at once.
     */
    private void build(List<OrderedIndex> indexes) {
        long t0 = System.nanoTime();
        int n = slots.size();
        int parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), n / 10_000));
        java.util.Set<String> needed = new java.util.TreeSet<>();
        boolean whole = false;
        for (OrderedIndex index : indexes) {
            java.util.Set<String> fields = BsonFields.of(index);
            if (fields == null) {
                whole = true;
            } else {
                needed.addAll(fields);
            }
        }
        java.util.function.Function<ByteBuf, Document> reader = whole ? DurableCollection::decode : new BsonFields(needed)::read;
        // indexes with equal partial filters (many share one): each filter is tried once per document
        java.util.Map<Document, Integer> filterIds = new java.util.HashMap<>();
        List<OrderedIndex> filters = new ArrayList<>();
        int[] filterOf = new int[indexes.size()];
        for (int i = 0; i < indexes.size(); i++) {
            OrderedIndex index = indexes.get(i);
            filterOf[i] = index.partialFilter() == null ? -1 : filterIds.computeIfAbsent(index.partialFilter(), f -> {
                filters.add(index);
                return filters.size() - 1;
            });
        }
        List<List<List<OrderedIndex.Entry>>> keys = IntStream.range(0, parts).parallel().mapToObj(part -> {
            int from = (int) ((long) n * part / parts), to = (int) ((long) n * (part + 1) / parts);
            List<List<OrderedIndex.Entry>> mine = new ArrayList<>();
            for (int i = 0; i < indexes.size(); i++) {
                mine.add(new ArrayList<>(indexes.get(i).partialFilter() == null ? to - from : 16));
            }
            for (int position = from; position < to; position++) {
                Document document = reader.apply(bson(position));
                if (document != null) {
                    shareStrings(document);
                    Boolean[] matches = new Boolean[filters.size()];
                    for (int i = 0; i < indexes.size(); i++) {
                        int f = filterOf[i];
                        if (f >= 0 && matches[f] == null) {
                            matches[f] = filters.get(f).partialMatches(document);
                        }
                        indexes.get(i).entriesOf(document, position, mine.get(i), f < 0 ? null : matches[f]);
                    }
                }
            }
            return mine;
        }).collect(java.util.stream.Collectors.toList());
        long t1 = System.nanoTime();
        // the indexes loaded side by side (each sorted on its own; a duplicate in a unique one fails the build)
        IntStream.range(0, indexes.size()).parallel().forEach(i -> {
            List<OrderedIndex.Entry> all = new ArrayList<>();
            for (List<List<OrderedIndex.Entry>> part : keys) {
                all.addAll(part.get(i));
                part.set(i, null);
            }
            try {
                indexes.get(i).load(all, this);
            } catch (MongoServerError e) {
                throw new IndexBuildFailedException(e, this);
            }
        });
        if (live >= 100_000) {
            System.out.printf("DurableCollection: %d indexes of %s over %d documents built in %d ms (keys %d ms, sorting %d ms)%n", indexes.size(),
                getFullName(), live, (System.nanoTime() - t0) / 1_000_000, (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
        }
    }

    /**
     * The document's top-level strings replaced by the shared ones (Compact) once, before its keys are made: the many
     * indexes that hold the same field then find each string by identity instead of comparing it again.
     */
    private static void shareStrings(Document document) {
        for (String field : new ArrayList<>(document.keySet())) {
            Object value = document.get(field);
            if (value instanceof String) {
                document.put(field, Compact.string((String) value));
            }
        }
    }

    /** Removes a document from every index by its position (found by a unique index, or by looking). */
    @Override
    public synchronized void removeDocument(Document document) {
        Integer position = null;
        for (Index<Integer> index : getIndexes()) {
            if (index.isUnique()) {
                position = index.getPosition(document);
                if (position != null) {
                    break;
                }
            }
        }
        if (position == null) {
            position = findDocumentPosition(document);
        }
        if (position == null || slots.get(position) == 0) {
            return;
        }
        for (Index<Integer> index : getIndexes()) {
            if (index instanceof OrderedIndex) {
                ((OrderedIndex) index).remove(document, position);
            } else {
                index.remove(document);
            }
        }
        updateDataSize(-Replies.bsonSize(document));
        removeDocument(position);
    }

    @Override
    protected QueryResult matchDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                         Document fieldSelector) {
        int n = slots.size();
        IntStream order = isNaturalDescending(orderBy) ? IntStream.range(0, n).map(i -> n - 1 - i) : IntStream.range(0, n);
        Stream<Document> documents = order.mapToObj(matching(query)).filter(d -> d != null);
        return matchDocumentsFromStream(documents, query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    @Override
    protected Stream<DocumentWithPosition<Integer>> streamAllDocumentsWithPosition() {
        return IntStream.range(0, slots.size())
            .filter(i -> slots.get(i) != 0)
            .mapToObj(i -> new DocumentWithPosition<>(doc(i), i));
    }

    @Override
    protected Integer findDocumentPosition(Document document) {
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i) != 0 && document.equals(doc(i))) {
                return i;
            }
        }
        return null;
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
