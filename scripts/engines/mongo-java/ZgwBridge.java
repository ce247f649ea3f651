// The few package-private helpers of the library that the durable stand-in needs, reached from the library's package.
package de.bwaldvogel.mongo.backend;

import de.bwaldvogel.mongo.bson.Document;

import java.util.List;

public final class ZgwBridge {
    private ZgwBridge() {
    }

    public static int calculateSize(Document document) {
        return Utils.calculateSize(document);
    }

    public static Document cursorResponse(String namespace, List<Document> documents) {
        return Utils.firstBatchCursorResponse(namespace, documents);
    }

    public static void markOkay(Document response) {
        Utils.markOkay(response);
    }
}
