import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, processGone, tempWorkspace, waitFor } from "../../testing/fixtures.ts";
import { bashTool, bashToolFor, sandboxedBashTool } from "./bash.ts";
import { createToolState, disposeToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";

test("Bash runs in cwd and returns stdout and stderr interleaved in order", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(bashTool, { command: "pwd; echo out1; echo err1 >&2; echo out2; echo err2 >&2", description: "Print things" }, cwd);
  assert.deepEqual(out, { content: `${cwd}\nout1\nerr1\nout2\nerr2` });
});

test("Bash reports a non-zero exit code as an error, keeping the output", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(bashTool, { command: "echo partial; ls no-such-file; exit 3" }, cwd);
  assert.equal(out.isError, true);
  assert.match(out.content, /^partial\nls: cannot access 'no-such-file': No such file or directory\n\nExit code 3$/);

  const syntax = await callTool(bashTool, { command: "echo never; if then" }, cwd);
  assert.equal(syntax.isError, true);
  assert.match(syntax.content, /syntax error/);
  assert.match(syntax.content, /Exit code 2/);
});

test("Bash in a working directory that is gone says so, for a command and a background one", async (t) => {
  const cwd = path.join(await tempWorkspace(t), "gone");
  for (const input of [{ command: "echo still" }, { command: "echo still", run_in_background: true }]) {
    const out = await callTool(bashTool, input, cwd);
    assert.equal(out.isError, true);
    assert.match(out.content, /^The command was not run: its working directory .*gone no longer exists/);
  }
});

test("Bash says when a command printed nothing", async (t) => {
  const cwd = await tempWorkspace(t);
  assert.deepEqual(await callTool(bashTool, { command: "true" }, cwd), { content: "(Command completed with no output)" });
});

test("Bash keeps the beginning and end of huge output", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(bashTool, { command: "seq 1 200000" }, cwd);
  assert.equal(out.isError, undefined);
  assert.ok(out.content.length < 30_000, `output is ${out.content.length} characters`);
  assert.ok(out.content.startsWith("1\n2\n3\n"));
  assert.ok(out.content.endsWith("199999\n200000"));
  assert.match(out.content, /\[[\d,]+ bytes of output omitted\]/);
});

test("Bash kills the whole process group on timeout", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(bashTool, { command: "sleep 300 & echo $! > child.pid; echo waiting; wait", timeout: 500 }, cwd);
  assert.equal(out.isError, true);
  assert.match(out.content, /^waiting\n\nCommand timed out after 500 ms and was killed/);
  const pid = Number(await fs.readFile(path.join(cwd, "child.pid"), "utf8"));
  await waitFor(async () => ((await processGone(pid)) ? true : undefined), "the background sleep to be killed");
});

test("Bash stops and kills the command when the signal fires", async (t) => {
  const cwd = await tempWorkspace(t);
  const controller = new AbortController();
  const pending = callTool(bashTool, { command: "sleep 300 & echo $! > child.pid; wait" }, cwd, controller.signal);
  const pidFile = path.join(cwd, "child.pid");
  const pid = await waitFor(async () => {
    const text = await fs.readFile(pidFile, "utf8").catch(() => "");
    return text.endsWith("\n") ? Number(text) : undefined;
  }, "the command to start");
  controller.abort();
  const out = await pending;
  assert.equal(out.isError, true);
  assert.match(out.content, /interrupted/);
  await waitFor(async () => ((await processGone(pid)) ? true : undefined), "the background sleep to be killed");
});

test("Bash returns when the shell exits even if a background process keeps the output open; what it left running stops with the conversation", async (t) => {
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  const out = await callWithState(bashTool, { command: "sleep 300 & echo $! > bg.pid; echo started" }, cwd, state);
  assert.equal(out.isError, undefined);
  assert.match(out.content, /^started\n\nProcesses started in the background still hold the output open.*stopped when the conversation ends/s);
  const quiet = await callWithState(bashTool, { command: "sleep 300 > /dev/null 2>&1 & echo $! > quiet.pid" }, cwd, state);
  assert.equal(quiet.isError, undefined);
  const pids = await Promise.all(["bg.pid", "quiet.pid"].map(async (name) => Number(await fs.readFile(path.join(cwd, name), "utf8"))));
  for (const pid of pids) assert.equal(await processGone(pid), false, "still running after the call");
  await disposeToolState(state);
  for (const pid of pids) await waitFor(async () => ((await processGone(pid)) ? true : undefined), `process ${pid} to stop with the conversation`);

  // Without a conversation to keep them in, they stop with the call.
  await callTool(bashTool, { command: "sleep 300 > /dev/null 2>&1 & echo $! > lone.pid" }, cwd);
  const lone = Number(await fs.readFile(path.join(cwd, "lone.pid"), "utf8"));
  await waitFor(async () => ((await processGone(lone)) ? true : undefined), "the lone sleep to stop");
});

test("Bash rejects a timeout above the maximum", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(bashTool, { command: "true", timeout: 700_000 }, cwd);
  assert.equal(out.isError, true);
  assert.match(out.content, /parameter "timeout"/);
  assert.match(out.content, /600000/);
});

test("BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS set a run's Bash limits, as in Claude Code", async (t) => {
  assert.equal(bashToolFor({}, false), bashTool, "the usual limits: the usual tool, so that requests stay alike");
  assert.equal(bashToolFor({ BASH_MAX_TIMEOUT_MS: "soon" }, true), sandboxedBashTool, "a value that is not a number of milliseconds is ignored");
  const long = bashToolFor({ BASH_MAX_TIMEOUT_MS: "1800000", BASH_DEFAULT_TIMEOUT_MS: "300000" }, false);
  assert.equal(bashToolFor({ BASH_MAX_TIMEOUT_MS: "1800000", BASH_DEFAULT_TIMEOUT_MS: "300000" }, false), long);
  assert.match(long.description, /timeout is in milliseconds: default 300000 \(5 minutes\), at most 1800000 \(30 minutes\)/);
  const cwd = await tempWorkspace(t);
  const allowed = await callTool(long, { command: "echo fine", timeout: 900_000 }, cwd);
  assert.equal(allowed.content, "fine");
  const usual = await callTool(bashTool, { command: "echo fine", timeout: 900_000 }, cwd);
  assert.equal(usual.isError, true);
  assert.match(usual.content, /timeout/);
  const tooLong = await callTool(long, { command: "echo x", timeout: 2_000_000 }, cwd);
  assert.equal(tooLong.isError, true);
});

test("BASH_MAX_OUTPUT_LENGTH sets how much of a command's output enters the conversation, its middle cut, up to 150,000 characters", async (t) => {
  const cwd = await tempWorkspace(t);
  const short = bashToolFor({ BASH_MAX_OUTPUT_LENGTH: "1000" }, false);
  assert.equal(short.maxOutputChars, 1000);
  const out = await callTool(short, { command: "seq 1 20000" }, cwd);
  assert.ok(out.content.length <= 1000, `${out.content.length} characters`);
  assert.match(out.content, /^1\n2\n3\n/);
  assert.match(out.content, /bytes of output omitted/);
  assert.match(out.content, /19999\n20000$/);

  // A small limit still keeps both ends: the omission note and how the command ended fit besides.
  const tiny = await callTool(bashToolFor({ BASH_MAX_OUTPUT_LENGTH: "200" }, false), { command: "seq 1 20000; exit 3" }, cwd);
  assert.ok(tiny.content.length <= 200, `${tiny.content.length} characters`);
  assert.match(tiny.content, /^1\n2\n3\n/);
  assert.match(tiny.content, /19999\n20000\n+Exit code 3$/);

  const long = bashToolFor({ BASH_MAX_OUTPUT_LENGTH: "100000" }, false);
  const whole = await callTool(long, { command: "seq 1 15000" }, cwd);
  assert.equal(whole.content.split("\n").length, 15000, "78,894 characters fit: nothing is cut");
  assert.equal(bashToolFor({ BASH_MAX_OUTPUT_LENGTH: "9000000" }, false).maxOutputChars, 150_000);
  assert.equal(bashToolFor({ BASH_MAX_OUTPUT_LENGTH: "lots" }, false), bashTool);
  assert.equal(bashToolFor({ BASH_MAX_OUTPUT_LENGTH: "30000" }, false), bashTool, "the default: the usual tool");
});
