// Reads chosen top-level fields of a BSON document without decoding the rest: building the indexes at start needs
// only the fields they name, and decoding every field of millions of documents (strings and nested documents that no
// index holds) would be most of the start's time and allocation. The values read are decoded by the library
// (BsonDecoder), so an index sees exactly what it would see in the whole document.

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.BsonConstants;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

final class BsonFields {
    private final String[] names;
    private final byte[][] utf8;

    /** A reader of these top-level field names. */
    BsonFields(Collection<String> names) {
        this.names = new TreeSet<>(names).toArray(String[]::new);
        this.utf8 = new byte[this.names.length][];
        for (int i = 0; i < this.names.length; i++) {
            utf8[i] = this.names[i].getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Whether it reads no field at all. */
    boolean isEmpty() {
        return names.length == 0;
    }

    /**
     * The top-level fields an index reads: the first part of each key path and of each field its partial filter
     * names; null when the filter may read others (MongoDB allows none such in a partial filter).
     */
    static Set<String> of(OrderedIndex index) {
        Set<String> out = new TreeSet<>();
        for (String field : index.fields()) {
            out.add(top(field));
        }
        return index.partialFilter() == null || queryFields(index.partialFilter(), out) ? out : null;
    }

    /**
     * The top-level fields a query reads (through $and, $or and $nor), or null when it may read others ($where,
     * $expr and the like): a document of just these fields matches the query exactly when the whole document does.
     */
    static Set<String> ofQuery(Document query) {
        Set<String> out = new TreeSet<>();
        return queryFields(query, out) ? out : null;
    }

    private static boolean queryFields(Document query, Set<String> out) {
        for (String key : query.keySet()) {
            Object value = query.get(key);
            if (key.equals("$and") || key.equals("$or") || key.equals("$nor")) {
                if (!(value instanceof List)) {
                    return false;
                }
                for (Object branch : (List<?>) value) {
                    if (!(branch instanceof Document) || !queryFields((Document) branch, out)) {
                        return false;
                    }
                }
            } else if (key.equals("$comment")) {
                continue;
            } else if (key.startsWith("$")) {
                return false;
            } else {
                out.add(top(key));
            }
        }
        return true;
    }

    private static String top(String path) {
        int dot = path.indexOf('.');
        return dot < 0 ? path : path.substring(0, dot);
    }

    /** A document of the chosen fields of `bson` (in the order they appear there; `bson` is left as it is); null for null. */
    Document read(ByteBuf bson) {
        if (bson == null) {
            return null;
        }
        ByteBuf buf = bson.duplicate();
        Document out = new Document();
        int end = buf.readerIndex() + buf.readIntLE();
        while (buf.readerIndex() < end) {
            byte type = buf.readByte();
            if (type == BsonConstants.TERMINATING_BYTE) {
                break;
            }
            int nameEnd = buf.indexOf(buf.readerIndex(), end, (byte) 0);
            int name = nameAt(buf, buf.readerIndex(), nameEnd - buf.readerIndex());
            buf.readerIndex(nameEnd + 1);
            if (name >= 0) {
                out.put(names[name], BsonDecoder.decodeValue(type, buf));
            } else {
                skip(type, buf);
            }
        }
        return out;
    }

    /** Which chosen name the cstring of `length` bytes at `at` is, or -1 (only names of that length are compared). */
    private int nameAt(ByteBuf bson, int at, int length) {
        for (int i = 0; i < utf8.length; i++) {
            byte[] n = utf8[i];
            if (n.length == length && sameBytes(bson, at, n)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean sameBytes(ByteBuf bson, int at, byte[] name) {
        for (int j = 0; j < name.length; j++) {
            if (bson.getByte(at + j) != name[j]) {
                return false;
            }
        }
        return true;
    }

    private static void skip(byte type, ByteBuf buf) {
        switch (type) {
            case BsonConstants.TYPE_DOUBLE:
            case BsonConstants.TYPE_UTC_DATETIME:
            case BsonConstants.TYPE_TIMESTAMP:
            case BsonConstants.TYPE_INT64:
                buf.skipBytes(8);
                break;
            case BsonConstants.TYPE_UTF8_STRING:
            case BsonConstants.TYPE_JAVASCRIPT_CODE:
            case BsonConstants.TYPE_SYMBOL:
                buf.skipBytes(buf.readIntLE());
                break;
            case BsonConstants.TYPE_EMBEDDED_DOCUMENT:
            case BsonConstants.TYPE_ARRAY:
            case BsonConstants.TYPE_JAVASCRIPT_CODE_WITH_SCOPE:
                buf.skipBytes(buf.readIntLE() - 4);
                break;
            case BsonConstants.TYPE_DATA:
                buf.skipBytes(buf.readIntLE() + 1);
                break;
            case BsonConstants.TYPE_UNDEFINED:
            case BsonConstants.TYPE_NULL:
            case BsonConstants.TYPE_MIN_KEY:
            case BsonConstants.TYPE_MAX_KEY:
                break;
            case BsonConstants.TYPE_OBJECT_ID:
                buf.skipBytes(12);
                break;
            case BsonConstants.TYPE_BOOLEAN:
                buf.skipBytes(1);
                break;
            case BsonConstants.TYPE_INT32:
                buf.skipBytes(4);
                break;
            case BsonConstants.TYPE_DECIMAL128:
                buf.skipBytes(16);
                break;
            default:
                BsonDecoder.decodeValue(type, buf); // whatever else the library reads, read and dropped
        }
    }
}
