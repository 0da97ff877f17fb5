import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent } from "@harness/protocol";
import { hintedReady, hintsOf } from "./hints.ts";

const available = { model: "m", slashCommands: ["deploy"], tools: [], mcpServers: [], agents: [], skills: [], outputStyle: "default" };
const ready: Extract<AgentEvent, { type: "run.ready" }> = { type: "run.ready", available };

test("hints are taken only from names with a non-empty hint, whatever else an answer holds", () => {
  assert.deepEqual(hintsOf([{ name: "deploy", argumentHint: "<env>" }, { name: "clear", argumentHint: "" }, { name: 3, argumentHint: "x" }, null, { name: "x" }]), { deploy: "<env>" });
  assert.deepEqual(hintsOf({ not: "a list" }), {});
});

test("a question that fails leaves the run's report as it was, and the session's next run asks again", async () => {
  let asked = 0;
  const events: AgentEvent[] = [];
  const first = hintedReady((e) => events.push(e), () => "failing", () => (asked++, Promise.reject(new Error("closed"))));
  first.emit(ready);
  await new Promise((resolve) => setImmediate(resolve));
  first.end();
  assert.deepEqual<unknown>(events, [ready]);
  const second = hintedReady((e) => events.push(e), () => "failing", () => (asked++, Promise.resolve([{ name: "deploy", argumentHint: "<env>" }])));
  second.emit(ready);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(asked, 2);
  assert.deepEqual(events.at(-1), { type: "run.ready", available: { ...available, argumentHints: { deploy: "<env>" } } });
});

test("an answer after the run's end is not told, but the session's next run starts with it", async () => {
  const events: AgentEvent[] = [];
  let answer: (commands: unknown) => void = () => {};
  const first = hintedReady((e) => events.push(e), () => "late", () => new Promise((resolve) => (answer = resolve)));
  first.emit(ready);
  first.end();
  answer([{ name: "deploy", argumentHint: "<env>" }]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual<unknown>(events, [ready]);
  const next = hintedReady((e) => events.push(e), () => "late", () => assert.fail("asked again"));
  next.emit(ready);
  assert.deepEqual(events.at(-1), { type: "run.ready", available: { ...available, argumentHints: { deploy: "<env>" } } });
});
