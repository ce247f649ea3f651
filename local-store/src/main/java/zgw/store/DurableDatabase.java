// A database of the durable stand-in: its collections are DurableCollections that start from what the store
// recovered. Every index is an OrderedIndex kept in memory and rebuilt from the documents at start (the definitions are
// documents of system.indexes, journaled like any other). Commands that select documents reach the QueryPlanner:
// find, count, distinct, update, delete and findAndModify through the collection, and an aggregation's leading
// $match/$sort/$skip/$limit here (the library would feed every document of the collection to the pipeline).

package zgw.store;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.AbstractSynchronizedMongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.EmptyIndex;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.IndexNotFoundException;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.Oplog;
import io.netty.channel.Channel;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

final class DurableDatabase extends AbstractSynchronizedMongoDatabase<Integer> {
    private final DurableStore store;
    /** The description of the index being created (the library passes on only its name, keys and sparse flag). */
    private final ThreadLocal<Document> creating = new ThreadLocal<>();
    final QueryPlanner.Counters counters = new QueryPlanner.Counters();

    DurableDatabase(String name, CursorRegistry cursors, DurableStore store) {
        super(name, cursors);
        this.store = store;
        initializeNamespacesAndIndexes();
        // the collections' indexes built side by side (each build is parallel too, but has parts that are not: loading
        // each sorted index, the unique check)
        opened.values().parallelStream().forEach(DurableCollection::finishRecovery);
    }

    /** Every collection opened, by name (a dropped one stays until one of its name is opened again: harmless). */
    private final Map<String, DurableCollection> opened = new ConcurrentHashMap<>();

    @Override
    protected DurableCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        DurableCollection collection = new DurableCollection(this, collectionName, options, cursorRegistry, store,
            store.take(getDatabaseName() + "." + collectionName));
        opened.put(collectionName, collection);
        return collection;
    }

    Collection<DurableCollection> collections() {
        return opened.values();
    }

    @Override
    protected synchronized void addIndex(Document indexDescription) {
        Document outer = creating.get(); // creating an index may create its collection, and that the _id index
        creating.set(indexDescription);
        try {
            super.addIndex(indexDescription);
        } finally {
            creating.set(outer);
        }
    }

    @Override
    protected Index<Integer> openOrCreateUniqueIndex(String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
        return ordered(collectionName, indexName, keys, true, sparse);
    }

    @Override
    protected Index<Integer> openOrCreateSecondaryIndex(String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
        Document description = description(collectionName, indexName);
        Document key = description == null ? null : (Document) description.get("key");
        if (key != null && key.values().stream().anyMatch(v -> v instanceof String)) {
            // 2dsphere, text, hashed: geo queries scan, as before (not empty, or adding it would read every document)
            return new EmptyIndex<>(indexName, keys) {
                @Override
                public boolean isEmpty() {
                    return false;
                }
            };
        }
        return ordered(collectionName, indexName, keys, false, sparse);
    }

    private OrderedIndex ordered(String collectionName, String indexName, List<IndexKey> keys, boolean unique, boolean sparse) {
        Document description = description(collectionName, indexName);
        Document partial = description == null ? null : (Document) description.get("partialFilterExpression");
        Object ttl = description == null ? null : description.get("expireAfterSeconds");
        return new OrderedIndex(indexName, keys, unique, sparse, partial, ttl instanceof Number ? ((Number) ttl).longValue() : null);
    }

    /** The full description of an index: the one being created, or the stored one (at start). */
    private Document description(String collectionName, String indexName) {
        Document current = creating.get();
        String ns = getDatabaseName() + "." + collectionName;
        if (current != null && indexName.equals(current.get("name"))) {
            return current;
        }
        MongoCollection<Integer> indexes = getOrCreateIndexesCollection();
        for (Document d : indexes.handleQuery(new Document("ns", ns).append("name", indexName))) {
            return d;
        }
        return null;
    }

    @Override
    public Document handleCommand(Channel channel, String command, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        if (command.equalsIgnoreCase("zgwBackup")) {
            try {
                Document response = store.backup(java.nio.file.Path.of(String.valueOf(query.get("dir"))));
                Replies.ok(response);
                return response;
            } catch (java.io.IOException e) {
                throw new MongoServerError(8000, "BackupFailed", "backup failed: " + e.getMessage());
            }
        }
        if (command.equalsIgnoreCase("zgwMemory")) {
            return HeapWatch.stats(Boolean.TRUE.equals(query.get("gc")));
        }
        if (command.equalsIgnoreCase("zgwQueryStats")) {
            return QueryTimes.stats(Boolean.TRUE.equals(query.get("reset")), counters);
        }
        Object hint = query.get("hint");
        boolean scan = hint instanceof Document && ((Document) hint).containsKey("$natural");
        if (scan) {
            QueryPlanner.SCAN.set(Boolean.TRUE);
        }
        try {
            if (command.equalsIgnoreCase("aggregate")) {
                Document response = aggregateFromIndex(query, databaseResolver, oplog);
                if (response != null) {
                    return response;
                }
            } else if (command.equalsIgnoreCase("dropIndexes") || command.equalsIgnoreCase("deleteIndexes")) {
                return dropIndexes(query.get(command).toString(), query.get("index"));
            }
            return super.handleCommand(channel, command, query, databaseResolver, oplog);
        } finally {
            QueryPlanner.SCAN.remove();
        }
    }

    /** The fields of a find command findStored answers; any other (a projection, a hint, a collation...) goes to the library. */
    private static final java.util.Set<String> STORED_FIND_FIELDS = java.util.Set.of("find", "filter", "sort", "skip", "limit", "batchSize",
        "singleBatch", "$db", "lsid", "$clusterTime", "$readPreference", "readConcern", "comment", "maxTimeMS");

    /** The most a reply's documents may hold: one batch, as MongoDB bounds it (a larger answer goes to the library). */
    private static final int MAX_BATCH_BYTES = 16 * 1024 * 1024;

    /**
     * A find that an index serves (in its order, when it has a sort), without a projection, answered in one batch from
     * the documents' stored bytes (DurableCollection.storedDocuments): they are written into the reply as they are
     * (WireEncoder), not decoded and encoded again. Null when the library answers it: any other find, or one whose
     * answer would not fit one batch (its batch size, or 16 MB).
     */
    Document findStored(Document command) {
        if (!STORED_FIND_FIELDS.containsAll(command.keySet()) || !(command.get("find") instanceof String)) {
            return null;
        }
        Object filter = command.getOrDefault("filter", new Document());
        Object sort = command.get("sort");
        int skip = intOf(command.get("skip"));
        int limit = intOf(command.get("limit"));
        int batchSize = intOf(command.get("batchSize"));
        if (!(filter instanceof Document) || (sort != null && !(sort instanceof Document)) || skip < 0 || limit < 0 || batchSize < 0) {
            return null;
        }
        MongoCollection<Integer> collection = resolveCollection((String) command.get("find"), false);
        if (!(collection instanceof DurableCollection)) {
            return null;
        }
        // (a batch size below what the find selects needs a cursor: the library's)
        int most = batchSize > 0 && (limit == 0 || batchSize < limit) ? batchSize : Integer.MAX_VALUE;
        List<StoredBson> documents = ((DurableCollection) collection).storedDocuments((Document) filter, (Document) sort, skip, limit, most, MAX_BATCH_BYTES);
        if (documents == null) {
            return null;
        }
        return Replies.cursor(collection.getFullName(), documents);
    }

    /** A whole number of a command (absent: 0); -1 when it is none. */
    private static int intOf(Object value) {
        if (value == null) {
            return 0;
        }
        return value instanceof Integer || value instanceof Long || (value instanceof Double && (Double) value == Math.rint((Double) value))
            ? ((Number) value).intValue() : -1;
    }

    /**
     * An aggregation that starts with $match: the match (with a $sort, $skip and $limit that follow it) is read through
     * the planner, and only the documents it selects go through the rest of the pipeline.
     */
    @SuppressWarnings("unchecked")
    private Document aggregateFromIndex(Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        Object p = query.get("pipeline");
        if (!(p instanceof List) || query.containsKey("let")) {
            return null;
        }
        List<Document> pipeline = Aggregation.parse(p);
        String collectionName = query.get("aggregate").toString();
        MongoCollection<Integer> collection = resolveCollection(collectionName, false);
        if (pipeline.isEmpty() || !(collection instanceof DurableCollection) || !pipeline.get(0).containsKey("$match")) {
            return null;
        }
        List<Document> matches = new ArrayList<>();
        int i = 0;
        while (i < pipeline.size() && pipeline.get(i).size() == 1 && pipeline.get(i).get("$match") instanceof Document) {
            matches.add((Document) pipeline.get(i).get("$match"));
            i++;
        }
        Document sort = null;
        int skip = 0, limit = 0;
        if (i < pipeline.size() && pipeline.get(i).get("$sort") instanceof Document) {
            sort = (Document) pipeline.get(i++).get("$sort");
        }
        if (i < pipeline.size() && pipeline.get(i).get("$skip") instanceof Number) {
            skip = ((Number) pipeline.get(i++).get("$skip")).intValue();
        }
        if (i < pipeline.size() && pipeline.get(i).get("$limit") instanceof Number) {
            limit = ((Number) pipeline.get(i++).get("$limit")).intValue();
            if (limit <= 0) {
                return null; // let the library refuse it
            }
        }
        Document match = matches.size() == 1 ? matches.get(0) : new Document("$and", matches);
        // countDocuments: [$match, $skip?, $limit?, {$group: {_id: <constant>, n: {$sum: 1}}}], counted from an index
        if (sort == null && i == pipeline.size() - 1 && isCount(pipeline.get(i))) {
            long n = ((DurableCollection) collection).countFromIndex(match);
            if (n >= 0) {
                n = Math.max(0, n - skip);
                if (limit > 0) {
                    n = Math.min(n, limit);
                }
                Document group = (Document) pipeline.get(i).get("$group");
                String field = group.keySet().stream().filter(k -> !k.equals("_id")).findFirst().orElseThrow();
                List<Document> result = n == 0 ? List.of() : List.of(new Document("_id", group.get("_id")).append(field, n > Integer.MAX_VALUE ? n : (int) n));
                return Replies.cursor(collection.getFullName(), result);
            }
        }
        // [$match, $sort?, {$group: {_id: {<name>: "$<field>", ...}}}]: the distinct keys of an index (no document read)
        Document id = skip == 0 && limit == 0 && i == pipeline.size() - 1 ? groupOfFields(pipeline.get(i)) : null;
        List<Document> groups = id == null ? null : ((DurableCollection) collection).groupsFromIndex(match, sort, id);
        if (groups != null && !((DurableCollection) collection).verifies()) {
            return Replies.cursor(collection.getFullName(), groups);
        }
        List<Document> selected = ((DurableCollection) collection).select(match, sort, skip, limit);
        Aggregation rest = Aggregation.fromPipeline(pipeline.subList(i, pipeline.size()), databaseResolver, this, collection, oplog);
        List<Document> documents = rest.runStages(selected.stream());
        if (groups != null) {
            // under VERIFY: the groups read from the index, checked against those of the documents
            QueryPlanner.verifyGroups(collection.getFullName(), match, groups, documents);
            return Replies.cursor(collection.getFullName(), groups);
        }
        return Replies.cursor(collection.getFullName(), documents);
    }

    /** The _id of {$group: {_id: {<name>: "$<field>", ...}}} (no accumulators); null for any other stage. */
    private static Document groupOfFields(Document stage) {
        if (stage.size() != 1 || !(stage.get("$group") instanceof Document)) {
            return null;
        }
        Document group = (Document) stage.get("$group");
        return group.size() == 1 && group.get("_id") instanceof Document && !((Document) group.get("_id")).isEmpty() ? (Document) group.get("_id") : null;
    }

    /** {$group: {_id: <a constant>, <name>: {$sum: 1}}}: one group counting every document. */
    private static boolean isCount(Document stage) {
        if (!(stage.get("$group") instanceof Document) || stage.size() != 1) {
            return false;
        }
        Document group = (Document) stage.get("$group");
        Object id = group.get("_id");
        if (group.size() != 2 || !group.containsKey("_id") || id instanceof Document || (id instanceof String && ((String) id).startsWith("$"))) {
            return false;
        }
        for (java.util.Map.Entry<String, Object> e : group.entrySet()) {
            if (!e.getKey().equals("_id") && !(e.getValue() instanceof Document && new Document("$sum", 1).equals(e.getValue()))) {
                return false;
            }
        }
        return true;
    }

    /** dropIndexes as MongoDB has it: "*" (all but _id), a name, a key pattern, or a list of names. */
    private Document dropIndexes(String collectionName, Object index) {
        MongoCollection<Integer> collection = resolveCollection(collectionName, false);
        if (collection == null) {
            throw new MongoServerError(26, "NamespaceNotFound", "ns not found " + getDatabaseName() + "." + collectionName);
        }
        MongoCollection<Integer> descriptions = getOrCreateIndexesCollection();
        List<Document> own = new ArrayList<>();
        for (Document d : descriptions.handleQuery(new Document("ns", collection.getFullName()))) {
            own.add(d);
        }
        List<Document> drop = new ArrayList<>();
        if ("*".equals(index)) {
            for (Document d : own) {
                if (!"_id_".equals(d.get("name"))) {
                    drop.add(d);
                }
            }
        } else {
            List<Object> wanted = index instanceof Collection ? new ArrayList<>((Collection<Object>) index) : List.of(index);
            for (Object w : wanted) {
                Document found = null;
                for (Document d : own) {
                    if (w instanceof String ? w.equals(d.get("name")) : w.equals(d.get("key"))) {
                        found = d;
                    }
                }
                if (found == null) {
                    throw new IndexNotFoundException("index not found with name [" + w + "]");
                }
                if ("_id_".equals(found.get("name"))) {
                    throw new MongoServerError(72, "InvalidOptions", "cannot drop _id index");
                }
                drop.add(found);
            }
        }
        int before = own.size();
        for (Document d : drop) {
            collection.dropIndex((String) d.get("name"));
            descriptions.deleteDocuments(new Document("ns", collection.getFullName()).append("name", d.get("name")), 1);
        }
        Document response = new Document("nIndexesWas", before);
        Replies.ok(response);
        return response;
    }

    @Override
    protected long getStorageSize() {
        return 0;
    }

    @Override
    protected long getFileSize() {
        return 0;
    }
}
