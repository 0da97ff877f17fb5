// `harness run --plugin-dir`: a plugin's components in a run of the real command.
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { greeterPlugin, harness, tempDir, withFake } from "../test-support.ts";

test("--plugin-dir loads a plugin for the run: its command answers to /<plugin>:<name>, and stream-json's opening line lists it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hello, Ada." }] }));
  const dir = tempDir(t);
  const plugin = greeterPlugin(dir);
  const { code, stdout, stderr } = await harness(
    ["run", "--plugin-dir", "plugins/greeter", "--plugin-dir", "plugins/missing", "--model", "claude-sonnet-4-6", "--output-format", "stream-json", "/greeter:hello Ada"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
    { cwd: dir },
  ).result;
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const init = lines[0]!;
  assert.equal(init.subtype, "init");
  assert.deepEqual(init.plugins, [{ name: "greeter", path: plugin }]);
  assert.ok((init.slash_commands as string[]).includes("greeter:hello"), String(init.slash_commands));
  assert.equal(lines.at(-1)!.result, "Hello, Ada.");
  assert.match(JSON.stringify(fake.requests[0]!.body.messages), /Greet Ada warmly\./);
  const warned = lines.some((e) => e.type === "notice" && /Plugin missing is not loaded: its directory does not exist/.test(String(e.message)));
  assert.ok(warned, "a plugin directory that is not there is said, and the run goes on");
});
