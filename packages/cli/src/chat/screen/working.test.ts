// The working row of `harness chat` at a terminal (working.ts): each frame one write, gone while a call waits for approval and once Esc has cancelled the
// run. The chat runs in this process on a terminal of the test's making, against a real server
// process and the fake Anthropic server; the row's frames are the test's to move.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ioFor, terminalChat } from "../test-support.ts";
import { elapsed, FRAME_MS, startWorkingRow, tokenCount, workingRow } from "./working.ts";
import { emptyState, type HarnessMessage, type HarnessState } from "@harness/protocol";
import { chatServerForFile } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-working-");

const ROW = /^[·✢✳✶✻✽] \w+… \((\d+)s(?: · ↓ [\d.]+k? tokens)? · esc to interrupt\)$/;

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

test("the tokens out so far are said as Claude Code says them, and not at all before the first", () => {
  assert.deepEqual([1, 950, 999, 1000, 1234, 12_345, 999_949, 1_234_567].map(tokenCount), ["1", "950", "999", "1k", "1.2k", "12.3k", "999.9k", "1.2m"]);
  assert.equal(workingRow({ frame: 4, verb: "Brewing", ms: 12_000, tokens: 1234, color: false }), "✻ Brewing… (12s · ↓ 1.2k tokens · esc to interrupt)");
  assert.equal(workingRow({ frame: 4, verb: "Brewing", ms: 12_000, tokens: 0, color: false }), "✻ Brewing… (12s · esc to interrupt)");
  assert.equal(workingRow({ frame: 4, verb: "Brewing", ms: 12_000, tokens: 950, width: 24, color: false }), "✻ Brewing… (12s · ↓ 95…");
});

/** A row driven by hand: its clock is the test's, each state's row is what it would draw now. */
function handRow(clock: { now: number }) {
  const shown: (string | undefined)[] = [];
  const row = startWorkingRow({ show: (line) => shown.push(line), columns: () => 200, color: false, now: () => clock.now, pick: () => "Brewing" });
  return {
    update: (state: HarnessState) => row.update(state),
    lost: () => row.lost(),
    close: () => row.close(),
    /** The row the next frame draws. */
    frame: () => (mock.timers.tick(FRAME_MS), shown.at(-1)?.slice(2)),
  };
}

const user = (content: string): HarnessMessage => ({ id: `u${content}`, role: "user", content, status: "complete" });
const reply = (content: string, toolCalls?: HarnessMessage["toolCalls"]): HarnessMessage => ({ id: "a", role: "assistant", content, status: "running", ...(toolCalls && { toolCalls }) });

test("the tokens are counted from what the run streams into the state, a token for four characters, tool calls' input included", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const clock = { now: 1_000_000 };
  const row = handRow(clock);
  const earlier = [user("before"), { ...reply("x".repeat(40_000)), id: "old", status: "complete" as const }];
  const running = (...messages: HarnessMessage[]): HarnessState => ({ status: "running", messages: [...earlier, ...messages] });
  row.update(running(user("go"), reply("")));
  assert.equal(row.frame(), "Brewing… (0s · esc to interrupt)", "nothing before the first token; the earlier runs' replies are not this run's");
  row.update(running(user("go"), reply("a".repeat(3_800))));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 950 tokens · esc to interrupt)");
  const call = { id: "t1", name: "Write", status: "running" as const, input: { file_path: "/a", content: "b".repeat(1_000) } };
  row.update(running(user("go"), reply("a".repeat(3_800), [call])));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 1.2k tokens · esc to interrupt)");
  // A steer: the reply so far is done, the run streams on into a new message; both count.
  row.update(running(user("go"), { ...reply("a".repeat(3_800), [call]), status: "complete" }, user("steer"), { ...reply("c".repeat(44_400)), id: "a2" }));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 12.3k tokens · esc to interrupt)");
  row.update({ ...running(), status: "idle" });
  row.update(running(user("again"), { ...reply("d".repeat(8)), id: "a3" }));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 2 tokens · esc to interrupt)", "the next run counts from nothing");
});

test("while the model thinks the row says Thinking… whatever its verb, its thinking counted in the tokens; its verb is back once the reply streams", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const row = handRow({ now: 1_000_000 });
  const running = (message: HarnessMessage): HarnessState => ({ status: "running", messages: [user("go"), message] });
  row.update(running(reply("")));
  assert.equal(row.frame(), "Brewing… (0s · esc to interrupt)");
  row.update(running({ ...reply(""), thinking: "t".repeat(400) }));
  assert.equal(row.frame(), "Thinking… (0s · ↓ 100 tokens · esc to interrupt)");
  row.update(running({ ...reply("a".repeat(400)), thinking: "t".repeat(400) }));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 200 tokens · esc to interrupt)");
});

test("once a call of the run has ended, the tokens are its real output tokens, plus the estimate of what streamed since", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const row = handRow({ now: 1_000_000 });
  const usage = (outputTokens: number) => ({ inputTokens: 10, outputTokens });
  // The main agent's call that ended is the state's lastCall.
  const running = (content: string, out: number): HarnessState => ({ status: "running", messages: [user("before"), user("go"), reply(content)], usage: usage(out), lastCall: usage(out - 500) });
  row.update(running("", 500));
  row.update(running("a".repeat(400), 500));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 100 tokens · esc to interrupt)", "estimated while the first call streams");
  // The call ended: it put out 300 tokens (thinking, say), more than its text shows.
  row.update(running("a".repeat(400), 800));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 300 tokens · esc to interrupt)", "the real count of the call that ended, in place of its estimate");
  row.update(running("a".repeat(800), 800));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 400 tokens · esc to interrupt)", "the call streaming now, estimated on top");
});

test("a call that ends while another streams (a sub-agent's, in the background) never makes the tokens go back", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const row = handRow({ now: 1_000_000 });
  const running = (content: string, out: number): HarnessState => ({ status: "running", messages: [user("before"), user("go"), reply(content)], usage: { inputTokens: 10, outputTokens: out } });
  row.update(running("", 500));
  row.update(running("a".repeat(400), 500));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 100 tokens · esc to interrupt)");
  // A sub-agent's call ended, its output counted as 1 token; the main agent's call still streams.
  row.update(running("a".repeat(400), 501));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 101 tokens · esc to interrupt)", "its token on top of the estimate");
  row.update(running("a".repeat(800), 501));
  assert.equal(row.frame(), "Brewing… (0s · ↓ 201 tokens · esc to interrupt)");
});

test("a row that joins a run under way counts from the run's start; a start the clocks put in the future counts from the join", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const clock = { now: 1_000_000 };
  const row = handRow(clock);
  const running = (runStartedAt?: number | null): HarnessState => ({ status: "running", messages: [user("go"), reply("")], ...(runStartedAt !== undefined && { runStartedAt }) });
  row.update(running(clock.now - 125_000));
  assert.match(row.frame() ?? "", /^Brewing… \(2m 5s · /);
  row.update({ status: "idle", messages: [], runStartedAt: null });
  // This chat sees the next run begin: it counts from then, whatever the other clock says.
  clock.now += 1_000;
  row.update(running(clock.now - 3_600_000));
  assert.match(row.frame() ?? "", /^Brewing… \(0s · /);
  row.close();
  const late = handRow(clock);
  late.update(running(clock.now + 60_000));
  assert.match(late.frame() ?? "", /^Brewing… \(0s · /, "never a time below zero");
  clock.now += 3_000;
  assert.match(late.frame() ?? "", /^Brewing… \(3s · /, "counted from the join");
  const unsaid = handRow(clock);
  unsaid.update(running());
  clock.now += 2_000;
  assert.match(unsaid.frame() ?? "", /^Brewing… \(2s · /, "a session that does not say the start: from when the run was first seen");
});

test("a chat whose connection was lost counts a run it finds on its return from the run's start, and a run begun while it was away from that run's own", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const clock = { now: 1_000_000 };
  const row = handRow(clock);
  row.update({ status: "idle", messages: [] });
  row.lost();
  const first = [user("go"), reply("x".repeat(4_000))];
  row.update({ status: "running", messages: first, runStartedAt: clock.now - 90_000 });
  assert.match(row.frame() ?? "", /^Brewing… \(1m 30s · ↓ 1k tokens · /, "a run begun while away");
  row.lost();
  row.update({ status: "running", messages: first, runStartedAt: clock.now - 90_000 });
  assert.match(row.frame() ?? "", /^Brewing… \(1m 30s · ↓ 1k tokens · /, "the same run goes on");
  // Away again: that run ended and the next began, with no idle state between for this chat.
  row.lost();
  clock.now += 10_000;
  const next = [{ ...first[0], id: "u1" }, { ...first[1], status: "complete" as const }, user("next"), { ...reply("y".repeat(40)), id: "b" }];
  row.update({ status: "running", messages: next, runStartedAt: clock.now - 5_000 });
  assert.match(row.frame() ?? "", /^Brewing… \(5s · ↓ 10 tokens · /, "the next run, counted alone");
  row.close();
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
  server.fake.push(held(gate.promise, "Done."));
  t.after(() => gate.resolve());
  const chat = terminalChat(t, server.url, "working", "frames");
  await chat.sees(/Ctrl\+D leaves/);
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
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: `touch ${dir}/approved` } }] }, held(gate.promise, "Ran it."));
  t.after(() => (gate.resolve(), rmSync(dir, { recursive: true, force: true })));
  const chat = terminalChat(t, server.url, "working", "approval");
  await chat.sees(/Ctrl\+D leaves/);
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
  server.fake.push(held(gate.promise, "Never shown."));
  t.after(() => gate.resolve());
  const chat = terminalChat(t, server.url, "working", "esc");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  await chat.sees(/esc to interrupt/);
  chat.type("\x1b");
  await chat.sees(/\(cancelled\)/);
  await until(() => rowOf(chat.rows()) === undefined, () => `the working row stayed:\n${chat.rows().join("\n")}`);
  assert.equal(chat.rows().at(-1), "(cancelled)");
  chat.end();
  assert.equal(await chat.status, 0);
});

test("while a Bash call runs the row says ctrl+b moves it to the background, as Claude Code does; not once it has ended", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  const row = handRow({ now: 1_000_000 });
  const running = (...calls: NonNullable<HarnessMessage["toolCalls"]>): HarnessState => ({ status: "running", messages: [user("go"), reply("", calls)] });
  const bash = { id: "t1", name: "Bash", status: "running" as const };
  row.update(running({ id: "t0", name: "Read", status: "running" }));
  assert.equal(row.frame(), "Brewing… (0s · esc to interrupt)");
  row.update(running(bash));
  assert.equal(row.frame(), "Brewing… (0s · esc to interrupt · ctrl+b to run in background)");
  row.update(running({ ...bash, status: "complete" }));
  assert.equal(row.frame(), "Brewing… (0s · esc to interrupt)");
  assert.equal(workingRow({ frame: 4, verb: "Brewing", ms: 1_000, background: true, color: false }), "✻ Brewing… (1s · esc to interrupt · ctrl+b to run in background)");
});
