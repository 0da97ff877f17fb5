// A run whose project is the home directory: ~/.claude/settings.json is the user's settings and,
// by its place, the project's too; it counts once, as the user's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

test("in the home directory, ~/.claude/settings.json is read once: /hooks lists its hooks once, /status names it as the user's, its bypassPermissions draws no warning", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "from the model" }] }));
  const home = realpathSync(tempDir(t));
  mkdirSync(join(home, ".claude"));
  const file = join(home, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify({ permissions: { defaultMode: "bypassPermissions" }, hooks: { Stop: [{ hooks: [{ type: "command", command: "echo stop" }] }] } }));
  const run = (prompt: string) => harness(["run", "--cwd", home, "--model", "claude-sonnet-4-6", prompt], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;

  const hooks = await run("/hooks");
  assert.equal(hooks.code, 0, hooks.stderr);
  assert.equal(hooks.stdout.split("\n\n")[0], ["Hooks, by event:", "  Stop:", `    (all) · command: echo stop · ${file}`].join("\n"));
  assert.doesNotMatch(hooks.stderr, /bypassPermissions/);

  const status = await run("/status");
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /^Permission mode: +bypassPermissions$/m);
  assert.match(status.stdout, new RegExp(`Settings files in effect, lowest precedence first:\\n  user: ${file}\\n(?!  project)`));
  assert.equal(fake.requests.length, 0);
});
