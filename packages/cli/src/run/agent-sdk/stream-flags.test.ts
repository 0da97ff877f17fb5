// The Claude Agent SDK's includeHookEvents, and --replay-user-messages passed as one of its
// extraArgs, through the real `harness` process it starts (pathToClaudeCodeExecutable).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { query, type HookCallback, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { startFakeAnthropic } from "@harness/test-utils";
import { tempDir, withFake } from "../../test-support.ts";
import { allMessages, sdkOptions } from "./test-support.ts";


const hookMessages = (messages: SDKMessage[]) => messages.filter((m) => m.type === "system" && (m.subtype === "hook_started" || m.subtype === "hook_response"));

test("Agent SDK: includeHookEvents brings the program's hook callbacks and the settings' command hooks as hook_started and hook_response messages", async (t) => {
  const replies = [{ toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "echo hi" } }] }, { text: "Done." }, { toolUses: [{ id: "toolu_2", name: "Bash", input: { command: "echo again" } }] }, { text: "Again." }];
  const fake = await withFake(t, startFakeAnthropic({ replies }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo checked" }] }] } }));
  const allow: HookCallback = async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
  const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [allow] }] };
  const messages = await allMessages(query({ prompt: "run it", options: sdkOptions(dir, fake.url, { hooks, includeHookEvents: true, settingSources: ["project"] }) }));
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success");
  const told = hookMessages(messages).map((m) => (m.type === "system" && m.subtype === "hook_response" ? [m.subtype, m.hook_name, m.outcome, m.stdout] : m.type === "system" && "hook_name" in m ? [m.subtype, m.hook_name] : []));
  assert.deepEqual(told, [
    ["hook_started", "PreToolUse:Bash"],
    ["hook_response", "PreToolUse:Bash", "success", JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } })],
    ["hook_started", "PostToolUse:Bash"],
    ["hook_response", "PostToolUse:Bash", "success", "checked\n"],
  ]);
  // Without it, the same run says nothing of its hooks.
  const quiet = await allMessages(query({ prompt: "run it again", options: sdkOptions(dir, fake.url, { hooks, settingSources: ["project"] }) }));
  assert.equal(quiet.at(-1)!.type === "result" && (quiet.at(-1) as { subtype: string }).subtype, "success");
  assert.deepEqual(hookMessages(quiet), []);
});

test("Agent SDK: --replay-user-messages among extraArgs gives back each message sent, as an SDKUserMessageReplay", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First." }, { text: "Second." }] }));
  const dir = tempDir(t);
  const sent = (text: string, uuid: string): SDKUserMessage => ({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "", uuid: uuid as SDKUserMessage["uuid"] });
  const ids = ["5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b", "6a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"];
  async function* prompts() {
    yield sent("one", ids[0]!);
    yield sent("two", ids[1]!);
  }
  const messages = await allMessages(query({ prompt: prompts(), options: sdkOptions(dir, fake.url, { extraArgs: { "replay-user-messages": null } }) }));
  const replays = messages.filter((m) => m.type === "user" && "isReplay" in m && m.isReplay);
  assert.deepEqual(replays.map((m) => m.type === "user" && [m.uuid, m.message.content]), [[ids[0], "one"], [ids[1], "two"]]);
  assert.equal(messages.filter((m) => m.type === "result").length, 2);
});
