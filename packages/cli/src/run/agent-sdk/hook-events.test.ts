// The Claude Agent SDK's hooks of query() for PermissionDenied and InstructionsLoaded, through the
// real `harness` process (pathToClaudeCodeExecutable) and the fake Anthropic server.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { query, type HookCallback, type HookInput, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { startFakeAnthropic } from "@harness/test-utils";
import { tempDir, withFake } from "../../test-support.ts";
import { SDK_EXECUTABLE } from "./test-support.ts";


test("Agent SDK: PermissionDenied and InstructionsLoaded hooks of query() are called, and a PermissionDenied retry reaches the model", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_rm", name: "Bash", input: { command: "rm -rf build" } }] }, { text: "Stopped." }] }));
  const dir = tempDir(t);
  writeFileSync(join(dir, "CLAUDE.md"), "Answer briefly.\n");
  const seen: HookInput[] = [];
  const denied: HookCallback = async (input) => {
    seen.push(input);
    return { hookSpecificOutput: { hookEventName: "PermissionDenied", retry: true } };
  };
  const loaded: HookCallback = async (input) => {
    seen.push(input);
    return {};
  };
  const stderr: string[] = [];
  const messages: SDKMessage[] = [];
  const run = query({
    prompt: "clean up",
    options: {
      pathToClaudeCodeExecutable: SDK_EXECUTABLE,
      cwd: dir,
      model: "claude-sonnet-4-6",
      settingSources: ["project"],
      env: { ...process.env, HOME: dir, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, NO_COLOR: "1", HARNESS_MODEL_RETRIES: "0", HARNESS_RETRY_BASE_MS: "1" },
      stderr: (text: string) => stderr.push(text),
      hooks: { PermissionDenied: [{ matcher: "Bash", hooks: [denied] }], InstructionsLoaded: [{ matcher: "session_start", hooks: [loaded] }] },
    },
  });
  for await (const message of run) messages.push(message);
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.doesNotMatch(stderr.join(""), /are not run/);

  const denial = seen.find((input) => input.hook_event_name === "PermissionDenied");
  assert.ok(denial && denial.hook_event_name === "PermissionDenied");
  assert.deepEqual([denial.tool_name, denial.tool_input, denial.tool_use_id], ["Bash", { command: "rm -rf build" }, "toolu_rm"]);
  assert.match(denial.reason, /no one to approve/);
  const load = seen.find((input) => input.hook_event_name === "InstructionsLoaded");
  assert.ok(load && load.hook_event_name === "InstructionsLoaded");
  assert.deepEqual([load.file_path, load.memory_type, load.load_reason], [join(dir, "CLAUDE.md"), "Project", "session_start"]);
  assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /may retry/);
});
