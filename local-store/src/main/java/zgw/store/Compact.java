// Shares the strings that index keys hold: the documents keys come from are decoded copies (see DurableCollection), so
// each key would otherwise hold a String of its own, and many keys repeat the same value (a type URL, an
// organisation, a status); held for a million documents in several indexes that is hundreds of megabytes of copies.
// The first MAX_STRINGS distinct strings seen are kept in a table and every later equal string is replaced by the
// kept one.

package zgw.store;

import java.util.concurrent.ConcurrentHashMap;

final class Compact {
    private static final int MAX_STRINGS = 200_000;
    /** Longer strings are rarely repeated; they are left as they are. */
    private static final int MAX_LENGTH = 256;
    /** Sized for all it may hold at once: a table that grows while several threads build indexes slows every lookup. */
    private static final ConcurrentHashMap<String, String> STRINGS = new ConcurrentHashMap<>(2 * MAX_STRINGS);
    /**
     * Whether the table holds MAX_STRINGS (read on every string not in it: the table's own size() sums its counter cells,
     * and at start that was 7 % of building the indexes).
     */
    private static volatile boolean full;

    private Compact() {
    }

    static String string(String s) {
        if (s.length() > MAX_LENGTH) {
            return s;
        }
        String kept = STRINGS.get(s);
        if (kept != null) {
            return kept;
        }
        if (full) {
            return s;
        }
        kept = STRINGS.putIfAbsent(s, s);
        if (kept == null && STRINGS.size() >= MAX_STRINGS) {
            full = true;
        }
        return kept != null ? kept : s;
    }
}
