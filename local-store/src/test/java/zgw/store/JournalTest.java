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

    /** The BSON in slot i as the store reads it (null when free). */
    private static byte[] at(DurableStore store, Slots slots, int i) {
        long locator = slots.get(i);
        if (locator == 0) {
            return null;
        }
        ByteBuf b = store.document(locator);
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
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
            store.put("zgw.zaken", 0, Unpooled.wrappedBuffer(a));
            store.put("zgw.zaken", 1, Unpooled.wrappedBuffer(b));
            store.put("zgw.zaken", 3, Unpooled.wrappedBuffer(a));
            store.delete("zgw.zaken", 3);
            store.put("zgw.zaken", 1, Unpooled.wrappedBuffer(b2));
            store.put("zgw.tmp", 0, Unpooled.wrappedBuffer(a));
            store.rename("zgw.tmp", "zgw.rollen");
            store.put("zgw.weg", 0, Unpooled.wrappedBuffer(a));
            store.drop("zgw.weg");
            store.commitThread();
        }
        try (DurableStore store = DurableStore.open(dir, true)) {
            assertEquals(java.util.Set.of("zgw"), store.recoveredDatabases());
            Slots zaken = store.take("zgw.zaken");
            assertEquals(4, zaken.size());
            assertArrayEquals(a, at(store, zaken, 0));
            assertArrayEquals(b2, at(store, zaken, 1), "the last write of a slot wins");
            assertNull(at(store, zaken, 2));
            assertNull(at(store, zaken, 3), "a deleted slot stays empty");
            assertArrayEquals(a, at(store, store.take("zgw.rollen"), 0), "a renamed collection keeps its documents");
            assertNull(store.take("zgw.tmp"));
            assertNull(store.take("zgw.weg"), "a dropped collection is gone");
        }
    }

    @Test
    void anUnfinishedLastRecordIsCutOffAndWhatCameBeforeIsKept() throws IOException {
        byte[] a = bson(new Document("_id", 1));
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.endRecovery();
            store.put("zgw.zaken", 0, Unpooled.wrappedBuffer(a));
            store.commitThread();
        }
        Path journal = journal();
        long committed = Files.size(journal);
        // a crash halfway through the next record: its length and checksum written, half of its bytes
        Files.write(journal, new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 1, 2, 3}, StandardOpenOption.APPEND);
        try (DurableStore store = DurableStore.open(dir, true)) {
            assertArrayEquals(a, at(store, store.take("zgw.zaken"), 0));
        }
        assertEquals(committed, Files.size(journal), "the torn record is cut off the file");
    }

    @Test
    void aRecordWhoseChecksumFailsEndsTheJournal() throws IOException {
        byte[] a = bson(new Document("_id", 1));
        byte[] b = bson(new Document("_id", 2));
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.endRecovery();
            store.put("zgw.zaken", 0, Unpooled.wrappedBuffer(a));
            store.commitThread();
        }
        long first = Files.size(journal());
        try (DurableStore store = DurableStore.open(dir, true)) {
            store.take("zgw.zaken");
            store.endRecovery();
            store.put("zgw.zaken", 1, Unpooled.wrappedBuffer(b));
            store.commitThread();
        }
        try (RandomAccessFile f = new RandomAccessFile(journal().toFile(), "rw")) {
            f.seek(first + 12); // inside the second record's payload
            f.write(f.read() ^ 0xff);
        }
        try (DurableStore store = DurableStore.open(dir, true)) {
            Slots zaken = store.take("zgw.zaken");
            assertEquals(1, zaken.size(), "nothing of a damaged record is applied");
            assertArrayEquals(a, at(store, zaken, 0));
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

    @Test
    void aDocumentIsReadTheSameBeforeItIsWrittenAfterAndAfterARestartAcrossSegmentEnds() throws IOException {
        long segment = MappedFile.segment;
        MappedFile.segment = 4096; // records on both sides of many segments' ends
        try {
            byte[][] docs = new byte[60][];
            long[] locators = new long[docs.length];
            try (DurableStore store = DurableStore.open(dir, true)) {
                store.endRecovery();
                for (int i = 0; i < docs.length; i++) {
                    docs[i] = bson(new Document("_id", i).append("x", "y".repeat(300 + 97 * i)));
                    locators[i] = store.put("zgw.zaken", i, Unpooled.wrappedBuffer(docs[i]));
                    assertArrayEquals(docs[i], at(store, slotsOf(locators, i + 1), i), "read while only appended");
                    if (i % 7 == 0) {
                        store.commitThread();
                    }
                }
                store.commitThread();
                Slots all = slotsOf(locators, docs.length);
                for (int i = 0; i < docs.length; i++) {
                    assertArrayEquals(docs[i], at(store, all, i), "read from the file");
                }
            }
            try (DurableStore store = DurableStore.open(dir, true)) {
                Slots zaken = store.take("zgw.zaken");
                for (int i = 0; i < docs.length; i++) {
                    assertArrayEquals(docs[i], at(store, zaken, i), "read after a restart");
                }
            }
        } finally {
            MappedFile.segment = segment;
        }
    }

    @Test
    void aFoldedJournalLeavesEachDocumentReadableFromTheNewSnapshot() throws IOException {
        byte[][] last = new byte[3][];
        try (DurableStore store = DurableStore.open(dir, false)) {
            store.endRecovery();
            // more than 64 MB of journal over a few slots: folded at the next start
            for (int round = 0; round < 24; round++) {
                for (int slot = 0; slot < 3; slot++) {
                    String data = String.valueOf((char) ('A' + round)).repeat(1 << 20);
                    last[slot] = bson(new Document("_id", slot).append("round", round).append("data", data));
                    store.put("zgw.documenten", slot, Unpooled.wrappedBuffer(last[slot]));
                }
            }
            store.commitThread();
        }
        for (int start = 0; start < 2; start++) {
            try (DurableStore store = DurableStore.open(dir, false)) {
                Slots docs = store.take("zgw.documenten");
                for (int slot = 0; slot < 3; slot++) {
                    assertArrayEquals(last[slot], at(store, docs, slot), "start " + start + ", slot " + slot);
                }
                store.endRecovery();
            }
            assertTrue(Files.size(dir.resolve("snapshot")) > 3 << 20, "the journal was folded into the snapshot");
        }
    }

    private static Slots slotsOf(long[] locators, int n) {
        Slots slots = new Slots();
        for (int i = 0; i < n; i++) {
            slots.set(i, locators[i]);
        }
        return slots;
    }
}
