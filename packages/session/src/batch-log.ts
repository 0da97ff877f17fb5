// A bounded log of the most recent delta frames, kept as the exact text that was broadcast so a
// reconnecting client is replayed identical frames without serializing anything again. Bounded in
// frames and in bytes: a client that missed more than the byte bound gets a state frame instead
// (SessionCore.connect), so older frames would never be replayed.
import { createTextQueue } from "@harness/protocol";

export type BatchLog = {
  /** Records the frame of batch `seq`; seqs must be consecutive. */
  push(seq: number, frame: string): void;
  /** Frames of every batch with seq > `since`, oldest first, or undefined when the log no longer
   * holds batch since+1. `since` must be below the last pushed seq. */
  after(since: number): string[] | undefined;
  /** The UTF-8 bytes `after(since)` would return (without decoding them), or undefined when it would
   * return undefined. */
  bytesAfter(since: number): number | undefined;
  /** Seq of the oldest batch held, or undefined when empty. */
  oldest(): number | undefined;
  clear(): void;
};

/** Holds at most `capacity` frames and, beyond the newest frame, at most `maxBytes` of them. */
export function createBatchLog(capacity: number, maxBytes = Infinity): BatchLog {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`batch log capacity must be a positive integer, got ${capacity}`);
  if (!(maxBytes > 0)) throw new RangeError(`batch log byte limit must be positive, got ${maxBytes}`);
  // Held as bytes: a session's recent frames outlive young-generation collections (text-queue.ts).
  const frames = createTextQueue();
  let lastSeq = 0;

  /** The index in `frames` of batch since+1, or undefined when it is not held (or is not there yet). */
  const indexAfter = (since: number): number | undefined => {
    if (frames.length === 0) return undefined;
    const first = lastSeq - frames.length + 1;
    if (since + 1 < first || since >= lastSeq) return undefined;
    return since + 1 - first;
  };

  return {
    push(seq, frame) {
      if (frames.length > 0 && seq !== lastSeq + 1) throw new RangeError(`batch ${seq} does not follow batch ${lastSeq}`);
      frames.push(frame);
      if (frames.length > capacity) frames.drop();
      while (frames.bytes > maxBytes && frames.length > 1) frames.drop();
      lastSeq = seq;
    },
    after(since) {
      const from = indexAfter(since);
      return from === undefined ? undefined : frames.from(from);
    },
    bytesAfter(since) {
      const from = indexAfter(since);
      return from === undefined ? undefined : frames.bytesFrom(from);
    },
    oldest() {
      return frames.length === 0 ? undefined : lastSeq - frames.length + 1;
    },
    clear() {
      frames.clear();
    },
  };
}
