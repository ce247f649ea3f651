// Which indexed queries of a collection are also answered by a scan under ZGW_MONGO_VERIFY. The check of a query reads
// every document of its collection (about 1.4 µs each) while the collection is locked: done for every query, a test
// that loads 200,000 documents and then updates 2,000 of them one by one spent 100 s in checks, the writers waiting
// behind each, and a reseal of 6,000 rollen 48 s of its 53. Every query is checked while the collection holds at most
// `docs` documents; above that, one query in (live / docs), so that checking costs a query on average at most a scan of
// `docs` documents, whatever the size. Query shapes are the same on small collections and large ones, and the tests
// meet their shapes on small ones.

package zgw.store;

final class VerifySampler {
    static final long DEFAULT = 1_000;
    /** ZGW_MONGO_VERIFY_DOCS: the collection size up to which every query is checked (default 1,000). */
    static final long DOCS = docs(System.getenv("ZGW_MONGO_VERIFY_DOCS"));

    private final long docs;
    /** Documents the next check may read: grows by `docs` with every query, spent by a check. */
    private long credit;

    VerifySampler(long docs) {
        this.docs = docs;
    }

    VerifySampler() {
        this(DOCS);
    }

    /** Whether this query (on a collection of `live` documents) is checked by a scan. */
    synchronized boolean take(long live) {
        if (live <= docs) {
            credit = 0;
            return true;
        }
        credit += docs;
        if (credit < live) {
            return false;
        }
        credit -= live;
        return true;
    }

    static long docs(String setting) {
        try {
            long n = setting == null || setting.isBlank() ? DEFAULT : Long.parseLong(setting.trim());
            return n > 0 ? n : DEFAULT;
        } catch (NumberFormatException e) {
            return DEFAULT;
        }
    }
}
