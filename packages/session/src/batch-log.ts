// A bounded log of the most recent delta frames, kept as the exact text that was broadcast so a
// reconnecting client is replayed identical frames without serializing anything again.
import { createTextQueue } from "@harness/protocol";

export type BatchLog = {
  /** Records the frame of batch `seq`; seqs must be consecutive. */
  push(seq: number, frame: string): void;
  /** Frames of every batch with seq > `since`, oldest first, or undefined when the log no longer
   * holds batch since+1. `since` must be below the last pushed seq. */
  after(since: number): string[] | undefined;
  /** Seq of the oldest batch held, or undefined when empty. */
  oldest(): number | undefined;
  clear(): void;
};

export function createBatchLog(capacity: number): BatchLog {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`batch log capacity must be a positive integer, got ${capacity}`);
  // Held as bytes: a session's recent frames outlive young-generation collections (text-queue.ts).
  const frames = createTextQueue();
  let lastSeq = 0;

  return {
    push(seq, frame) {
      if (frames.length > 0 && seq !== lastSeq + 1) throw new RangeError(`batch ${seq} does not follow batch ${lastSeq}`);
      frames.push(frame);
      if (frames.length > capacity) frames.drop();
      lastSeq = seq;
    },
    after(since) {
      if (frames.length === 0) return undefined;
      const first = lastSeq - frames.length + 1;
      if (since + 1 < first || since >= lastSeq) return undefined;
      return frames.from(since + 1 - first);
    },
    oldest() {
      return frames.length === 0 ? undefined : lastSeq - frames.length + 1;
    },
    clear() {
      frames.clear();
    },
  };
}
