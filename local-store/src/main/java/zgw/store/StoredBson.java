// A document of a reply as it is stored: its BSON bytes, written into the reply as they are (WireEncoder).

package zgw.store;

final class StoredBson {
    final byte[] bytes;

    StoredBson(byte[] bytes) {
        this.bytes = bytes;
    }

    @Override
    public String toString() {
        return "StoredBson(" + bytes.length + " bytes)";
    }
}
