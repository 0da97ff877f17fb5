// Hook inputs name the run's permission mode as it is, dontAsk included (the Agent SDK's
// PermissionMode), never as one of the others.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "./test-support.ts";

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
