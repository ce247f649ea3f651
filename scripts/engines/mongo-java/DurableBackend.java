// The durable stand-in backend: documents in memory (the library's fast, scan-everything model) and every change in
// the DurableStore's journal, made durable before the command's reply is sent. A failed journal write stops the
// process: it must not acknowledge what it could not keep.

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractMongoBackend;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.channel.Channel;

import java.io.IOException;

final class DurableBackend extends AbstractMongoBackend {
    private final DurableStore store;

    DurableBackend(DurableStore store) {
        this.store = store;
        for (String name : store.recoveredDatabases()) {
            resolveDatabase(name);
        }
        store.endRecovery();
    }

    @Override
    protected MongoDatabase openOrCreateDatabase(String databaseName) {
        return new DurableDatabase(databaseName, getCursorRegistry(), store);
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
