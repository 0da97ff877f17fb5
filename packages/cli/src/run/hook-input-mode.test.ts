// Hook inputs name the run's permission mode as it is, dontAsk included (the Agent SDK's
// PermissionMode), never as one of the others.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { controlLine, harness, STREAM_JSON, streamLinesOf, tempDir, userLine, withFake } from "../test-support.ts";

test("a hook of a run in dontAsk mode (the settings' defaultMode) is told permission_mode dontAsk; one in plan mode, plan", async (t) => {
  for (const mode of ["dontAsk", "plan"]) {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done." }] }));
    const dir = tempDir(t);
    mkdirSync(join(dir, ".claude"));
    const hooks = { UserPromptSubmit: [{ hooks: [{ type: "command", command: `cat > "${join(dir, "input.json")}"` }] }] };
    writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks, permissions: { defaultMode: mode } }));
    const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "hello"];
    const { code, stderr } = await harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }).result;
    assert.equal(code, 0, stderr);
    const input = JSON.parse(readFileSync(join(dir, "input.json"), "utf8")) as { hook_event_name: string; permission_mode: string };
    assert.deepEqual([input.hook_event_name, input.permission_mode], ["UserPromptSubmit", mode]);
  }
});

/** A project in a new directory whose UserPromptSubmit and PreToolUse hooks append their input, a
 * line each, to `inputs.jsonl`; `read` answers the inputs so far as [event, permission_mode]. */
function recordingProject(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t);
  const log = join(dir, "inputs.jsonl");
  const record = [{ hooks: [{ type: "command", command: `cat >> "${log}"; echo >> "${log}"` }] }];
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: record, PreToolUse: record } }));
  writeFileSync(join(dir, "notes.txt"), "a note\n");
  const read = () =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { hook_event_name: string; permission_mode: string })
      .map((input) => [input.hook_event_name, input.permission_mode]);
  return { dir, read };
}

test("--permission-mode: UserPromptSubmit and PreToolUse hooks are told the mode the run was given, each of the five", async (t) => {
  for (const mode of ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]) {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Read it." }] }));
    const { dir, read } = recordingProject(t);
    const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", mode, "read the note"];
    const { code, stderr } = await harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }).result;
    assert.equal(code, 0, stderr);
    assert.deepEqual(read(), [["UserPromptSubmit", mode], ["PreToolUse", mode]], `--permission-mode ${mode}`);
  }
});

test("a plan approved mid-run (ExitPlanMode allowed by a rule): the hooks of the calls after it are told default", async (t) => {
  const replies = [{ toolUses: [{ name: "ExitPlanMode", input: { plan: "Read the note." } }] }, { toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Read it." }];
  const fake = await withFake(t, startFakeAnthropic({ replies }));
  const { dir, read } = recordingProject(t);
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "plan", "--allowedTools", "ExitPlanMode", "plan, then read the note"];
  const { code, stderr } = await harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }).result;
  assert.equal(code, 0, stderr);
  assert.deepEqual(read(), [["UserPromptSubmit", "plan"], ["PreToolUse", "plan"], ["PreToolUse", "default"]]);
});

test("stream-json input: set_permission_mode between turns reaches the hooks of the turns after it, dontAsk as dontAsk", async (t) => {
  const replies = [{ text: "One." }, { toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Two." }, { text: "Three." }];
  const fake = await withFake(t, startFakeAnthropic({ replies }));
  const { dir, read } = recordingProject(t);
  // Each line is written once the run has answered the one before it: the modes change between
  // turns, not while the input is read ahead.
  const script = [
    userLine("first"),
    controlLine("m-1", { subtype: "set_permission_mode", mode: "dontAsk" }),
    userLine("second"),
    controlLine("m-2", { subtype: "set_permission_mode", mode: "acceptEdits" }),
    userLine("third"),
  ];
  let results = 0;
  let sent = 0;
  const run = harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM_JSON], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir }, {
    stdin: { open: true },
    onStdout: (text) => {
      const lines = streamLinesOf(text);
      const answered = lines.filter((line) => line.type === "result" || line.type === "control_response").length;
      if (answered > results) {
        results = answered;
        send();
      }
    },
  });
  const send = () => {
    if (sent === script.length) return run.child.stdin!.end();
    run.child.stdin!.write(script[sent++]!);
  };
  send();
  const { code, stdout, stderr } = await run.result;
  assert.equal(code, 0, stderr);
  assert.deepEqual(streamLinesOf(stdout).filter((line) => line.type === "result").map((line) => line.result), ["One.", "Two.", "Three."]);
  assert.deepEqual(read(), [["UserPromptSubmit", "default"], ["UserPromptSubmit", "dontAsk"], ["PreToolUse", "dontAsk"], ["UserPromptSubmit", "acceptEdits"]]);
});
