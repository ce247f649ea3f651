// The store's heap, watched. The indexes live in the heap (ZGW_MONGO_HEAP; the documents stay in the store's files); a
// store near that limit does not fail, it slows down: collections one after another, each freeing little, take the
// cores every command needs. So the store says so in its log (at most every WARN_EVERY_MS) when its old generation is
// still more than THRESHOLD of its maximum after a collection, and {zgwMemory: 1} reports the heap (with {gc: true},
// after a full collection: what is live) and the process's resident memory, for the benchmarks and an administrator.

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.NotificationEmitter;

final class HeapWatch {
    /** Share of the old generation's maximum still in use after a collection that is worth a warning. */
    static final double THRESHOLD = 0.9;
    static final long WARN_EVERY_MS = 5 * 60_000;
    private static final long MB = 1024 * 1024;
    private static final AtomicLong LAST_WARNED = new AtomicLong(Long.MIN_VALUE);

    private HeapWatch() {
    }

    /** Watches the old generation (the pool where the data set ends up): a warning when a collection leaves it full. */
    static void start() {
        MemoryPoolMXBean old = oldGeneration();
        if (old == null || old.getUsage().getMax() <= 0) return;
        old.setCollectionUsageThreshold((long) (old.getUsage().getMax() * THRESHOLD));
        NotificationEmitter emitter = (NotificationEmitter) ManagementFactory.getMemoryMXBean();
        emitter.addNotificationListener((notification, handback) -> {
            if (!MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED.equals(notification.getType())) return;
            MemoryUsage after = old.getCollectionUsage();
            String warning = warning(after.getUsed(), after.getMax(), System.currentTimeMillis(), LAST_WARNED);
            if (warning != null) System.err.println(warning);
        }, null, null);
    }

    /**
     * The warning for an old generation holding `used` of `max` bytes after a collection at `now`, or null when it is
     * below THRESHOLD or one was given less than WARN_EVERY_MS before (`lastWarned` keeps when).
     */
    static String warning(long used, long max, long now, AtomicLong lastWarned) {
        if (max <= 0 || used < max * THRESHOLD) return null;
        long last = lastWarned.get();
        if (last != Long.MIN_VALUE && now - last < WARN_EVERY_MS) return null;
        if (!lastWarned.compareAndSet(last, now)) return null;
        return "HeapWatch: WARN the heap holds " + used / MB + " MB of its " + max / MB + " MB after a collection ("
            + Math.round(100.0 * used / max) + "%): the store spends its cores collecting and answers slowly; give it more"
            + " heap (ZGW_MONGO_HEAP) or hold less data";
    }

    /** The heap and the resident memory now; with `gc`, after a full collection (what is live). */
    static Document stats(boolean gc) {
        if (gc) System.gc();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryPoolMXBean old = oldGeneration();
        Document out = new Document("heapUsedBytes", heap.getUsed())
            .append("heapCommittedBytes", heap.getCommitted())
            .append("heapMaxBytes", heap.getMax());
        if (old != null && old.getCollectionUsage() != null) out.append("oldGenerationAfterCollectionBytes", old.getCollectionUsage().getUsed());
        long rss = residentBytes();
        if (rss >= 0) out.append("residentBytes", rss);
        return out.append("ok", 1.0);
    }

    private static MemoryPoolMXBean oldGeneration() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.isCollectionUsageThresholdSupported()
                && (pool.getName().contains("Old") || pool.getName().contains("Tenured"))) return pool;
        }
        return null;
    }

    private static final Pattern VM_RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");

    /** This process's resident memory (Linux), or -1 where it cannot be read. */
    static long residentBytes() {
        try {
            Matcher m = VM_RSS.matcher(Files.readString(Path.of("/proc/self/status")));
            return m.find() ? Long.parseLong(m.group(1)) * 1024 : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
