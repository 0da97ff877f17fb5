import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { runHooks } from "./run-hooks.ts";
import { createHookSandbox, ifRule } from "./testing.ts";
import type { HookSandbox } from "./testing.ts";
import type { Hook, HookEvaluation, HooksConfig, PostToolUseInput, PreToolUseInput } from "./types.ts";

let box: HookSandbox;
before(() => {
  box = createHookSandbox();
});
after(() => box.remove());

const base = { session_id: "sess-1", transcript_path: "/tmp/transcript.jsonl", cwd: "/work/space" };
const preToolUse = (tool_name: string, tool_input: Record<string, unknown>): PreToolUseInput => ({ ...base, hook_event_name: "PreToolUse", tool_name, tool_input, tool_use_id: "toolu_1" });
const opts = () => ({ cwd: "/work/space", projectDir: box.dir, signal: new AbortController().signal });
const logTo = (file: string, text: string, condition?: string): Hook => ({ type: "command", command: `echo ${text} >> ${file}`, ...(condition && { if: ifRule(condition) }) });
const lines = (file: string) => (existsSync(box.path(file)) ? box.read(file).trim().split("\n") : []);

describe("runHooks: a hook's if", () => {
  test("a hook starts only for the calls its if meets; the others of its group start for all", async () => {
    const config: HooksConfig = { PreToolUse: [{ matcher: "Bash", hooks: [logTo("a.log", "commit", "Bash(git commit *)"), logTo("a.log", "any")] }] };
    await runHooks(config, "PreToolUse", preToolUse("Bash", { command: "echo hi" }), opts());
    assert.deepEqual(lines("a.log"), ["any"]);
    const blocked = await runHooks({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo no >&2; exit 2", if: ifRule("Bash(git commit *)") }] }] }, "PreToolUse", preToolUse("Bash", { command: "echo hi" }), opts());
    assert.equal(blocked.blocked, false, "a guard whose if is not met blocks nothing");
    assert.deepEqual(blocked.results, []);
    await runHooks(config, "PreToolUse", preToolUse("Bash", { command: "npm test && git commit -m x" }), opts());
    // The two hooks of the second call run at the same time, in either order.
    assert.deepEqual(lines("a.log").sort(), ["any", "any", "commit"]);
  });

  test("on PermissionDenied a hook starts only for the refused calls its if meets", async () => {
    const config: HooksConfig = { PermissionDenied: [{ matcher: "Bash", hooks: [logTo("denied.log", "rm", "Bash(rm *)")] }] };
    const denied = (command: string) => ({ ...base, hook_event_name: "PermissionDenied" as const, tool_name: "Bash", tool_input: { command }, tool_use_id: "t", reason: "no one to approve it" });
    await runHooks(config, "PermissionDenied", denied("touch x"), opts());
    await runHooks(config, "PermissionDenied", denied("rm -rf build"), opts());
    assert.deepEqual(lines("denied.log"), ["rm"]);
  });

  test("on PostToolUse a path rule reads the call's relative path from the agent's cwd, and /path from the project", async () => {
    const config: HooksConfig = { PostToolUse: [{ matcher: "Edit|Write", hooks: [logTo("post.log", "ts", "Write(/src/*.ts)")] }] };
    const post = (file_path: string, cwd: string): PostToolUseInput => ({ ...base, cwd, hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path, content: "" }, tool_response: {}, tool_use_id: "t" });
    await runHooks(config, "PostToolUse", post("src/a.ts", box.dir), { ...opts(), cwd: box.dir });
    await runHooks(config, "PostToolUse", post("src/a.js", box.dir), { ...opts(), cwd: box.dir });
    await runHooks(config, "PostToolUse", post("a.ts", box.path("src")), { ...opts(), cwd: box.path("src") });
    assert.deepEqual(lines("post.log"), ["ts", "ts"]);
  });

  test("the same command with two ifs the call meets starts twice; with the same if, once", async () => {
    const twice: HooksConfig = { PreToolUse: [{ hooks: [logTo("d.log", "x", "Bash(git *)"), logTo("d.log", "x", "Bash(git push *)")] }, { matcher: "Bash", hooks: [logTo("d.log", "x", "Bash(git *)")] }] };
    const result = await runHooks(twice, "PreToolUse", preToolUse("Bash", { command: "git push" }), opts());
    assert.equal(result.results.length, 2);
    assert.deepEqual(lines("d.log"), ["x", "x"]);
  });

  test("an http or prompt hook whose if is not met is not asked", async () => {
    const asked: HookEvaluation[] = [];
    const config: HooksConfig = {
      PreToolUse: [
        {
          hooks: [
            { type: "http", url: "http://127.0.0.1:9/never", if: ifRule("Bash(rm *)") },
            { type: "prompt", prompt: "Safe? $ARGUMENTS", if: ifRule("Bash(rm *)") },
          ],
        },
      ],
    };
    const evaluate = async (request: HookEvaluation) => {
      asked.push(request);
      return { text: '{"ok": true}' };
    };
    const result = await runHooks(config, "PreToolUse", preToolUse("Bash", { command: "ls" }), { ...opts(), evaluate });
    assert.deepEqual(result.results, []);
    assert.deepEqual(asked, []);
    const met = await runHooks(config, "PreToolUse", preToolUse("Bash", { command: "rm -rf build" }), { ...opts(), evaluate });
    assert.equal(met.results.length, 2);
    assert.equal(asked.length, 1);
  });

  test("a once hook is not used up by a call its if does not meet", async () => {
    const config: HooksConfig = { PreToolUse: [{ hooks: [{ type: "command", command: "cat >> once.log; echo >> once.log", if: ifRule("Bash(git *)"), once: true }] }] };
    const onceRan = new Set<string>();
    for (const command of ["ls", "git status", "git log"]) await runHooks(config, "PreToolUse", preToolUse("Bash", { command }), { ...opts(), onceRan });
    assert.deepEqual(lines("once.log").map((line) => (JSON.parse(line) as PreToolUseInput).tool_input.command), ["git status"]);
  });

  test("a hook with an if never starts on an event about no tool call", async () => {
    const config: HooksConfig = { Stop: [{ hooks: [logTo("stop.log", "stop", "Bash")] }] };
    const result = await runHooks(config, "Stop", { ...base, hook_event_name: "Stop", stop_hook_active: false }, opts());
    assert.deepEqual(result.results, []);
    assert.deepEqual(lines("stop.log"), []);
  });
});
