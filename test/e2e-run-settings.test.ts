// `harness run` end to end against the fake Anthropic server, for settings that change what a run
// reads and does: claudeMdExcludes, disableSkillShellExecution and autoCompactEnabled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../packages/cli/src/test-support.ts";

test("a project's settings leave CLAUDE.local.md unread, run no ! command, and stop a run at the context limit instead of compacting", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "Glob", input: { pattern: "*" } }], usage: { input_tokens: 190_000 } }, { text: "never asked" }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "commands"), { recursive: true });
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ claudeMdExcludes: ["**/CLAUDE.local.md"], disableSkillShellExecution: true, autoCompactEnabled: false }));
  writeFileSync(join(dir, ".claude", "commands", "st.md"), "State: !`touch RAN`");
  writeFileSync(join(dir, "CLAUDE.md"), "Shared memory loads.");
  writeFileSync(join(dir, "CLAUDE.local.md"), "Personal memory stays out.");

  const { code, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "/st"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: tempDir(t) }).result;
  assert.notEqual(code, 0);
  assert.match(stderr, /Context limit reached: .*automatic compaction is off .*run \/compact or \/clear to continue/);
  assert.equal(fake.requests.length, 1, "no summary request, and not the request that would overflow");
  const sent = JSON.stringify(fake.requests[0]!.body);
  assert.match(sent, /Shared memory loads/);
  assert.doesNotMatch(sent, /Personal memory/);
  assert.match(sent, /State: \[shell command execution disabled by policy\]/);
  assert.equal(existsSync(join(dir, "RAN")), false);
});
