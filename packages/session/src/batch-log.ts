// A bounded log of the most recent delta frames, kept as the exact strings that were broadcast so a
// reconnecting client is replayed byte-identical frames at no serialization cost.

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
  const frames: string[] = new Array(capacity);
  let count = 0;
  let lastSeq = 0;
  let start = 0; // ring index of the oldest frame

  return {
    push(seq, frame) {
      if (count > 0 && seq !== lastSeq + 1) throw new RangeError(`batch ${seq} does not follow batch ${lastSeq}`);
      if (count < capacity) {
        frames[(start + count) % capacity] = frame;
        count++;
      } else {
        frames[start] = frame;
        start = (start + 1) % capacity;
      }
      lastSeq = seq;
    },
    after(since) {
      if (count === 0) return undefined;
      const first = lastSeq - count + 1;
      if (since + 1 < first || since >= lastSeq) return undefined;
      const out: string[] = [];
      for (let seq = since + 1; seq <= lastSeq; seq++) out.push(frames[(start + (seq - first)) % capacity]);
      return out;
    },
    oldest() {
      return count === 0 ? undefined : lastSeq - count + 1;
    },
    clear() {
      frames.fill("");
      count = 0;
      start = 0;
    },
  };
}
