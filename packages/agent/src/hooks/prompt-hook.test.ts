import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { hookQuestion, readVerdict } from "./prompt-hook.ts";
import { runHooks } from "./run-hooks.ts";
import type { HookEvaluation, HookEvaluator, HooksConfig, PreToolUseInput, PromptHook } from "./types.ts";

const input: PreToolUseInput = { session_id: "s1", transcript_path: "/t.jsonl", cwd: "/w", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git push --force" }, tool_use_id: "toolu_1" };
const stopInput = { session_id: "s1", transcript_path: "/t.jsonl", cwd: "/w", hook_event_name: "Stop" as const, stop_hook_active: false };

/** An evaluator answering `text` (or failing), keeping every question it was asked. */
function answering(answer: { text: string } | { error: string } | ((request: HookEvaluation) => Promise<{ text: string } | { error: string }>)) {
  const asked: HookEvaluation[] = [];
  const evaluate: HookEvaluator = async (request) => {
    asked.push(request);
    return typeof answer === "function" ? answer(request) : answer;
  };
  return { asked, evaluate };
}
const opts = (evaluate?: HookEvaluator, signal = new AbortController().signal) => ({ cwd: "/w", projectDir: "/w", signal, ...(evaluate && { evaluate }) });
const prompt = (text: string, extra: Partial<PromptHook> = {}): PromptHook => ({ type: "prompt", prompt: text, ...extra });
const onPre = (...hooks: PromptHook[]): HooksConfig => ({ PreToolUse: [{ hooks }] });

describe("prompt hooks", () => {
  test("the model gets the prompt with the event's JSON where $ARGUMENTS stands, or after it", async () => {
    const { asked, evaluate } = answering({ text: '{"ok": true}' });
    await runHooks(onPre(prompt("Is this safe? $ARGUMENTS Answer briefly.", { model: "haiku" })), "PreToolUse", input, opts(evaluate));
    await runHooks(onPre(prompt("Is this safe?")), "PreToolUse", input, opts(evaluate));
    const json = JSON.stringify(input);
    assert.equal(asked[0]!.prompt, `Is this safe? ${json} Answer briefly.`);
    assert.equal(asked[0]!.model, "haiku");
    assert.equal(asked[0]!.kind, "prompt");
    assert.equal(asked[1]!.prompt, `Is this safe?\n\n${json}`);
    assert.equal(asked[1]!.model, undefined);
  });

  test('{"ok": true} lets the action go on', async () => {
    const result = await runHooks(onPre(prompt("Safe?")), "PreToolUse", input, opts(answering({ text: '{"ok": true}' }).evaluate));
    assert.equal(result.blocked, false);
    assert.equal(result.continue, true);
    assert.equal(result.permissionDecision, undefined);
    assert.deepEqual(result.userMessages, []);
  });

  test('{"ok": false} on PreToolUse refuses the call and ends the turn, the reason shown', async () => {
    const result = await runHooks(onPre(prompt("Safe?")), "PreToolUse", input, opts(answering({ text: '{"ok": false, "reason": "Force-pushing rewrites shared history."}' }).evaluate));
    assert.equal(result.permissionDecision, "deny");
    assert.equal(result.blockReason, "Force-pushing rewrites shared history.");
    assert.equal(result.continue, false);
    assert.equal(result.stopReason, "Force-pushing rewrites shared history.");
  });

  test('{"ok": false} on Stop keeps the agent going with the reason as its next instruction', async () => {
    const config: HooksConfig = { Stop: [{ hooks: [prompt("Are all tasks done? $ARGUMENTS")] }] };
    const result = await runHooks(config, "Stop", stopInput, opts(answering({ text: 'Looking at it:\n```json\n{"ok": false, "reason": "The tests were not run."}\n```' }).evaluate));
    assert.equal(result.blocked, true);
    assert.equal(result.blockReason, "The tests were not run.");
    assert.equal(result.continue, true);
  });

  test("an answer without a verdict, a failed request, no model and a timeout tell the user and block nothing", async () => {
    const hanging = answering((request) => new Promise((resolve) => request.signal.addEventListener("abort", () => resolve({ error: "it was cancelled" }))));
    const cases = [
      await runHooks(onPre(prompt("Safe?")), "PreToolUse", input, opts(answering({ text: "Sure, looks fine to me." }).evaluate)),
      await runHooks(onPre(prompt("Safe?")), "PreToolUse", input, opts(answering({ error: "its model request failed: 529 overloaded" }).evaluate)),
      await runHooks(onPre(prompt("Safe?")), "PreToolUse", input, opts()),
      await runHooks(onPre(prompt("Safe?", { timeout: 0.2 })), "PreToolUse", input, opts(hanging.evaluate)),
    ];
    for (const result of cases) {
      assert.equal(result.blocked, false);
      assert.equal(result.continue, true);
      assert.equal(result.userMessages.length, 1);
    }
    const [noVerdict, failed, noModel, slow] = cases.map((result) => result.userMessages[0]!);
    assert.match(noVerdict, /PreToolUse hook `prompt: Safe\?` failed: its model answered without a verdict .*: Sure, looks fine to me\./);
    assert.match(failed, /failed: its model request failed: 529 overloaded/);
    assert.match(noModel, /failed: no model is available to this run's hooks/);
    assert.match(slow, /timed out after 0\.2 s and its model was not waited for any longer/);
    assert.equal(hanging.asked[0]!.signal.aborted, true, "the model request is cancelled at the timeout");
  });

  test("agent hooks ask as agents, and several hooks are asked at once", async () => {
    let running = 0;
    let most = 0;
    const { asked, evaluate } = answering(async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running--;
      return { text: '{"ok": true}' };
    });
    const config: HooksConfig = { Stop: [{ hooks: [{ type: "agent", prompt: "Do the tests pass?" }, prompt("Anything left to do?")] }] };
    await runHooks(config, "Stop", stopInput, opts(evaluate));
    assert.deepEqual(asked.map((a) => a.kind).sort(), ["agent", "prompt"]);
    assert.equal(most, 2);
  });
});

describe("readVerdict and hookQuestion", () => {
  test("a verdict is found in plain JSON, a code fence or a sentence, and nothing else passes", () => {
    assert.deepEqual(readVerdict('{"ok": true}'), { ok: true });
    assert.deepEqual(readVerdict('Verdict: {"ok": false, "reason": "a {brace} in a string"} — done'), { ok: false, reason: "a {brace} in a string" });
    assert.deepEqual(readVerdict('The format is {"ok": true}. Mine: {"ok": false, "reason": "tests fail"}'), { ok: false, reason: "tests fail" }, "the last verdict is the model's own");
    assert.equal(readVerdict('{"ok": "yes"}'), undefined);
    assert.equal(readVerdict("ok"), undefined);
    assert.equal(readVerdict("{not json}"), undefined);
  });

  test("$ARGUMENTS is replaced literally, even where the JSON holds $ patterns", () => {
    assert.equal(hookQuestion("A $ARGUMENTS B $ARGUMENTS", '{"x":"$&"}'), 'A {"x":"$&"} B {"x":"$&"}');
  });
});
