// The working row of `harness chat` at a terminal (chat-working.ts): each frame one write, gone while a call waits for approval and once Esc has cancelled the
// run. The chat runs in this process on a terminal of the test's making, against a real server
// process and the fake Anthropic server; the row's frames are the test's to move.
import { test, before, after, mock } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeAnthropic, HarnessProcess } from "@harness/test-utils";
import { ioFor, terminalChat } from "./chat-test-support.ts";
import { elapsed, FRAME_MS, startWorkingRow, workingRow } from "./chat-working.ts";
import { emptyState } from "@harness/protocol";
import { startChatServer } from "./test-support.ts";

let fake: FakeAnthropic;
let server: HarnessProcess;
let stop: () => Promise<void>;

before(async () => {
  ({ fake, server, stop } = await startChatServer("harness-chat-working-"));
});
after(() => stop());

const ROW = /^[·✢✳✶✻✽] \w+… \((\d+)s · esc to interrupt\)$/;

/** A reply that says `text` only once `gate` is open. */
function held(gate: Promise<void>, text: string) {
  return {
    async *textChunks() {
      await gate;
      yield text;
    },
  };
}

/** Resolves once `met()`, letting I/O go on meanwhile. */
async function until(met: () => boolean, what: () => string): Promise<void> {
  for (const start = Date.now(); !met(); await ioFor(10)) if (Date.now() - start > 20_000) throw new Error(what());
}

/** The working row on the screen, if any. */
const rowOf = (rows: string[]) => rows.find((row) => ROW.test(row));

test("the seconds of a run are said as Claude Code says them", () => {
  assert.deepEqual([0, 999, 12_400, 125_000, 3_603_000].map(elapsed), ["0s", "0s", "12s", "2m 5s", "1h 0m 3s"]);
});

test("a row wider than the terminal is cut to it; in colour its glyph and verb stand out", () => {
  assert.equal(workingRow({ frame: 4, verb: "Thinking", ms: 12_000, color: false }), "✻ Thinking… (12s · esc to interrupt)");
  assert.equal(workingRow({ frame: 4, verb: "Thinking", ms: 12_000, width: 20, color: false }), "✻ Thinking… (12s ·…");
  assert.equal(workingRow({ frame: 0, verb: "Thinking", ms: 0, color: true }), "\x1b[38;5;209m· Thinking…\x1b[0m\x1b[2m (0s · esc to interrupt)\x1b[0m");
});

test("a closed row stays closed: a state that comes after shows no row and starts no frames", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const shown: (string | undefined)[] = [];
  const row = startWorkingRow({ show: (line) => shown.push(line), columns: () => 80, color: false, now: () => 0, pick: () => "Thinking" });
  const running = { ...emptyState(), status: "running" as const };
  row.update(running);
  assert.deepEqual(shown, ["· Thinking… (0s · esc to interrupt)"]);
  row.close();
  row.update(running);
  row.update({ ...running, status: "awaiting-approval" });
  row.update(running);
  mock.timers.tick(FRAME_MS * 4);
  assert.deepEqual(shown, ["· Thinking… (0s · esc to interrupt)", undefined]);
});

test("each frame of the row is one write, a few times a second, its glyph cycling", async (t) => {
  const gate = Promise.withResolvers<void>();
  fake.push(held(gate.promise, "Done."));
  t.after(() => gate.resolve());
  const chat = terminalChat(t, server.url, "working", "frames");
  await chat.sees(/Ctrl-D leaves/);
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  chat.type("go\r");
  await chat.sees(/\(0s · esc to interrupt\)/);
  await ioFor(50);
  const first = rowOf(chat.rows());
  assert.match(first ?? "", ROW, chat.rows().join("\n"));
  const writes = chat.writes();
  mock.timers.tick(FRAME_MS);
  await ioFor(20);
  assert.equal(chat.writes() - writes, 1, "one write a frame");
  const second = rowOf(chat.rows());
  assert.notEqual(second, first, "the glyph moves on");
  assert.equal(second?.slice(2), first?.slice(2), "the rest stays");
  // Frames come a few times a second, not more.
  mock.timers.tick(FRAME_MS - 1);
  await ioFor(20);
  assert.equal(chat.writes() - writes, 1);
  mock.timers.tick(1);
  await ioFor(20);
  assert.equal(chat.writes() - writes, 2);
  gate.resolve();
  await chat.sees(/Done\./);
  await until(() => rowOf(chat.rows()) === undefined, () => `the working row stayed:\n${chat.rows().join("\n")}`);
  const rows = chat.rows();
  assert.deepEqual(rows.slice(rows.indexOf("go")), ["go", "Done."], rows.join("\n"));
  chat.end();
  assert.equal(await chat.status, 0);
});

test("the row is gone while a call waits for approval, back once it is answered, gone at the end", async (t) => {
  const gate = Promise.withResolvers<void>();
  const dir = mkdtempSync(join(tmpdir(), "harness-working-"));
  fake.push({ toolUses: [{ name: "Bash", input: { command: `touch ${dir}/approved` } }] }, held(gate.promise, "Ran it."));
  t.after(() => (gate.resolve(), rmSync(dir, { recursive: true, force: true })));
  const chat = terminalChat(t, server.url, "working", "approval");
  await chat.sees(/Ctrl-D leaves/);
  chat.type("run it\r");
  await chat.sees(/needs approval/);
  await until(() => rowOf(chat.rows()) === undefined, () => `the working row stayed:\n${chat.rows().join("\n")}`);
  assert.match(chat.rows().at(-1)!, /to deny$/, chat.rows().join("\n"));
  chat.type("y\r");
  await until(() => rowOf(chat.rows()) !== undefined, () => `no working row after the answer:\n${chat.rows().join("\n")}`);
  assert.match(chat.rows().at(-1)!, ROW, chat.rows().join("\n"));
  gate.resolve();
  await chat.sees(/Ran it\./);
  await until(() => rowOf(chat.rows()) === undefined, () => `the working row stayed:\n${chat.rows().join("\n")}`);
  assert.equal(chat.rows().at(-1), "Ran it.");
  chat.end();
  assert.equal(await chat.status, 0);
});

test("Esc cancels the run the row tells of, and the row goes with it", async (t) => {
  const gate = Promise.withResolvers<void>();
  fake.push(held(gate.promise, "Never shown."));
  t.after(() => gate.resolve());
  const chat = terminalChat(t, server.url, "working", "esc");
  await chat.sees(/Ctrl-D leaves/);
  chat.type("go\r");
  await chat.sees(/esc to interrupt/);
  chat.type("\x1b");
  await chat.sees(/\(cancelled\)/);
  await until(() => rowOf(chat.rows()) === undefined, () => `the working row stayed:\n${chat.rows().join("\n")}`);
  assert.equal(chat.rows().at(-1), "(cancelled)");
  chat.end();
  assert.equal(await chat.status, 0);
});
