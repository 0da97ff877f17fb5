/** Collects a process's output in bounded memory: the first `headBytes` and the last `tailBytes`
 * are kept, anything between is only counted. */
export type OutputBuffer = { push(chunk: Buffer): void; text(): string };

export function createOutputBuffer(headBytes: number, tailBytes: number): OutputBuffer {
  const head: Buffer[] = [];
  let headSize = 0;
  const tail: Buffer[] = [];
  let tailSize = 0;
  let dropped = 0;
  return {
    push(chunk) {
      if (headSize < headBytes) {
        const take = Math.min(chunk.length, headBytes - headSize);
        head.push(take === chunk.length ? chunk : chunk.subarray(0, take));
        headSize += take;
        if (take === chunk.length) return;
        chunk = chunk.subarray(take);
      }
      tail.push(chunk);
      tailSize += chunk.length;
      while (tail.length > 1 && tailSize - tail[0].length >= tailBytes) {
        tailSize -= tail[0].length;
        dropped += tail.shift()!.length;
      }
    },
    text() {
      const excess = Math.max(0, tailSize - tailBytes);
      if (dropped + excess === 0) return Buffer.concat([...head, ...tail]).toString("utf8");
      const kept = Buffer.concat(tail).subarray(excess);
      const omitted = (dropped + excess).toLocaleString("en-US");
      return `${Buffer.concat(head).toString("utf8")}\n\n... [${omitted} bytes of output omitted] ...\n\n${kept.toString("utf8")}`;
    },
  };
}
