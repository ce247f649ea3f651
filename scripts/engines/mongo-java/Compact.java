// Shares the strings of stored documents: every document of a collection repeats the same field names, and many
// repeat the same values (a type URL, a language, a status). Decoded from BSON, each occurrence is a String of its
// own; held for a million documents that is gigabytes of copies. The first MAX_STRINGS distinct strings seen are kept
// in a table and every later equal string is replaced by the kept one (field names come first, so they are always
// among them). Documents are compacted in place, so whoever holds them sees the same document.

import de.bwaldvogel.mongo.bson.Document;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

final class Compact {
    private static final int MAX_STRINGS = 200_000;
    /** Longer strings are rarely repeated; they are left as they are. */
    private static final int MAX_LENGTH = 256;
    private static final ConcurrentHashMap<String, String> STRINGS = new ConcurrentHashMap<>();

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
        if (STRINGS.size() >= MAX_STRINGS) {
            return s;
        }
        kept = STRINGS.putIfAbsent(s, s);
        return kept != null ? kept : s;
    }

    /** Replaces the field names and string values of the document (and of those nested in it) by shared ones. */
    static void document(Document document) {
        int n = document.size();
        if (n == 0) {
            return;
        }
        String[] keys = new String[n];
        Object[] values = new Object[n];
        int i = 0;
        for (var entry : document.entrySet()) {
            keys[i] = entry.getKey();
            values[i] = entry.getValue();
            i++;
        }
        document.clear();
        for (i = 0; i < n; i++) {
            document.put(string(keys[i]), value(values[i], true));
        }
    }

    /**
     * Replaces the string values of a document that others may be reading (an update in place): values only, each
     * replaced by an equal one, so the document never looks different. Its field names are those it had, mostly.
     */
    static void values(Document document) {
        for (var entry : document.entrySet()) {
            Object value = entry.getValue();
            Object compact = value(value, false);
            if (compact != value) {
                entry.setValue(compact);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Object value(Object value, boolean restructure) {
        if (value instanceof String) {
            return string((String) value);
        }
        if (value instanceof Document) {
            if (restructure) {
                document((Document) value);
            } else {
                values((Document) value);
            }
        } else if (value instanceof List) {
            List<Object> list = (List<Object>) value;
            try {
                for (int i = 0; i < list.size(); i++) {
                    list.set(i, value(list.get(i), restructure));
                }
            } catch (UnsupportedOperationException immutable) {
                // left as it is
            }
        }
        return value;
    }
}
