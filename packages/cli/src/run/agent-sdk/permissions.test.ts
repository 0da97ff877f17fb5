// The Claude Agent SDK driving `harness run` over several turns of one conversation: the session's
// permission updates hold for the turns after the one they were given in, whoever gave them.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { query, type CanUseTool, type HookCallback, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { startFakeAnthropic } from "@harness/test-utils";
import { tempDir, withFake } from "../../test-support.ts";
import { sdkOptions } from "./test-support.ts";


/** Sends "first", then "second" once the first turn's result has come; returns the messages of both. */
async function twoTurns(more: Record<string, unknown>, fakeUrl: string, dir: string): Promise<SDKMessage[]> {
  let firstDone!: () => void;
  const first = new Promise<void>((resolve) => (firstDone = resolve));
  const said = (text: string): SDKUserMessage => ({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null });
  async function* prompts() {
    yield said("first");
    await first;
    yield said("second");
  }
  const messages: SDKMessage[] = [];
  let results = 0;
  for await (const message of query({ prompt: prompts(), options: sdkOptions(dir, fakeUrl, more) })) {
    messages.push(message);
    if (message.type !== "result") continue;
    if (++results === 1) firstDone();
    else break;
  }
  return messages;
}

test("Agent SDK: a session rule a PermissionRequest hook's allow gives holds for the next turns too, as canUseTool's does", async (t) => {
  const bash = (id: string, command: string) => ({ toolUses: [{ id, name: "Bash", input: { command } }] });
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), { text: "One." }, bash("toolu_b", "touch b.txt"), { text: "Two." }] }));
  const dir = tempDir(t);
  const hookAsked: string[] = [];
  const decide: HookCallback = async (input) => {
    hookAsked.push(String((input as { tool_input: { command?: string } }).tool_input.command));
    if (hookAsked.length > 1) return {};
    const rule = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "session" };
    return { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: [rule] } } } as never;
  };
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (tool, input) => {
    asked.push(`${tool} ${String(input.command)}`);
    return { behavior: "deny", message: "asked" };
  };
  const messages = await twoTurns({ canUseTool, hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [decide] }] } }, fake.url, dir);
  assert.deepEqual(messages.filter((m) => m.type === "result").map((m) => m.type === "result" && m.subtype), ["success", "success"]);
  assert.deepEqual(hookAsked, ["touch a.txt"], "the second turn's touch is not asked of the hook");
  assert.deepEqual(asked, [], "nor of canUseTool");
  for (const file of ["a.txt", "b.txt"]) assert.ok(existsSync(join(dir, file)), file);
});

test("Agent SDK: a PermissionRequest hook's setMode to bypassPermissions, without allowDangerouslySkipPermissions, is refused in a notice naming the hook, and no later turn bypasses", async (t) => {
  const bash = (id: string, command: string) => ({ toolUses: [{ id, name: "Bash", input: { command } }] });
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_a", "touch a.txt"), { text: "One." }, bash("toolu_m", "mkdir made"), { text: "Two." }] }));
  const dir = tempDir(t);
  const decide: HookCallback = async (input) => {
    if (!String((input as { tool_input: { command?: string } }).tool_input.command).startsWith("touch")) return {};
    const toBypass = { type: "setMode", mode: "bypassPermissions", destination: "session" };
    return { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: [toBypass] } } } as never;
  };
  const canUseTool: CanUseTool = async () => ({ behavior: "deny", message: "asked" });
  let stderr = "";
  const messages = await twoTurns({ canUseTool, hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [decide] }] }, stderr: (text: string) => (stderr += text) }, fake.url, dir);
  const notices = messages.flatMap((m) => (m.type === "system" && m.subtype === "informational" ? [m.content] : []));
  assert.ok(notices.some((text) => /setMode bypassPermissions of a PermissionRequest hook is refused.*allowDangerouslySkipPermissions/.test(text)), JSON.stringify(notices));
  assert.doesNotMatch(stderr, /can_use_tool/);
  assert.ok(existsSync(join(dir, "a.txt")));
  assert.equal(existsSync(join(dir, "made")), false, "the second turn asked, and was denied");
});

test("Agent SDK: setPermissionMode('bypassPermissions') is refused where the settings disable it, even with allowDangerouslySkipPermissions, and the next turn still asks", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, { toolUses: [{ id: "toolu_m", name: "Bash", input: { command: "mkdir made" } }] }, { text: "Two." }] }));
  const dir = tempDir(t);
  let firstResult!: () => void;
  const firstDone = new Promise<void>((resolve) => (firstResult = resolve));
  let refusal: unknown;
  const said = (text: string): SDKUserMessage => ({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null });
  async function* prompts() {
    yield said("first");
    await firstDone;
    await run.setPermissionMode("bypassPermissions").catch((error: unknown) => (refusal = error));
    yield said("second");
  }
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (tool, input) => {
    asked.push(`${tool} ${String(input.command)}`);
    return { behavior: "deny", message: "no" };
  };
  const more = { canUseTool, allowDangerouslySkipPermissions: true, settings: { permissions: { disableBypassPermissionsMode: "disable" } } };
  const run = query({ prompt: prompts(), options: sdkOptions(dir, fake.url, more) });
  let results = 0;
  for await (const message of run) {
    if (message.type !== "result") continue;
    if (++results === 1) firstResult();
    else break;
  }
  assert.match(String(refusal), /disableBypassPermissionsMode/);
  assert.deepEqual(asked, ["Bash mkdir made"]);
  assert.equal(existsSync(join(dir, "made")), false);
});
