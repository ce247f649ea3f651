// Writes the store's OP_MSG replies, as the library's encoder does, except that a document held as StoredBson (a find
// answered from the stored bytes: DurableDatabase.findStored) is written as it is, not encoded again.

package zgw.store;

import de.bwaldvogel.mongo.wire.BsonConstants;
import de.bwaldvogel.mongo.wire.OpCode;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;

final class WireEncoder extends MessageToByteEncoder<MongoMessage> {
    @Override
    protected void encode(ChannelHandlerContext ctx, MongoMessage message, ByteBuf buf) {
        buf.writeIntLE(0); // the length, set at the end
        buf.writeIntLE(message.getHeader().getRequestID());
        buf.writeIntLE(message.getHeader().getResponseTo());
        buf.writeIntLE(OpCode.OP_MSG.getId());
        buf.writeIntLE(message.getFlags());
        buf.writeByte(MongoMessage.SECTION_KIND_BODY);
        try {
            encodeDocument(message.getDocument(), buf);
        } catch (RuntimeException e) {
            System.err.println("WireEncoder: cannot encode a reply, closing the connection: " + e);
            ctx.channel().close();
            throw e;
        }
        buf.setIntLE(0, buf.writerIndex());
    }

    static void encodeDocument(Map<String, ?> document, ByteBuf out) {
        int start = out.writerIndex();
        out.writeIntLE(0);
        for (Map.Entry<String, ?> e : document.entrySet()) {
            encodeValue(e.getKey(), e.getValue(), out);
        }
        out.writeByte(BsonConstants.TERMINATING_BYTE);
        out.setIntLE(start, out.writerIndex() - start);
    }

    private static void encodeValue(String key, Object value, ByteBuf out) {
        if (value instanceof StoredBson) {
            name(BsonConstants.TYPE_EMBEDDED_DOCUMENT, key, out);
            out.writeBytes(((StoredBson) value).bytes);
        } else if (value instanceof Map) {
            name(BsonConstants.TYPE_EMBEDDED_DOCUMENT, key, out);
            @SuppressWarnings("unchecked")
            Map<String, ?> map = (Map<String, ?>) value;
            encodeDocument(map, out);
        } else if (value instanceof Collection) {
            name(BsonConstants.TYPE_ARRAY, key, out);
            int start = out.writerIndex();
            out.writeIntLE(0);
            int i = 0;
            for (Object item : (Collection<?>) value) {
                encodeValue(Integer.toString(i++), item, out);
            }
            out.writeByte(BsonConstants.TERMINATING_BYTE);
            out.setIntLE(start, out.writerIndex() - start);
        } else {
            byte type = BsonEncoder.determineType(value);
            name(type, key, out);
            BsonEncoder.encodeValue(type, value, out);
        }
    }

    private static void name(byte type, String key, ByteBuf out) {
        out.writeByte(type);
        out.writeBytes(key.getBytes(StandardCharsets.UTF_8));
        out.writeByte(BsonConstants.STRING_TERMINATION);
    }
}
