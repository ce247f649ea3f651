import { BSON, type Document } from 'mongodb';

// Reading a stored document's bytes (BSON) without decoding it whole.

/**
 * The `_id` of a stored document (BSON) when it is a string, or undefined: the first string element named `_id` in
 * its bytes, found by a byte search, not by reading its fields. What the search finds cannot make the render cache show
 * another object (an entry serves only the same stored bytes): at worst two documents share a key and keep each
 * other's text from being reused.
 */
export function storedId(stored: Buffer): string | undefined {
  // (looked at first where the platform's documents have it: their first element)
  const first = stored[4] === 0x02 && stored[8] === 0x00 && isName(stored, 5, 8, '_id');
  const at = first ? 4 : stored.indexOf(ID_ELEMENT, 4);
  if (at < 0 || at + 9 > stored.length) return undefined;
  const length = stored.readInt32LE(at + 5);
  return length > 0 && at + 9 + length <= stored.length ? stored.toString('utf8', at + 9, at + 9 + length - 1) : undefined;
}

/** A string element named `_id`: type 0x02, then the name and its NUL. */
const ID_ELEMENT = Buffer.from([0x02, 0x5f, 0x69, 0x64, 0x00]);

/**
 * The top-level fields `names` of a stored document (BSON), decoded, without decoding the others (a page's first and
 * last document give only their sort keys). A document this walk cannot follow is decoded whole.
 */
export function storedFields(stored: Buffer, names: readonly string[]): Document {
  for (const name of names) if (NOT_ASCII.test(name)) return BSON.deserialize(stored); // (compared by char code below)
  const parts: Buffer[] = [];
  const end = stored.readInt32LE(0) - 1;
  for (let at = 4; at < end && parts.length < names.length;) {
    const nameEnd = stored.indexOf(0, at + 1);
    const size = nameEnd < 0 ? -1 : valueSize(stored, stored[at]!, nameEnd + 1);
    if (size < 0) return BSON.deserialize(stored);
    const next = nameEnd + 1 + size;
    for (const name of names) {
      if (isName(stored, at + 1, nameEnd, name)) {
        parts.push(stored.subarray(at, next));
        break;
      }
    }
    at = next;
  }
  const doc = Buffer.alloc(5 + parts.reduce((n, p) => n + p.length, 0));
  doc.writeInt32LE(doc.length, 0);
  let at = 4;
  for (const p of parts) at += p.copy(doc, at);
  return BSON.deserialize(doc);
}

/** A character other than printable ASCII (a name with one is found by decoding the document whole). */
const NOT_ASCII = /[^ -~]/;

/** Whether the bytes from `start` to `end` are `name` (an ASCII name: its UTF-8 bytes are its char codes). */
function isName(b: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (b[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** The byte length of an element's value of BSON type `type` that starts at `at`; -1 for a type not known here. */
function valueSize(b: Buffer, type: number, at: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return 8;
    case 0x02: // string
    case 0x0d: // code
    case 0x0e: // symbol
      return 4 + b.readInt32LE(at);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return b.readInt32LE(at);
    case 0x05: // binary: length, subtype, bytes
      return 5 + b.readInt32LE(at);
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // max key
    case 0xff: // min key
      return 0;
    case 0x07: // ObjectId
      return 12;
    case 0x08: // boolean
      return 1;
    case 0x0b: // regular expression: two C strings
      return b.indexOf(0, b.indexOf(0, at) + 1) + 1 - at;
    case 0x0c: // DBPointer: string and ObjectId
      return 4 + b.readInt32LE(at) + 12;
    case 0x10: // int32
      return 4;
    case 0x13: // decimal128
      return 16;
    default:
      return -1;
  }
}
