// How long the store takes per query (planning, reading the index, fetching and matching the documents), kept for
// the last QUERIES queries, and how many were served from an index or scanned (in all, and in the database the command
// is sent to). The command {zgwQueryStats: 1} reports them (with {reset: true}, starting afresh), for the benchmarks
// and the tests.

package zgw.store;

import de.bwaldvogel.mongo.bson.Document;

import java.util.Arrays;

final class QueryTimes {
    private static final int QUERIES = 100_000;
    private static final long[] RECENT = new long[QUERIES];
    private static long recorded;

    private QueryTimes() {
    }

    static synchronized void record(long nanos) {
        RECENT[(int) (recorded++ % QUERIES)] = nanos;
    }

    static synchronized Document stats(boolean reset, QueryPlanner.Counters database) {
        int n = (int) Math.min(recorded, QUERIES);
        long[] times = Arrays.copyOf(RECENT, n);
        Arrays.sort(times);
        Document out = new Document("queries", recorded)
            .append("indexed", QueryPlanner.ALL.indexed.get())
            .append("scanned", QueryPlanner.ALL.scanned.get())
            .append("keysExamined", QueryPlanner.ALL.keysExamined.get())
            .append("database", database.toDocument())
            .append("verify", QueryPlanner.VERIFY)
            .append("verified", QueryPlanner.VERIFIED.get())
            .append("mismatches", QueryPlanner.MISMATCHES.get())
            .append("p50Micros", n == 0 ? 0 : times[n / 2] / 1000)
            .append("p99Micros", n == 0 ? 0 : times[Math.min(n - 1, (int) (n * 0.99))] / 1000)
            .append("maxMicros", n == 0 ? 0 : times[n - 1] / 1000);
        if (reset) {
            recorded = 0;
            QueryPlanner.ALL.reset();
            database.reset();
        }
        Replies.ok(out);
        return out;
    }
}
