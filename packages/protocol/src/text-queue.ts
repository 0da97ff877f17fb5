// A first-in, first-out queue of strings held as UTF-8 bytes in a few large byte arrays, outside the
// JavaScript heap. Logs of sent frames (a session's recent deltas, a run's events) keep thousands
// of strings that each outlive a young-generation collection; as strings, every one is copied by
// the collector once or twice before it settles in the old generation, and at 100 streaming
// sessions they were about 40 % of what the server's collections copied. As bytes they cost the
// collector nothing. Texts must be well-formed UTF-16 (JSON.stringify's output is): a lone
// surrogate would come back as U+FFFD.

export type TextQueue = {
  /** Texts held. */
  readonly length: number;
  /** Their size in UTF-8 bytes. */
  readonly bytes: number;
  push(text: string): void;
  /** Drops the `count` oldest texts (all of them when there are fewer). */
  drop(count?: number): void;
  /** The texts from index `from` (0 is the oldest) to the newest, oldest first. */
  from(from: number): string[];
  /** The UTF-8 bytes of the texts `from(from)` would return, without decoding them. */
  bytesFrom(from: number): number;
  clear(): void;
};

const FIRST_CHUNK_BYTES = 1024;
const MAX_CHUNK_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function createTextQueue(): TextQueue {
  // Chunk `chunkBase + i` is chunks[i]; text `head + i` lives in chunk chunkOf[head + i] at
  // offsetOf[...], lengthOf[...] bytes. The dropped prefix of the three arrays is cut away lazily.
  let chunks: Uint8Array[] = [];
  let chunkBase = 0;
  let used = 0;
  let nextChunkBytes = FIRST_CHUNK_BYTES;
  let chunkOf: number[] = [];
  let offsetOf: number[] = [];
  let lengthOf: number[] = [];
  let head = 0;
  let bytes = 0;

  const newChunk = (atLeast: number): Uint8Array => {
    const chunk = new Uint8Array(Math.max(nextChunkBytes, atLeast));
    nextChunkBytes = Math.min(nextChunkBytes * 2, MAX_CHUNK_BYTES);
    chunks.push(chunk);
    used = 0;
    return chunk;
  };

  const reset = () => {
    chunks = [];
    chunkBase = 0;
    used = 0;
    chunkOf = [];
    offsetOf = [];
    lengthOf = [];
    head = 0;
    bytes = 0;
  };

  return {
    get length() {
      return chunkOf.length - head;
    },
    get bytes() {
      return bytes;
    },
    push(text) {
      let chunk = chunks.at(-1);
      let written = -1;
      if (chunk) {
        const result = encoder.encodeInto(text, chunk.subarray(used));
        if (result.read === text.length) written = result.written;
      }
      if (written < 0 && text.length * 3 > MAX_CHUNK_BYTES) {
        // A large text gets a chunk of its own, of its exact size.
        const encoded = encoder.encode(text);
        chunks.push(encoded);
        used = 0;
        written = encoded.length;
      } else if (written < 0) {
        // Three bytes per UTF-16 unit is the most UTF-8 needs.
        chunk = newChunk(text.length * 3);
        written = encoder.encodeInto(text, chunk).written;
      }
      chunkOf.push(chunkBase + chunks.length - 1);
      offsetOf.push(used);
      lengthOf.push(written);
      used += written;
      bytes += written;
    },
    drop(count = 1) {
      const end = Math.min(head + count, chunkOf.length);
      for (let i = head; i < end; i++) bytes -= lengthOf[i];
      head = end;
      if (head === chunkOf.length) return reset();
      const oldestChunk = chunkOf[head];
      while (chunkBase < oldestChunk) {
        chunks.shift();
        chunkBase++;
      }
      if (head > 1024 && head * 2 > chunkOf.length) {
        chunkOf = chunkOf.slice(head);
        offsetOf = offsetOf.slice(head);
        lengthOf = lengthOf.slice(head);
        head = 0;
      }
    },
    from(from) {
      const texts: string[] = [];
      for (let i = head + Math.max(0, from); i < chunkOf.length; i++) {
        const chunk = chunks[chunkOf[i] - chunkBase];
        texts.push(decoder.decode(chunk.subarray(offsetOf[i], offsetOf[i] + lengthOf[i])));
      }
      return texts;
    },
    bytesFrom(from) {
      let total = 0;
      for (let i = head + Math.max(0, from); i < chunkOf.length; i++) total += lengthOf[i];
      return total;
    },
    clear: reset,
  };
}
