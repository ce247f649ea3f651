package zgw.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.wire.message.MessageHeader;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A find an index serves in its order (or one without a sort) is answered from the documents' stored bytes: the reply
 * written is byte for byte the one the library writes for it; any other find is left to the library.
 */
class StoredFindTest {
    @TempDir
    Path dir;

    private static final EmbeddedChannel CHANNEL = new EmbeddedChannel();
    private DurableBackend backend;
    private DurableDatabase db;

    @BeforeEach
    void fill() throws IOException {
        backend = new DurableBackend(DurableStore.open(dir, false));
        db = (DurableDatabase) backend.resolveDatabase("db");
        backend.handleCommand(CHANNEL, "db", "createIndexes", new Document("createIndexes", "c").append("indexes", List.of(
            new Document("key", new Document("group", 1).append("at", 1).append("_id", 1)).append("name", "group_at_id"),
            // (as the platform's tenant-led one: partial on the documents that have the field)
            new Document("key", new Document("group", 1).append("_tombstone", 1)).append("name", "tombstone")
                .append("partialFilterExpression", new Document("_tombstone", new Document("$exists", true))))));
        List<Document> documents = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            // every kind of value the platform stores, nested too
            Document d = new Document("_id", String.format("d%03d", i)).append("group", i % 3).append("at", Instant.ofEpochMilli(1_700_000_000_000L + i * 1000L))
                .append("naam", "ë-" + i).append("n", (long) i * 1_000_000_000L).append("ratio", i / 7.0).append("ja", i % 2 == 0)
                .append("leeg", null).append("oid", new ObjectId()).append("lijst", List.of("a", i, new Document("x", i)))
                .append("sub", new Document("diep", new Document("waarde", "v" + i)).append("lijst", List.of()));
            if (i % 10 == 0) {
                d.append("_tombstone", true);
            }
            documents.add(d);
        }
        backend.handleCommand(CHANNEL, "db", "insert", new Document("insert", "c").append("documents", documents));
    }

    @AfterEach
    void close() {
        backend.close();
    }

    private static Document find(Document filter, Document sort, int skip, int limit) {
        return new Document("find", "c").append("filter", filter).append("sort", sort).append("skip", skip).append("limit", limit).append("$db", "db");
    }

    private static Document unsorted(Document filter) {
        return new Document("find", "c").append("filter", filter).append("$db", "db");
    }

    private static byte[] written(Document reply) {
        ByteBuf out = Unpooled.buffer();
        WireEncoder.encodeDocument(reply, out);
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    @Test
    void aFindAnIndexServesInItsOrderIsWrittenFromTheStoredBytesAsTheLibraryWritesIt() {
        Document live = new Document("_tombstone", new Document("$exists", false));
        List<Document> finds = List.of(
            find(new Document("group", 1).append("_tombstone", new Document("$exists", false)), new Document("at", 1).append("_id", 1), 0, 100),
            find(new Document("group", 2), new Document("at", -1).append("_id", -1), 5, 20),
            find(new Document("group", 0).append("at", new Document("$gte", Instant.ofEpochMilli(1_700_000_100_000L))), new Document("at", 1), 0, 0),
            find(new Document("group", new Document("$in", List.of(0, 2))).append("naam", new Document("$regex", "-1")), new Document("group", 1).append("at", 1), 3, 7),
            find(new Document("$and", List.of(new Document("group", 1), live)), new Document("group", 1).append("at", 1), 0, 1),
            // without a sort, in their natural order (the index gives another: group 0's, then group 2's)
            unsorted(new Document("group", new Document("$in", List.of(2, 0))).append("_tombstone", new Document("$exists", false))),
            unsorted(new Document("_id", new Document("$in", List.of("d150", "d005", "d001", "d404")))));
        for (Document command : finds) {
            Document stored = db.findStored(command);
            assertNotNull(stored, command.toString());
            List<?> batch = (List<?>) ((Document) stored.get("cursor")).get("firstBatch");
            assertTrue(!batch.isEmpty() && batch.stream().allMatch(d -> d instanceof StoredBson), command.toString());
            Document library = backend.handleCommand(CHANNEL, "db", "find", command);
            assertArrayEquals(written(library), written(stored), command.toString());
        }
    }

    @Test
    void anyOtherFindIsLeftToTheLibrary() {
        Document sort = new Document("at", 1);
        Document group = new Document("group", 1);
        assertNull(db.findStored(find(group, sort, 0, 10).append("projection", new Document("naam", 1))), "a projection");
        assertNull(db.findStored(find(group, sort, 0, 10).append("batchSize", 2)), "more than one batch");
        assertNull(db.findStored(find(group, sort, 0, 0).append("batchSize", 50)), "more than one batch, no limit");
        assertNull(db.findStored(find(new Document("naam", "ë-4"), new Document("naam", 1), 0, 10)), "no index serves it");
        assertNull(db.findStored(find(group, new Document("naam", 1), 0, 10)), "an order the index does not give");
        assertNull(db.findStored(find(group.append("$expr", new Document("$gt", List.of("$n", 0))), sort, 0, 10)), "a condition on other fields");
        assertNull(db.findStored(find(group, sort, 0, 10).append("hint", new Document("$natural", 1))), "a hint");
        assertNull(db.findStored(find(group, sort, 0, -5)), "a negative limit");
    }

    @Test
    void aFindWhoseBatchSizeHoldsAllItSelectsIsAnsweredAsStored() {
        Document command = find(new Document("group", 1), new Document("at", 1), 0, 0).append("batchSize", 100);
        Document stored = db.findStored(command);
        assertNotNull(stored);
        assertEquals(100, ((List<?>) ((Document) stored.get("cursor")).get("firstBatch")).size());
        assertArrayEquals(written(backend.handleCommand(CHANNEL, "db", "find", command)), written(stored));
    }

    @Test
    void theBackendAnswersAnOpMsgFindFromTheStoredBytes() {
        Document command = find(new Document("group", 1), new Document("at", 1), 0, 4);
        Document reply = backend.handleMessage(new MongoMessage(CHANNEL, new MessageHeader(1, 0), command));
        List<?> batch = (List<?>) ((Document) reply.get("cursor")).get("firstBatch");
        assertEquals(4, batch.size());
        assertInstanceOf(StoredBson.class, batch.get(0));
        assertArrayEquals(written(backend.handleCommand(CHANNEL, "db", "find", command)), written(reply));
    }
}
