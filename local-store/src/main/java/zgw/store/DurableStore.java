// The files behind the durable stand-in (DurableBackend): a snapshot and a write-ahead journal in one folder.
//
//   snapshot        header "ZGWSNAP1" + generation, then one PUT record per stored document
//   journal-<gen>   header "ZGWJRNL1" + generation, then every change since that snapshot, in order
//
// A record is [int length][int crc32 of the payload][payload]; the payload is [byte type][namespace][int position]
// followed by the document (PUT, as BSON) or the new namespace (RENAME). Records are physical: "the document at this
// slot of db.collection is now X / is gone", so replaying them is exact, whatever the command that caused them.
//
// Durability: a write command appends its records while it runs and, before its reply goes out, the thread calls
// commitThread(), which writes everything appended so far and fsyncs it (group commit: one fsync covers every thread
// waiting). So a reply the client sees means its change is on disk; kill -9 or a power cut loses nothing acknowledged.
// A torn record at the end of the journal (a crash during a write) is cut off at the next start.
//
// Start: snapshot + journal are checked record by record; each document stays where its record is, in the file, and
// the collections keep only where (a locator: which file, at which byte), so the heap holds the indexes and not the
// documents. Both files are read through memory maps (MappedFile); a document appended but not yet written is read
// from the buffer that holds it until it is. When the journal has grown large it is folded into a new snapshot
// (written aside, fsynced, renamed over the old one), so a restart never replays an ever-growing history. The journal
// is extended ahead of what is written (sparse: no disk is used for it), so its maps never reach past the file's end;
// a clean stop cuts it back.

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.zip.CRC32;

final class DurableStore implements Closeable {
    static final byte PUT = 1, DELETE = 2, DROP = 3, RENAME = 4;
    private static final byte[] SNAPSHOT_MAGIC = "ZGWSNAP1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] JOURNAL_MAGIC = "ZGWJRNL1".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = 16;
    private static final int MAX_RECORD = 64 << 20;
    /** A journal larger than this (and than half the snapshot) is folded into a new snapshot at start. */
    private static final long FOLD_MIN_BYTES = 64L << 20;
    /** The locator's bit that says a document lies in the journal (else in the snapshot); 0 is no document. */
    static final long IN_JOURNAL = 1L << 62;
    /**
     * ZGW_MONGO_FOLD=1: the journal is folded at this start whatever its size, so the records of documents since
     * rewritten leave the files (after an upgrade that sealed values stored in the clear; docs/personal-data.md).
     */
    private static final boolean FOLD_ALWAYS = "1".equals(System.getenv("ZGW_MONGO_FOLD"));

    private final Path dir;
    private final boolean fsync;
    private final FileChannel lockChannel;
    private final FileLock lock;
    /** namespace ("db.collection") -> the locators of its documents by slot, until the collection is opened (take). */
    private final Map<String, Slots> recovered = new LinkedHashMap<>();

    private FileChannel journal;
    private long generation;
    private FileChannel snapshotChannel;
    private MappedFile snapshotMap;
    private MappedFile journalMap;
    /** The journal as read at start, until it is opened for writing (openJournal). */
    private FileChannel recoveredJournal;
    /** The journal's length: every record up to here is in the file (readable through its map). */
    private volatile long writtenEnd;
    /** How long the journal file is made (ahead of writtenEnd: see reserve); under flushLock. */
    private long reserved;

    // appended records not yet written, and the file offset they will be written at; guarded by `this`
    private ByteBuf pending = Unpooled.buffer(1 << 16);
    private long pendingStart;
    // records being written by flush, and their offset; guarded by `this`
    private ByteBuf inFlight;
    private long inFlightStart;
    private long appended;
    // written and fsynced up to this sequence number; advanced under flushLock
    private volatile long durable;
    private final Object flushLock = new Object();
    private volatile IOException failure;
    private final ThreadLocal<long[]> lastOfThread = ThreadLocal.withInitial(() -> new long[1]);

    private DurableStore(Path dir, boolean fsync) throws IOException {
        this.dir = dir;
        this.fsync = fsync;
        Files.createDirectories(dir);
        lockChannel = FileChannel.open(dir.resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = lockChannel.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException e) {
            held = null; // this process has it open already
        }
        if (held == null) {
            lockChannel.close();
            throw new IOException("the store in " + dir + " is in use by another process or already open in this one");
        }
        lock = held;
    }

    /** Opens (or creates) the store in dir: reads the snapshot and replays the journal into memory. */
    static DurableStore open(Path dir, boolean fsync) throws IOException {
        DurableStore store = new DurableStore(dir, fsync);
        store.recover();
        return store;
    }

    // ------------------------------------------------------------------ recovery

    private void recover() throws IOException {
        long t0 = System.nanoTime();
        Path snapshot = dir.resolve("snapshot");
        long snapshotBytes = 0;
        long documents = 0;
        if (Files.exists(snapshot)) {
            snapshotBytes = Files.size(snapshot);
            try (DataInputStream in = input(snapshot)) {
                generation = readHeader(in, SNAPSHOT_MAGIC, snapshot);
                long[] read = replay(in, snapshot, true, 0);
                documents = read[1];
            }
            mapSnapshot(snapshot);
        }
        Path journalFile = journalPath(generation);
        long journalBytes = 0;
        long changes = 0;
        if (Files.exists(journalFile)) {
            long valid = HEADER;
            try (DataInputStream in = input(journalFile)) {
                if (readHeaderOrEmpty(in, journalFile) == generation) {
                    long[] read = replay(in, journalFile, false, IN_JOURNAL);
                    valid = HEADER + read[0];
                    changes = read[1];
                } else {
                    valid = 0; // no complete header: nothing was ever committed to it
                }
            }
            long size = Files.size(journalFile);
            if (valid < size) {
                System.out.println("DurableStore: cutting " + (size - valid) + " bytes after the last complete record off " + journalFile.getFileName()
                    + " (the tail of a write a stop interrupted, and the space kept ahead)");
            }
            journalBytes = valid;
            if (valid < HEADER) {
                Files.delete(journalFile);
            } else if (valid < size) {
                try (FileChannel ch = FileChannel.open(journalFile, StandardOpenOption.WRITE)) {
                    ch.truncate(valid);
                    ch.force(true);
                }
            }
            if (valid >= HEADER) {
                // (the fold reads the journal's documents where they are; openJournal maps it anew)
                recoveredJournal = FileChannel.open(journalFile, StandardOpenOption.READ);
                journalMap = new MappedFile(recoveredJournal);
                writtenEnd = valid;
                pendingStart = valid;
            }
        }
        removeStrayFiles();
        if ((FOLD_ALWAYS && changes > 0) || (journalBytes > FOLD_MIN_BYTES && journalBytes > snapshotBytes / 2)) {
            writeSnapshot(generation + 1);
        }
        openJournal();
        System.out.printf("DurableStore: opened %s in %d ms: %d namespaces, snapshot %d documents (%d MB), journal %d changes (%d MB), fsync %s%n",
            dir, (System.nanoTime() - t0) / 1_000_000, recovered.size(), documents, snapshotBytes >> 20, changes, journalBytes >> 20,
            fsync ? "on" : "off");
    }

    private static DataInputStream input(Path file) throws IOException {
        return new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20));
    }

    private static long readHeader(DataInputStream in, byte[] magic, Path file) throws IOException {
        byte[] got = new byte[magic.length];
        in.readFully(got);
        if (!Arrays.equals(got, magic)) {
            throw new IOException(file + " is not a store file of this version");
        }
        return in.readLong();
    }

    /** The journal's generation, or -1 when its header is incomplete (a crash right after creating it). */
    private static long readHeaderOrEmpty(DataInputStream in, Path file) throws IOException {
        try {
            return readHeader(in, JOURNAL_MAGIC, file);
        } catch (EOFException e) {
            return -1;
        }
    }

    /**
     * Applies the records of in to the recovered state; returns {bytes of complete records, records}. In the journal a
     * short or corrupt record ends the replay (the tail of a write a crash interrupted); in a snapshot it is an error.
     */
    private long[] replay(DataInputStream in, Path file, boolean strict, long inFile) throws IOException {
        long bytes = 0;
        long records = 0;
        CRC32 crc = new CRC32();
        byte[] buf = new byte[1 << 16];
        while (true) {
            int length;
            int sum;
            try {
                length = in.readInt();
                sum = in.readInt();
            } catch (EOFException e) {
                break;
            }
            if (length <= 0 || length > MAX_RECORD) {
                if (strict) {
                    throw new IOException(file + ": bad record length " + length + " at byte " + (HEADER + bytes));
                }
                break;
            }
            if (buf.length < length) {
                buf = new byte[Math.max(length, buf.length * 2)];
            }
            try {
                in.readFully(buf, 0, length);
            } catch (EOFException e) {
                if (strict) {
                    throw new IOException(file + ": truncated at byte " + (HEADER + bytes));
                }
                break;
            }
            crc.reset();
            crc.update(buf, 0, length);
            if ((int) crc.getValue() != sum) {
                if (strict) {
                    throw new IOException(file + ": checksum mismatch at byte " + (HEADER + bytes));
                }
                break;
            }
            apply(Unpooled.wrappedBuffer(buf, 0, length), inFile | (HEADER + bytes + 8));
            bytes += 8 + length;
            records++;
        }
        return new long[] {bytes, records};
    }

    /** Applies one record whose payload starts at locator `at` (its file's bit and its offset there). */
    private void apply(ByteBuf record, long at) {
        byte type = record.readByte();
        String ns = readString(record);
        int position = record.readInt();
        switch (type) {
            case PUT:
                // where the document's BSON lies in the file: read from there when asked for (see DurableCollection)
                recovered.computeIfAbsent(ns, k -> new Slots()).set(position, at + record.readerIndex());
                break;
            case DELETE: {
                Slots slots = recovered.get(ns);
                if (slots != null && position < slots.size()) {
                    slots.set(position, 0);
                }
                break;
            }
            case DROP:
                recovered.remove(ns);
                break;
            case RENAME: {
                String to = readString(record);
                Slots slots = recovered.remove(ns);
                if (slots != null) {
                    recovered.put(to, slots);
                }
                break;
            }
            default:
                throw new IllegalStateException("unknown record type " + type);
        }
    }

    private static String readString(ByteBuf buf) {
        int n = buf.readInt();
        String s = buf.toString(buf.readerIndex(), n, StandardCharsets.UTF_8);
        buf.skipBytes(n);
        return s;
    }

    private Path journalPath(long gen) {
        return dir.resolve("journal-" + gen);
    }

    private void removeStrayFiles() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                boolean oldJournal = name.startsWith("journal-") && !name.equals("journal-" + generation);
                if (oldJournal || name.equals("snapshot.tmp")) {
                    Files.delete(file);
                }
            }
        }
    }

    /** Writes the recovered state as snapshot `gen` (aside, fsynced, renamed into place) and drops the old journal. */
    private void writeSnapshot(long gen) throws IOException {
        long t0 = System.nanoTime();
        Path tmp = dir.resolve("snapshot.tmp");
        ByteBuf buf = Unpooled.buffer(1 << 16);
        long count = 0;
        long offset = HEADER;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
             OutputStream out = new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(ch), 1 << 20)) {
            DataOutputStream data = new DataOutputStream(out);
            data.write(SNAPSHOT_MAGIC);
            data.writeLong(gen);
            for (Map.Entry<String, Slots> entry : recovered.entrySet()) {
                Slots slots = entry.getValue();
                for (int position = 0; position < slots.size(); position++) {
                    long locator = slots.get(position);
                    if (locator != 0) {
                        buf.clear();
                        int at = encode(buf, PUT, entry.getKey(), position, document(locator), null);
                        // the document is read from the new snapshot from now on
                        slots.set(position, offset + at);
                        offset += buf.readableBytes();
                        buf.readBytes(out, buf.readableBytes());
                        count++;
                    }
                }
            }
            data.flush();
            ch.force(true);
        } finally {
            buf.release();
        }
        try {
            Files.move(tmp, dir.resolve("snapshot"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the store folder must allow atomic renames", e);
        }
        syncDirectory();
        mapSnapshot(dir.resolve("snapshot"));
        journalMap = null;
        Files.deleteIfExists(journalPath(generation));
        generation = gen;
        System.out.printf("DurableStore: folded the journal into snapshot %d (%d documents) in %d ms%n",
            gen, count, (System.nanoTime() - t0) / 1_000_000);
    }

    private void openJournal() throws IOException {
        Path file = journalPath(generation);
        boolean fresh = !Files.exists(file);
        journal = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        if (fresh) {
            ByteBuffer header = ByteBuffer.allocate(HEADER);
            header.put(JOURNAL_MAGIC).putLong(generation).flip();
            while (header.hasRemaining()) {
                journal.write(header);
            }
            journal.force(true);
            syncDirectory();
        }
        if (recoveredJournal != null) {
            recoveredJournal.close();
            recoveredJournal = null;
        }
        long end = journal.size();
        journal.position(end);
        reserved = end;
        writtenEnd = end;
        pendingStart = end;
        journalMap = new MappedFile(journal);
        reserve(end);
    }

    /** Maps the snapshot (its channel stays open while the store runs: the documents are read from it). */
    private void mapSnapshot(Path file) throws IOException {
        if (snapshotChannel != null) {
            snapshotChannel.close();
        }
        snapshotChannel = FileChannel.open(file, StandardOpenOption.READ);
        snapshotMap = new MappedFile(snapshotChannel);
    }

    /**
     * Makes the journal file long enough for the map of the segment that holds `end` (MappedFile): one byte written at
     * the far end, the rest a hole. The channel's position (where records go) does not move.
     */
    private void reserve(long end) throws IOException {
        long need = (end / MappedFile.segment + 1) * MappedFile.segment + MappedFile.OVERLAP;
        if (need > reserved) {
            journal.write(ByteBuffer.allocate(1), need - 1);
            reserved = need;
        }
    }

    // ------------------------------------------------------------------ documents

    /**
     * The BSON of the document at `locator` (see apply and put): a view of the file where it is written, else a copy
     * of the buffer that holds it until it is.
     */
    ByteBuf document(long locator) {
        long offset = locator & ~IN_JOURNAL;
        try {
            if ((locator & IN_JOURNAL) == 0) {
                return view(snapshotMap, offset);
            }
            if (offset >= writtenEnd) {
                synchronized (this) {
                    if (offset >= pendingStart) {
                        return copyOut(pending, (int) (offset - pendingStart));
                    }
                    if (inFlight != null && offset >= inFlightStart) {
                        return copyOut(inFlight, (int) (offset - inFlightStart));
                    }
                }
            }
            return view(journalMap, offset);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("the store cannot read its files", e);
        }
    }

    private static ByteBuf view(MappedFile file, long offset) throws IOException {
        return Unpooled.wrappedBuffer(file.slice(offset, file.intLE(offset)));
    }

    private static ByteBuf copyOut(ByteBuf buffer, int at) {
        return Unpooled.copiedBuffer(buffer.slice(at, buffer.getIntLE(at)));
    }

    private void syncDirectory() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // some file systems cannot open a directory for syncing; the rename itself is still atomic
        }
    }

    // ------------------------------------------------------------------ state handed to the backend

    /** Database names that have recovered collections. */
    TreeSet<String> recoveredDatabases() {
        TreeSet<String> names = new TreeSet<>();
        for (String ns : recovered.keySet()) {
            names.add(ns.substring(0, ns.indexOf('.')));
        }
        return names;
    }

    /** The recovered slots of a namespace, handed over once to the collection that opens it (null if none). */
    synchronized Slots take(String ns) {
        return recovered.remove(ns);
    }

    /** Forgets what no collection claimed at start (its records are re-written on the next fold only if claimed). */
    synchronized void endRecovery() {
        if (!recovered.isEmpty()) {
            System.out.println("DurableStore: namespaces without a collection entry, kept in the files only: " + recovered.keySet());
            recovered.clear();
        }
    }

    // ------------------------------------------------------------------ journal

    /** Appends a document's new state; answers its locator, where it is read from from now on (document). */
    synchronized long put(String ns, int position, ByteBuf document) {
        int at = append(PUT, ns, position, document, null);
        return IN_JOURNAL | (pendingStart + at);
    }

    synchronized void delete(String ns, int position) {
        append(DELETE, ns, position, null, null);
    }

    synchronized void drop(String ns) {
        append(DROP, ns, 0, null, null);
    }

    synchronized void rename(String from, String to) {
        append(RENAME, from, 0, null, to);
    }

    private int append(byte type, String ns, int position, ByteBuf document, String to) {
        int at = encode(pending, type, ns, position, document, to);
        appended++;
        lastOfThread.get()[0] = appended;
        return at;
    }

    /** Writes one record to `out`; answers where in `out` its document begins. */
    private static int encode(ByteBuf out, byte type, String ns, int position, ByteBuf document, String to) {
        int start = out.writerIndex();
        out.writeInt(0).writeInt(0);
        out.writeByte(type);
        writeString(out, ns);
        out.writeInt(position);
        int at = out.writerIndex();
        if (document != null) {
            out.writeBytes(document, document.readerIndex(), document.readableBytes());
        }
        if (to != null) {
            writeString(out, to);
        }
        int length = out.writerIndex() - start - 8;
        CRC32 crc = new CRC32();
        crc.update(out.nioBuffer(start + 8, length));
        out.setInt(start, length);
        out.setInt(start + 4, (int) crc.getValue());
        return at;
    }

    private static void writeString(ByteBuf out, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length).writeBytes(bytes);
    }

    /** Makes every record this thread appended durable (written and, with fsync on, forced to disk). */
    void commitThread() throws IOException {
        long mine = lastOfThread.get()[0];
        if (mine <= durable) {
            return;
        }
        synchronized (flushLock) {
            if (mine <= durable) {
                return; // another thread's fsync covered it
            }
            flush();
        }
    }

    /** Writes (and with fsync on, forces) every record appended so far; called holding flushLock. */
    private void flush() throws IOException {
        if (failure != null) {
            throw failure;
        }
        ByteBuf batch;
        long upTo;
        long start;
        synchronized (this) {
            batch = pending;
            upTo = appended;
            start = pendingStart;
            // (read from here while it is written: document)
            inFlight = batch;
            inFlightStart = start;
            pendingStart = start + batch.readableBytes();
            pending = Unpooled.buffer(Math.max(1 << 16, Math.min(batch.capacity(), 1 << 22)));
        }
        long end = start + batch.readableBytes();
        try {
            reserve(end);
            for (ByteBuffer b : batch.nioBuffers()) {
                while (b.hasRemaining()) {
                    journal.write(b);
                }
            }
            if (fsync) {
                journal.force(false);
            }
        } catch (IOException e) {
            // (the batch stays readable in memory; nothing is written after a failure)
            failure = e;
            throw e;
        }
        synchronized (this) {
            writtenEnd = end;
            inFlight = null;
        }
        batch.release();
        durable = upTo;
    }

    /**
     * A consistent copy of the store in `target` (a new or empty folder), taken while it runs: every record appended so
     * far is written, and the journal's length at that moment is the copy's point in time. The snapshot does not change
     * while the store runs and the journal only grows, so both are copied without holding up writers: the snapshot, and
     * the journal up to that length. The copy is a store folder of its own (restore: start the engine on it).
     */
    Document backup(Path target) throws IOException {
        long t0 = System.nanoTime();
        long length;
        long gen;
        synchronized (flushLock) {
            flush();
            length = writtenEnd;
            gen = generation;
        }
        Files.createDirectories(target);
        try (DirectoryStream<Path> existing = Files.newDirectoryStream(target)) {
            if (existing.iterator().hasNext()) {
                throw new IOException("the backup folder " + target + " is not empty");
            }
        }
        Path snapshot = dir.resolve("snapshot");
        long snapshotBytes = 0;
        if (Files.exists(snapshot)) {
            snapshotBytes = copy(snapshot, target.resolve("snapshot.tmp"), Long.MAX_VALUE);
        }
        long journalBytes = copy(journalPath(gen), target.resolve(journalPath(gen).getFileName() + ".tmp"), length);
        // the copies get their names only once complete, so a half-made backup is never taken for a store
        if (snapshotBytes > 0) {
            Files.move(target.resolve("snapshot.tmp"), target.resolve("snapshot"), StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(target.resolve(journalPath(gen).getFileName() + ".tmp"), target.resolve(journalPath(gen).getFileName()), StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel d = FileChannel.open(target, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // as in syncDirectory
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("DurableStore: backup to " + target + ": snapshot " + snapshotBytes + " bytes, journal " + journalBytes + " bytes, " + ms + " ms");
        return new Document("dir", target.toString()).append("snapshotBytes", snapshotBytes).append("journalBytes", journalBytes)
            .append("generation", gen).append("millis", ms);
    }

    /** Copies the first `limit` bytes of a file (all of it when shorter) and forces the copy to disk. */
    private static long copy(Path from, Path to, long limit) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long size = Math.min(limit, in.size());
            long done = 0;
            while (done < size) {
                done += in.transferTo(done, size - done, out);
            }
            out.force(true);
            return size;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            lastOfThread.get()[0] = appended;
        }
        try {
            commitThread();
            synchronized (flushLock) {
                // the space kept ahead goes (what a crash leaves of it is cut at the next start)
                journal.truncate(writtenEnd);
                journal.force(true);
            }
        } finally {
            journal.close();
            if (snapshotChannel != null) {
                snapshotChannel.close();
            }
            lock.release();
            lockChannel.close();
        }
    }
}
