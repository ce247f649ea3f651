// The durable stand-in backend: documents in memory (the library's fast, scan-everything model) and every change in
// the DurableStore's journal, made durable before the command's reply is sent. A failed journal write stops the
// process: it must not acknowledge what it could not keep.

package zgw.store;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractMongoBackend;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.channel.Channel;

import de.bwaldvogel.mongo.oplog.NoopOplog;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

final class DurableBackend extends AbstractMongoBackend {
    private final DurableStore store;

    private final List<DurableDatabase> databases = new CopyOnWriteArrayList<>();

    DurableBackend(DurableStore store) {
        this.store = store;
        long t0 = System.nanoTime();
        int n = 0;
        for (String name : store.recoveredDatabases()) {
            resolveDatabase(name);
            n++;
        }
        store.endRecovery();
        System.out.printf("DurableBackend: %d databases and their indexes ready in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
        Thread sweeper = new Thread(this::sweepExpired, "ttl-sweeper");
        sweeper.setDaemon(true);
        sweeper.start();
    }

    @Override
    protected MongoDatabase openOrCreateDatabase(String databaseName) {
        DurableDatabase database = new DurableDatabase(databaseName, getCursorRegistry(), store);
        databases.add(database);
        return database;
    }

    /** Seconds between two passes of the TTL sweeper (MongoDB's TTL monitor runs every 60 seconds). */
    static final long TTL_SECONDS = Long.parseLong(System.getenv().getOrDefault("ZGW_MONGO_TTL_SECONDS", "60"));

    /**
     * Removes the documents a TTL index says have expired: those whose indexed date (the earliest, for an array of
     * dates) lies more than expireAfterSeconds in the past, as MongoDB's TTL monitor does. Each removal is journaled
     * like any delete.
     */
    private void sweepExpired() {
        while (true) {
            try {
                Thread.sleep(TTL_SECONDS * 1000);
                Instant now = Instant.now();
                for (DurableDatabase database : databases) {
                    for (DurableCollection collection : database.collections()) {
                        for (OrderedIndex index : collection.orderedIndexes()) {
                            if (index.expireAfterSeconds() == null || index.fields().length != 1) {
                                continue;
                            }
                            Instant cutoff = now.minusSeconds(index.expireAfterSeconds());
                            int removed = collection.deleteDocuments(new Document(index.fields()[0], new Document("$lt", cutoff)), 0, NoopOplog.get());
                            commit();
                            if (removed > 0) {
                                System.out.println("DurableBackend: removed " + removed + " expired documents from " + collection.getFullName());
                            }
                        }
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                System.err.println("DurableBackend: the TTL sweep failed, trying again in " + TTL_SECONDS + " s: " + e);
            }
        }
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        try {
            return super.handleCommand(channel, databaseName, command, query);
        } finally {
            commit();
        }
    }

    @Override
    public Document handleMessage(MongoMessage message) {
        try {
            // (an OP_MSG reply is written by WireEncoder, which sends documents answered as stored as they are)
            Document query = message.getDocument();
            if ("find".equals(query.keySet().iterator().next())) {
                Document reply = ((DurableDatabase) resolveDatabase(message.getDatabaseName())).findStored(query);
                if (reply != null) {
                    return reply;
                }
            }
            return super.handleMessage(message);
        } finally {
            commit();
        }
    }

    @Override
    public QueryResult handleQuery(MongoQuery query) {
        try {
            return super.handleQuery(query);
        } finally {
            commit();
        }
    }

    @Override
    public void dropDatabase(String databaseName) {
        try {
            super.dropDatabase(databaseName);
        } finally {
            commit();
        }
    }

    private void commit() {
        try {
            store.commitThread();
        } catch (IOException e) {
            System.err.println("DurableBackend: cannot write the journal, stopping so that nothing unkept is acknowledged: " + e);
            System.err.flush();
            Runtime.getRuntime().halt(70);
        }
    }

    @Override
    public void close() {
        super.close();
        try {
            store.close();
        } catch (IOException e) {
            System.err.println("DurableBackend: closing the journal failed: " + e);
        }
    }
}
