import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { processGone, tempWorkspace, waitFor } from "../../testing/fixtures.ts";
import { createUnreadOutput, KEPT_FINISHED_SHELLS } from "./background-shells.ts";
import { bashOutputTool } from "./bash-output.ts";
import { bashTool } from "./bash.ts";
import { killShellTool } from "./kill-shell.ts";
import { createToolState, disposeToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";

async function setup(t: TestContext) {
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  t.after(() => disposeToolState(state));
  const call = (tool: typeof bashTool, input: Record<string, unknown>) => callWithState(tool, input, cwd, state);
  const start = async (command: string) => {
    const out = await call(bashTool, { command, run_in_background: true });
    const id = /^Command running in background with ID: ([0-9a-f]{6})$/.exec(out.content)?.[1];
    assert.ok(id, out.content);
    return id;
  };
  const poll = (id: string, filter?: string) => call(bashOutputTool, { bash_id: id, ...(filter !== undefined && { filter }) });
  /** Polls until the output shows `pattern`, collecting everything read on the way. */
  const pollUntil = async (id: string, pattern: RegExp) => {
    let seen = "";
    await waitFor(async () => {
      seen += `${(await poll(id)).content}\n`;
      return pattern.test(seen) ? true : undefined;
    }, `output matching ${pattern}`);
    return seen;
  };
  return { cwd, state, call, start, poll, pollUntil };
}

const pidIn = async (file: string) =>
  waitFor(async () => {
    const text = await fs.readFile(file, "utf8").catch(() => "");
    return text.endsWith("\n") ? Number(text) : undefined;
  }, `a pid in ${file}`);

test("A background command returns at once; BashOutput gives new output and the final status", async (t) => {
  const { start, poll, pollUntil, cwd } = await setup(t);
  const id = await start(`echo first; echo oops >&2; while [ ! -e go ]; do sleep 0.05; done; echo second; exit 3`);

  const early = await pollUntil(id, /<stdout>\nfirst\n<\/stdout>/);
  assert.match(early, /<status>running<\/status>/);
  assert.match(early, /<stderr>\noops\n<\/stderr>/);
  assert.match(early, /<timestamp>\d{4}-\d\d-\d\dT/);

  await fs.writeFile(path.join(cwd, "go"), "");
  const done = await waitFor(async () => {
    const out = await poll(id);
    return /<status>failed<\/status>/.test(out.content) ? out : undefined;
  }, "the command to finish");
  assert.equal(done.isError, undefined);
  assert.match(done.content, /^<status>failed<\/status>\n\n<exit_code>3<\/exit_code>/);
  // "first" was read already: only new output comes back.
  const all = done.content + (await poll(id)).content;
  assert.doesNotMatch(all, /first/);

  const ok = await start("echo fine");
  const finished = await waitFor(async () => {
    const out = await poll(ok);
    return /<status>completed<\/status>/.test(out.content) ? out : undefined;
  }, "the second command to finish");
  assert.match(finished.content, /^<status>completed<\/status>\n\n<exit_code>0<\/exit_code>/);
});

test("BashOutput's filter keeps only matching lines and drops the rest, and one that would backtrack for ever is stopped", async (t) => {
  const { start, poll, pollUntil, state } = await setup(t);
  const id = await start("printf 'info a\\nerror b\\ninfo c\\nerror d\\n'; echo done");
  await waitFor(async () => ((await poll(id, "^$")).content.includes("<status>completed") ? true : undefined), "the command to finish");
  // Everything was consumed by the filtering poll above.
  assert.doesNotMatch((await poll(id)).content, /<stdout>/);

  const second = await start("printf 'info a\\nerror b\\ninfo c\\nerror d\\n'; sleep 0.2");
  let seen = "";
  await waitFor(async () => {
    seen += (await poll(second, "^error")).content;
    return seen.includes("error d") ? true : undefined;
  }, "the error lines");
  assert.match(seen, /error b/);
  assert.doesNotMatch(seen, /info/);
  await pollUntil(second, /<status>completed/);

  const bad = await poll(second, "(");
  assert.equal(bad.isError, true);
  assert.match(bad.content, /Invalid filter "\("/);

  // A pattern that backtracks for ever is stopped; the process went on meanwhile.
  const again = await start(`printf '${"a".repeat(40)}!\\nx\\n'`);
  await waitFor(async () => (state.shells.get(again)?.status === "completed" ? true : undefined), "the command to finish");
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 50);
  const started = performance.now();
  const stuck = await poll(again, "^(a+)+$");
  clearInterval(ticker);
  assert.equal(stuck.isError, true);
  assert.match(stuck.content, /took more than 2 s and was stopped/);
  assert.ok(performance.now() - started < 5_000);
  assert.ok(ticks >= 10, `the event loop went on (${ticks} ticks)`);
});

test("KillShell stops what a finished command left running in the background", async (t) => {
  const { start, call, poll, cwd } = await setup(t);
  // The command ends at once; the sleep it started goes on, its output closed, as a server would.
  const id = await start("sleep 300 >/dev/null 2>&1 & echo $! > child.pid; echo started");
  const child = await pidIn(path.join(cwd, "child.pid"));
  await waitFor(async () => (/^<status>completed<\/status>/.test((await poll(id)).content) ? true : undefined), "the command to end");
  assert.equal(await processGone(child), false);
  const killed = await call(killShellTool, { shell_id: id });
  assert.equal(killed.isError, undefined, killed.content);
  assert.match(killed.content, /had ended \(status: completed, exit code 0\), but processes it started were still running; they were stopped/);
  await waitFor(async () => ((await processGone(child)) ? true : undefined), "the background sleep to be stopped");
  const again = await call(killShellTool, { shell_id: id });
  assert.match(again.content, /is not running \(status: completed, exit code 0\), so there is nothing to kill/);
});

test("KillShell ends the command and every process it started", async (t) => {
  const { start, call, poll, cwd, state } = await setup(t);
  const id = await start("sleep 300 & echo $! > child.pid; echo started; wait");
  const child = await pidIn(path.join(cwd, "child.pid"));
  const leader = state.shells.get(id)!.child;
  const killed = await call(killShellTool, { shell_id: id });
  assert.match(killed.content, new RegExp(`^Successfully killed shell: ${id} \\(sleep 300 &`));
  await waitFor(async () => ((await processGone(child)) ? true : undefined), "the background sleep to be killed");
  // The shell itself may take a moment longer to end; until it has, a second KillShell rightly
  // finds a process of the group still running.
  await waitFor(async () => (leader.exitCode !== null || leader.signalCode !== null ? true : undefined), "the shell to end");
  assert.match((await poll(id)).content, /^<status>killed<\/status>/);

  const again = await call(killShellTool, { shell_id: id });
  assert.equal(again.isError, true);
  assert.match(again.content, /is not running \(status: killed/);
  const unknown = await call(killShellTool, { shell_id: "nope" });
  assert.equal(unknown.isError, true);
  assert.match(unknown.content, new RegExp(`No background shell with ID "nope" \\(of the finished ones, only the latest 32 are kept\\)\\. Background shells:\\n${id} \\(killed\\): sleep 300`));
});

test("Disposing of the tool state kills running background shells and refuses new ones", async (t) => {
  const { start, state, call, cwd } = await setup(t);
  await start("sleep 300 & echo $! > a.pid; wait");
  await start("sleep 300 & echo $! > b.pid; wait");
  const pids = [await pidIn(path.join(cwd, "a.pid")), await pidIn(path.join(cwd, "b.pid"))];
  await disposeToolState(state);
  for (const pid of pids) await waitFor(async () => ((await processGone(pid)) ? true : undefined), `process ${pid} to be killed`);
  assert.deepEqual([...state.shells.values()].map((s) => s.status), ["killed", "killed"]);
  const refused = await call(bashTool, { command: "true", run_in_background: true });
  assert.equal(refused.isError, true);
  assert.match(refused.content, /conversation has ended/);
});

test("Background commands need a tool state; BashOutput names unknown ids", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callWithState(bashTool, { command: "true", run_in_background: true }, cwd, undefined);
  assert.equal(out.isError, true);
  assert.match(out.content, /Run the command without run_in_background/);
  const unknown = await callWithState(bashOutputTool, { bash_id: "abc123" }, cwd, createToolState());
  assert.deepEqual(unknown, { content: 'No background shell with ID "abc123" (of the finished ones, only the latest 32 are kept). No background shells have been started.', isError: true });
});

test("Unread background output is capped: the oldest is dropped and the drop is reported", async (t) => {
  const buffer = createUnreadOutput(10);
  buffer.push(Buffer.from("0123456789"));
  buffer.push(Buffer.from("abcdef"));
  assert.deepEqual(buffer.take(), { text: "6789abcdef", dropped: 6 });
  assert.deepEqual(buffer.take(), { text: "", dropped: 0 });
  // A character split across chunks is not broken.
  const euro = Buffer.from("€");
  buffer.push(euro.subarray(0, 1));
  buffer.push(euro.subarray(1));
  assert.deepEqual(buffer.take(), { text: "€", dropped: 0 });

  const cwd = await tempWorkspace(t);
  const state = createToolState({ limits: { backgroundOutputBytes: 1000 } });
  t.after(() => disposeToolState(state));
  const started = await callWithState(bashTool, { command: "seq 1 5000", run_in_background: true }, cwd, state);
  const id = started.content.split(": ")[1];
  const out = await waitFor(async () => {
    const shell = state.shells.get(id);
    return shell?.status === "completed" && !shell.outputOpen ? callWithState(bashOutputTool, { bash_id: id }, cwd, state) : undefined;
  }, "seq to finish");
  assert.match(out.content, /<stdout>\n\[[\d,]+ earlier characters of output were dropped; only the latest are shown\]\n[\s\S]*\n4999\n5000\n<\/stdout>/);
  const kept = /<stdout>\n[^\n]*\n([\s\S]*)\n<\/stdout>/.exec(out.content)![1];
  assert.ok(kept.length <= 1000, `kept ${kept.length} characters`);
});

test("Only the latest finished shells are kept: a long conversation does not hold every command's output", async (t) => {
  const { state, start, poll } = await setup(t);
  const ids: string[] = [];
  for (let i = 0; i <= KEPT_FINISHED_SHELLS; i++) {
    const id = await start(`echo shell ${i}`);
    await waitFor(() => (state.shells.get(id)?.status === "completed" && !state.shells.get(id)?.outputOpen ? true : undefined), `shell ${i} to finish`);
    ids.push(id);
  }
  const running = await start("sleep 300");
  assert.equal(state.shells.has(ids[0]), false, "the oldest finished shell is forgotten");
  assert.equal(state.shells.size, KEPT_FINISHED_SHELLS + 1);
  assert.match((await poll(ids[0])).content, /^No background shell with ID/);
  assert.match((await poll(ids[1])).content, /shell 1/);
  assert.equal(state.shells.get(running)?.status, "running");
});

test("a shell that has ended is reported with the output still on its way; one that leaves its pipes held open is reported without waiting for them", async (t) => {
  const { start, poll, state } = await setup(t);
  // The shell exits at once; what it left running writes a moment later, then lets the pipe go.
  const id = await start("(sleep 0.1; echo written late) & echo first");
  await waitFor(() => (state.shells.get(id)?.status === "completed" ? true : undefined), "the shell to exit");
  const out = await poll(id);
  assert.match(out.content, /^<status>completed<\/status>/);
  assert.match(out.content, /first\nwritten late/);

  // What this one leaves running holds the pipe until the test opens the gate, after the call;
  // should the call wait for the pipe, the gate opens after 20 s so that the test fails rather than hangs.
  const gate = path.join(await tempWorkspace(t), "open");
  const held = await start(`(until [ -e '${gate}' ]; do sleep 0.02; done) & echo started`);
  await waitFor(() => (state.shells.get(held)?.status === "completed" ? true : undefined), "the shell to exit");
  const fallback = setTimeout(() => void fs.writeFile(gate, ""), 20_000);
  const heldOut = await poll(held);
  assert.equal(await fs.access(gate).then(() => true, () => false), false, "the call waited for a pipe held open");
  await fs.writeFile(gate, "");
  clearTimeout(fallback);
  assert.match(heldOut.content, /^<status>completed<\/status>/);
});
