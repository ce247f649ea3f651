package zgw.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A restart rebuilds every collection's indexes (side by side): each answers as before, a unique one still refuses. */
class RecoveryTest {
    @TempDir
    Path dir;

    /** Enough documents that each collection's build runs in several parts. */
    private static final int N = 25_000;

    /** The connection the commands come on (the library keeps each one's last status). */
    private static final EmbeddedChannel CHANNEL = new EmbeddedChannel();

    private static Document command(DurableBackend backend, String name, Document body) {
        return backend.handleCommand(CHANNEL, "db", name, body);
    }

    private static void fill(DurableBackend backend, String collection, int modulus) {
        command(backend, "createIndexes", new Document("createIndexes", collection).append("indexes", List.of(
            new Document("key", new Document("code", 1)).append("name", "code_1").append("unique", true),
            new Document("key", new Document("group", 1).append("code", -1)).append("name", "group_1_code_-1"))));
        for (int from = 0; from < N; from += 1000) {
            List<Document> batch = new ArrayList<>();
            for (int i = from; i < from + 1000; i++) {
                batch.add(new Document("_id", collection + i).append("code", collection + "-" + i).append("group", i % modulus));
            }
            command(backend, "insert", new Document("insert", collection).append("documents", batch));
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Document> find(DurableBackend backend, String collection, Document filter, Document sort, int limit) {
        Document reply = command(backend, "find", new Document("find", collection).append("filter", filter).append("sort", sort)
            .append("limit", limit).append("batchSize", limit));
        return (List<Document>) ((Document) reply.get("cursor")).get("firstBatch");
    }

    private static List<Object> codes(List<Document> documents) {
        List<Object> out = new ArrayList<>();
        for (Document d : documents) {
            out.add(d.get("code"));
        }
        return out;
    }

    @Test
    void everyCollectionsIndexesAreRebuiltAtStart() throws IOException {
        String[] collections = {"a", "b", "c"};
        List<List<Object>> before = new ArrayList<>();
        DurableBackend first = new DurableBackend(DurableStore.open(dir, false));
        try {
            for (int c = 0; c < collections.length; c++) {
                fill(first, collections[c], 7 + c);
                before.add(codes(find(first, collections[c], new Document("group", 3), new Document("code", -1), 5)));
            }
        } finally {
            first.close();
        }
        DurableBackend backend = new DurableBackend(DurableStore.open(dir, false));
        try {
            QueryPlanner.Counters counters = ((DurableDatabase) backend.resolveDatabase("db")).counters;
            for (int c = 0; c < collections.length; c++) {
                String name = collections[c];
                long scans = counters.scanned.get();
                assertEquals(before.get(c), codes(find(backend, name, new Document("group", 3), new Document("code", -1), 5)));
                assertEquals(List.of(name + "-24999"), codes(find(backend, name, new Document("code", name + "-24999"), new Document(), 1)));
                assertEquals(scans, counters.scanned.get(), "read through the rebuilt indexes, not a scan");
                Document duplicate = new Document("_id", name + "x").append("code", name + "-5").append("group", 0);
                Document refused = command(backend, "insert", new Document("insert", name).append("documents", List.of(duplicate)));
                assertEquals(11000, ((Document) ((List<?>) refused.get("writeErrors")).get(0)).get("code"), "the unique index refuses a duplicate");
                assertEquals(N, ((Number) command(backend, "count", new Document("count", name)).get("n")).intValue());
            }
        } finally {
            backend.close();
        }
    }
}
