// The replies the store builds itself, in the wire protocol's shape (the library's own helpers for them are not public).

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerException;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.List;

final class Replies {
    private Replies() {
    }

    /** The size of a document as BSON, in bytes. */
    static int bsonSize(Document document) {
        ByteBuf buffer = Unpooled.buffer();
        try {
            BsonEncoder.encodeDocument(document, buffer);
            return buffer.writerIndex();
        } catch (Exception e) {
            throw new MongoServerException("Failed to calculate document size", e);
        } finally {
            buffer.release();
        }
    }

    /**
     * A whole result as the first (and only) batch of a cursor: {cursor: {id: 0, ns, firstBatch}, ok: 1}; its documents
     * decoded (Document) or as stored (StoredBson).
     */
    static Document cursor(String namespace, List<?> documents) {
        Document cursor = new Document();
        cursor.put("id", 0L);
        cursor.put("ns", namespace);
        cursor.put("firstBatch", documents);
        return ok(new Document("cursor", cursor));
    }

    /** A reply marked successful. */
    static Document ok(Document reply) {
        reply.put("ok", 1.0);
        return reply;
    }
}
