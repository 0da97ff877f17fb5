import { test } from "node:test";
import assert from "node:assert/strict";
import { isTextType, readTextCapped, sizeText } from "./workspace-files.ts";

test("a file's size reads in bytes, then KB and MB", () => {
  assert.equal(sizeText(0), "0 B");
  assert.equal(sizeText(1023), "1023 B");
  assert.equal(sizeText(1536), "1.5 KB");
  assert.equal(sizeText(1024 * 1024 + 1), "1.0 MB");
});

test("text is what the server types as text; anything else is bytes, not shown", () => {
  for (const type of ["text/plain", "text/typescript; charset=utf-8", "application/json", "image/svg+xml"]) assert.equal(isTextType(type), true, type);
  for (const type of ["application/octet-stream", "image/png", "application/zip", "application/jsonp", undefined]) assert.equal(isTextType(type), false, String(type));
});

/** A body of `chunks`, counting what was pulled from it and whether the rest was cancelled. */
function body(chunks: string[]): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === chunks.length) return controller.close();
        controller.enqueue(new TextEncoder().encode(chunks[pulled++]));
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

test("a text read to its end within the cap comes whole, characters split between chunks and all", async () => {
  const euro = new TextEncoder().encode("€");
  let step = 0;
  const bytes = [new TextEncoder().encode("price: "), euro.slice(0, 2), euro.slice(2), new TextEncoder().encode("5")];
  const stream = new ReadableStream<Uint8Array>({ pull: (c) => (step === bytes.length ? c.close() : c.enqueue(bytes[step++])) });
  assert.equal(await readTextCapped(stream, 11), "price: €5");
  assert.equal(await readTextCapped(null, 10), "");
});

test("a text past the cap is read no further than the chunk that passes it, and the rest is cancelled", async () => {
  const chunk = "x".repeat(100);
  const long = body(Array.from({ length: 1000 }, () => chunk));
  assert.equal(await readTextCapped(long.stream, 250), undefined);
  assert.equal(long.pulled(), 3);
  assert.equal(long.cancelled(), true);
  const exact = body([chunk, chunk]);
  assert.equal(await readTextCapped(exact.stream, 200), chunk + chunk);
});
