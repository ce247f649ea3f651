import { digestOf, hashing } from '@zgw/shared';
import type { InhoudStore } from './inhoud';

export interface MoveProgress {
  moved: number;
  bytes: number;
  failed: number;
  /** The file just handled. */
  id: string;
}

/**
 * Moves every file from one content store to the other under the same id (documents point to ids, not stores): each
 * is streamed across while its SHA-256 is taken, read back from the target and compared (size and SHA-256), and only
 * then removed from the source. A run cut short is taken up by the next: what was moved is no longer in the source, and
 * a file copied but not yet removed is copied again. A file that does not compare is left in the source (and removed
 * from the target) and counted as failed. `progress` hears of every file.
 */
export async function moveInhoud(
  from: InhoudStore,
  to: InhoudStore,
  progress: (p: MoveProgress) => void = () => undefined,
): Promise<{ moved: number; bytes: number; failed: number }> {
  let moved = 0;
  let bytes = 0;
  let failed = 0;
  for await (const file of from.list(new Date(Date.now() + 60_000))) {
    await to.delete([file.id]); // a copy left by a run cut short
    const copy = hashing(from.download(file.id) as AsyncIterable<Buffer>);
    const written = await to.fromStream(copy.bytes, file.id);
    const sent = copy.digest();
    const back = await digestOf(to.download(file.id) as AsyncIterable<Buffer>);
    if (written.size !== file.size || back.size !== file.size || back.sha256 !== sent) {
      failed++;
      await to.delete([file.id]);
    } else {
      await from.delete([file.id]);
      moved++;
      bytes += file.size;
    }
    progress({ moved, bytes, failed, id: file.id });
  }
  return { moved, bytes, failed };
}
