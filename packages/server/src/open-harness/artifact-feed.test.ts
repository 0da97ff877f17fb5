import { test } from "node:test";
import assert from "node:assert/strict";
import { artifactFeed } from "./artifact-feed.ts";
import type { ExecutionEvent } from "./run-watch.ts";

const file = (id: number, name: string) => ({ id: String(id), name, mime_type: "text/plain", size_bytes: 1 });

test("each file is announced once, as it is seen, and the events after it wait for it: done comes last", async () => {
  const events: ExecutionEvent[] = [];
  const files = [file(1, "a.txt"), file(2, "b.txt"), file(3, "c.txt")];
  const asked: number[] = [];
  const feed = artifactFeed((event) => events.push(event), async (from, seen) => {
    asked.push(from);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // b.txt was deleted before it was looked at: not announced, its id still taken.
    return { artifacts: files.slice(from, seen).filter((f) => f.name !== "b.txt"), count: seen };
  }, () => {});
  feed.event({ type: "text", content: "hi" });
  assert.equal(events.length, 1, "with nothing to look up, an event goes at once");
  feed.touched(2);
  feed.event({ type: "tool_call_start", id: "t", name: "Bash", input: {} });
  feed.touched(3);
  feed.event({ type: "done", usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } });
  assert.equal(events.length, 1);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(events.map((e) => (e.type === "artifact" ? e.name : e.type)), ["text", "a.txt", "tool_call_start", "c.txt", "done"]);
  assert.deepEqual(asked, [0, 2]);
  feed.event({ type: "text", content: "later" });
  assert.equal(events.length, 6, "once all is looked up, events go at once again");
});

test("a look-up that fails is logged and holds nothing up", async () => {
  const events: ExecutionEvent[] = [];
  const lines: string[] = [];
  const feed = artifactFeed((event) => events.push(event), async () => {
    throw new Error("disk gone");
  }, (line) => lines.push(line));
  feed.touched(1);
  feed.event({ type: "text", content: "after" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(events, [{ type: "text", content: "after" }]);
  assert.match(lines[0], /disk gone/);
});
