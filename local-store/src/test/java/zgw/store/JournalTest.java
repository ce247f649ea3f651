package zgw.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal behind the store: what was committed comes back after a restart, exactly, and nothing else does. */
class JournalTest {
    @TempDir
    Path dir;

    private static byte[] bson(Document d) throws IOException {
        ByteBuf buf = Unpooled.buffer();
        try {
            BsonEncoder.encodeDocument(d, buf);
            byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }

    private Path journal() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("journal-")).findFirst().orElseThrow();
        }
    }

    @Test
    void committedChangesComeBackSlotBySlot() throws IOException {
        byte[] a = bson(new Document("_id", 1).append("x", "a"));
        byte[] b = bson(new Document("_id", 2).append("x", "b"));
        byte[] b2 = bson(new Document("_id", 2).append("x", "b, changed"));
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.endRecovery();
            store.put("zgw.zaken", 0, a);
            store.put("zgw.zaken", 1, b);
            store.put("zgw.zaken", 3, a);
            store.delete("zgw.zaken", 3);
            store.put("zgw.zaken", 1, b2);
            store.put("zgw.tmp", 0, a);
            store.rename("zgw.tmp", "zgw.rollen");
            store.put("zgw.weg", 0, a);
            store.drop("zgw.weg");
            store.commitThread();
        }
        try (DurableStore store = DurableStore.open(dir, true)) {
            assertEquals(java.util.Set.of("zgw"), store.recoveredDatabases());
            ArrayList<byte[]> zaken = store.take("zgw.zaken");
            assertEquals(4, zaken.size());
            assertArrayEquals(a, zaken.get(0));
            assertArrayEquals(b2, zaken.get(1), "the last write of a slot wins");
            assertNull(zaken.get(2));
            assertNull(zaken.get(3), "a deleted slot stays empty");
            assertArrayEquals(a, store.take("zgw.rollen").get(0), "a renamed collection keeps its documents");
            assertNull(store.take("zgw.tmp"));
            assertNull(store.take("zgw.weg"), "a dropped collection is gone");
        }
    }

    @Test
    void anUnfinishedLastRecordIsCutOffAndWhatCameBeforeIsKept() throws IOException {
        byte[] a = bson(new Document("_id", 1));
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.endRecovery();
            store.put("zgw.zaken", 0, a);
            store.commitThread();
        }
        Path journal = journal();
        long committed = Files.size(journal);
        // a crash halfway through the next record: its length and checksum written, half of its bytes
        Files.write(journal, new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 1, 2, 3}, StandardOpenOption.APPEND);
        try (DurableStore store = DurableStore.open(dir, true)) {
            assertArrayEquals(a, store.take("zgw.zaken").get(0));
        }
        assertEquals(committed, Files.size(journal), "the torn record is cut off the file");
    }

    @Test
    void aRecordWhoseChecksumFailsEndsTheJournal() throws IOException {
        byte[] a = bson(new Document("_id", 1));
        byte[] b = bson(new Document("_id", 2));
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.endRecovery();
            store.put("zgw.zaken", 0, a);
            store.commitThread();
        }
        long first = Files.size(journal());
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.take("zgw.zaken");
            store.endRecovery();
            store.put("zgw.zaken", 1, b);
            store.commitThread();
        }
        try (RandomAccessFile f = new RandomAccessFile(journal().toFile(), "rw")) {
            f.seek(first + 12); // inside the second record's payload
            f.write(f.read() ^ 0xff);
        }
        try (DurableStore store = DurableStore.open(dir, true)) {
            ArrayList<byte[]> zaken = store.take("zgw.zaken");
            assertEquals(1, zaken.size(), "nothing of a damaged record is applied");
            assertArrayEquals(a, zaken.get(0));
        }
    }

    @Test
    void aStoreOpenInOneProcessIsNotOpenedTwice() throws IOException {
        try (DurableStore store = DurableStore.open(dir, true)) {
            IOException e = assertThrows(IOException.class, () -> DurableStore.open(dir, true));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
    }

    @Test
    void aDamagedSnapshotIsRefusedRatherThanReadInPart() throws IOException {
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.endRecovery();
        }
        // a header, then a record whose payload ends early
        Files.write(dir.resolve("snapshot"), new byte[] {'Z', 'G', 'W', 'S', 'N', 'A', 'P', '1', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 1, 2});
        assertThrows(IOException.class, () -> DurableStore.open(dir, true));
    }
}
