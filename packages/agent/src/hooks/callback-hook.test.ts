// Callback hooks: the program's own code answers as a command hook's JSON output would.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runHooks } from "./run-hooks.ts";
import type { CallbackHook, HooksConfig, PreToolUseInput } from "./types.ts";

const input: PreToolUseInput = { session_id: "s", transcript_path: "/t", cwd: "/w", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1" };
const opts = () => ({ cwd: "/w", projectDir: "/w", signal: new AbortController().signal });
const callback = (id: string, call: CallbackHook["call"], timeout?: number): CallbackHook => ({ type: "callback", id, call, ...(timeout && { timeout }) });
const on = (...hooks: CallbackHook[]): HooksConfig => ({ PreToolUse: [{ matcher: "Bash", hooks }] });

test("a callback hook gets the event's input; its answer is read as JSON output: continue false, updatedInput, a systemMessage", async () => {
  const seen: unknown[] = [];
  const result = await runHooks(
    on(
      callback("a", async (given) => {
        seen.push(given);
        return { continue: false, stopReason: "enough", systemMessage: "told the user", hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "ls -a" } } };
      }),
    ),
    "PreToolUse",
    input,
    opts(),
  );
  assert.deepEqual(seen, [input]);
  assert.equal(result.continue, false);
  assert.equal(result.stopReason, "enough");
  assert.equal(result.permissionDecision, "allow");
  assert.deepEqual(result.updatedInput, { command: "ls -a" });
  assert.deepEqual(result.userMessages, ["told the user"]);
});

test("a callback that fails, answers what is no object, or outlives its timeout blocks nothing and is said to the user", async () => {
  const result = await runHooks(
    on(
      callback("fails", async () => {
        throw new Error("no callback hook_9");
      }),
      callback("odd", async () => "yes"),
      callback("slow", (_, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("withdrawn")))), 0.05),
      callback("quiet", async () => undefined),
    ),
    "PreToolUse",
    input,
    opts(),
  );
  assert.equal(result.blocked, false);
  assert.equal(result.permissionDecision, undefined);
  assert.equal(result.userMessages.length, 3);
  assert.match(result.userMessages[0]!, /callback fails.*failed: no callback hook_9/);
  assert.match(result.userMessages[1]!, /callback odd.*not a JSON object/);
  assert.match(result.userMessages[2]!, /callback slow.*timed out/);
});

test("a callback set to block on failure blocks what its event guards when it fails, answers what is no object or times out; not on Stop", async () => {
  const failing = (id: string, call: CallbackHook["call"], timeout?: number): CallbackHook => ({ ...callback(id, call, timeout), onFailure: "block" });
  for (const [id, call, timeout] of [
    ["fails", async () => Promise.reject(new Error("the policy service is down")), undefined],
    ["odd", async () => "yes", undefined],
    ["slow", (_: unknown, signal: AbortSignal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("withdrawn")))), 0.05],
  ] as const) {
    const result = await runHooks(on(failing(id, call as CallbackHook["call"], timeout)), "PreToolUse", input, opts());
    assert.equal(result.permissionDecision, "deny", id);
    assert.match(result.permissionDecisionReason ?? "", new RegExp(`callback ${id}`), id);
  }
  const denied = await runHooks(on(failing("fails", async () => Promise.reject(new Error("the policy service is down")))), "PreToolUse", input, opts());
  assert.match(denied.permissionDecisionReason ?? "", /the policy service is down/);
  const answered = await runHooks(on(failing("fine", async () => ({}))), "PreToolUse", input, opts());
  assert.equal(answered.permissionDecision, undefined, "an answer blocks nothing");
  const stop = await runHooks({ Stop: [{ hooks: [failing("fails", async () => Promise.reject(new Error("down")))] }] }, "Stop", { session_id: "s", transcript_path: "/t", cwd: "/w", hook_event_name: "Stop", stop_hook_active: false }, opts());
  assert.equal(stop.blocked, false, "a failed Stop hook does not keep the turn going");
});
