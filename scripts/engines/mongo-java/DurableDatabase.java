// A database of the durable stand-in: its collections are DurableCollections that start from what the store
// recovered; unique indexes are kept in memory and rebuilt from the documents at start (their definitions are
// documents of system.indexes, journaled like any other).

import de.bwaldvogel.mongo.backend.AbstractSynchronizedMongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.memory.index.MemoryUniqueIndex;

import java.util.List;

final class DurableDatabase extends AbstractSynchronizedMongoDatabase<Integer> {
    private final DurableStore store;

    DurableDatabase(String name, CursorRegistry cursors, DurableStore store) {
        super(name, cursors);
        this.store = store;
        initializeNamespacesAndIndexes();
    }

    @Override
    protected DurableCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        return new DurableCollection(this, collectionName, options, cursorRegistry, store,
            store.take(getDatabaseName() + "." + collectionName));
    }

    @Override
    protected Index<Integer> openOrCreateUniqueIndex(String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
        return new MemoryUniqueIndex(indexName, keys, sparse);
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
