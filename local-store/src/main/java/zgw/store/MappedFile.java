// A store file read through memory maps: the documents' BSON stays in the file (the kernel's page cache holds what is
// read, and gives it back under pressure) instead of the heap. A file is mapped in segments of SEGMENT bytes, each
// reaching OVERLAP further, so a record that starts in a segment lies wholly within its map. Only what the store has
// written is ever read (DurableStore); the file must be at least as long as a segment's map when that segment is
// first read (the journal is extended ahead for this: DurableStore.reserve).

package zgw.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;

final class MappedFile {
    /** The bytes of a segment (smaller in tests, to have records on both sides of a segment's end). */
    static long segment = 1L << 30;
    static final long OVERLAP = 64L << 20;

    private final FileChannel channel;
    private volatile MappedByteBuffer[] segments = new MappedByteBuffer[0];

    MappedFile(FileChannel channel) {
        this.channel = channel;
    }

    /** The `length` bytes at `offset`, without copying (valid for as long as the process runs). */
    ByteBuffer slice(long offset, int length) throws IOException {
        int k = (int) (offset / segment);
        return segment(k).slice((int) (offset - k * segment), length);
    }

    /** The little-endian int at `offset`. */
    int intLE(long offset) throws IOException {
        int k = (int) (offset / segment);
        return Integer.reverseBytes(segment(k).getInt((int) (offset - k * segment)));
    }

    private MappedByteBuffer segment(int k) throws IOException {
        MappedByteBuffer[] s = segments;
        if (k < s.length && s[k] != null) {
            return s[k];
        }
        synchronized (this) {
            s = segments;
            if (k >= s.length) {
                s = Arrays.copyOf(s, k + 1);
            }
            if (s[k] == null) {
                long start = k * segment;
                long size = Math.min(segment + OVERLAP, channel.size() - start);
                s[k] = channel.map(FileChannel.MapMode.READ_ONLY, start, size);
            }
            segments = s;
            return s[k];
        }
    }
}
