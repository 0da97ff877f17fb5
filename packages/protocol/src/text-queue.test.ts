import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createTextQueue } from "./text-queue.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
/** Full collections until freed array buffers are given back (their release trails a collection). */
async function collectGarbage(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("texts come back as they went in, in order, across chunks, with their UTF-8 size", () => {
  const queue = createTextQueue();
  const texts = ["", "plain", "é ü ß", "日本語のテキスト", "emoji 🎉🚀", JSON.stringify({ lone: "\ud800" }), "x".repeat(5000)];
  for (let i = 0; i < 300; i++) for (const text of texts) queue.push(`${i}:${text}`);
  assert.equal(queue.length, 300 * texts.length);
  const expected = Array.from({ length: 300 }, (_, i) => texts.map((t) => `${i}:${t}`)).flat();
  assert.deepEqual(queue.from(0), expected);
  assert.equal(queue.bytes, expected.reduce((sum, t) => sum + Buffer.byteLength(t), 0));
  assert.deepEqual(queue.from(expected.length - 2), expected.slice(-2));
  assert.deepEqual(queue.from(expected.length), []);
  assert.equal(queue.bytesFrom(0), queue.bytes);
  assert.equal(queue.bytesFrom(expected.length - 3), expected.slice(-3).reduce((sum, t) => sum + Buffer.byteLength(t), 0));
  assert.equal(queue.bytesFrom(expected.length), 0);
});

test("dropping the oldest keeps the rest readable and the size right; dropping all empties it", () => {
  const queue = createTextQueue();
  const all: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const text = `{"seq":${i},"text":"${"ab".repeat(i % 40)}"}`;
    all.push(text);
    queue.push(text);
    if (queue.length > 100) queue.drop();
  }
  const kept = all.slice(-100);
  assert.deepEqual(queue.from(0), kept);
  assert.deepEqual(queue.from(60), kept.slice(60));
  assert.equal(queue.bytes, kept.reduce((sum, t) => sum + t.length, 0));
  queue.drop(40);
  assert.deepEqual(queue.from(0), kept.slice(40));
  assert.equal(queue.bytesFrom(10), kept.slice(50).reduce((sum, t) => sum + t.length, 0), "counted from the oldest text still held");
  queue.drop(1000);
  assert.equal(queue.length, 0);
  assert.equal(queue.bytes, 0);
  assert.deepEqual(queue.from(0), []);
  queue.push("again");
  assert.deepEqual(queue.from(0), ["again"]);
  queue.clear();
  assert.equal(queue.length, 0);
});

test("bytes of dropped texts are let go of: a bounded queue stays small whatever passes through", async () => {
  const queue = createTextQueue();
  const text = "y".repeat(1000);
  await collectGarbage();
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 100_000; i++) {
    queue.push(text);
    if (queue.length > 10) queue.drop();
  }
  assert.equal(queue.bytes, 10_000);
  await collectGarbage();
  // 100 MB went through; what is held is a few chunks of at most 64 KB.
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 5 * 1024 * 1024, `chunks of dropped texts are released (array buffers grew by ${grown} bytes)`);
});

test("a large text is held in exactly its own size, and texts after it still come back", async () => {
  const queue = createTextQueue();
  await collectGarbage();
  const before = process.memoryUsage().arrayBuffers;
  const large = `{"output":"${"z".repeat(4 * 1024 * 1024)}"}`;
  queue.push("small before");
  queue.push(large);
  queue.push("small after");
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < large.length + 256 * 1024, `about the text's size, not three times it (grew by ${grown} bytes)`);
  assert.deepEqual(queue.from(0), ["small before", large, "small after"]);
  queue.drop(2);
  assert.deepEqual(queue.from(0), ["small after"]);
});
