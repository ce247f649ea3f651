// The slots of a collection: for each position, where its document's BSON lies in the store's files (a locator of
// DurableStore), or 0 when the slot is free. Eight bytes a document on the heap, whatever the document's size.

package zgw.store;

import java.util.Arrays;

final class Slots {
    private long[] at = new long[16];
    private int size;

    int size() {
        return size;
    }

    /** The locator in slot i (0: free, also past the end). */
    long get(int i) {
        return i < size ? at[i] : 0;
    }

    /** Sets slot i, growing the slots to hold it (the slots between stay free). */
    void set(int i, long locator) {
        if (i >= at.length) {
            at = Arrays.copyOf(at, Math.max(i + 1, at.length * 2));
        }
        at[i] = locator;
        size = Math.max(size, i + 1);
    }

    void clear() {
        at = new long[16];
        size = 0;
    }
}
