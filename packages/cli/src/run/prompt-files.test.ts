// `harness run --system-prompt-file` and `--append-system-prompt-file`: the prompt is read from the
// file; a file that cannot be read stops the run; `--effort xhigh` says what it runs at.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

test("the system prompt and what is appended to it come from the files named", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done." }] }));
  const dir = tempDir(t);
  writeFileSync(join(dir, "system.md"), "You review code tersely.");
  writeFileSync(join(dir, "extra.md"), "Answer in French.");
  const { code, stdout, stderr } = await harness(["run", "--system-prompt-file", "system.md", "--append-system-prompt-file", join(dir, "extra.md"), "review"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: dir }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Done.\n");
  const system = JSON.stringify(fake.requests[0].body.system);
  assert.match(system, /You review code tersely\./);
  assert.match(system, /Answer in French\./);
  assert.ok(system.indexOf("tersely") < system.indexOf("French"), "appended after");
});

test("a file that is not there is one line naming the flag and the file, exit 1, and no model call", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done." }] }));
  const dir = tempDir(t);
  const { code, stderr } = await harness(["run", "--append-system-prompt-file", "absent.md", "review"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: dir }).result;
  assert.equal(code, 1);
  assert.match(stderr, /^harness: --append-system-prompt-file: cannot read .*absent\.md: no such file\n$/);
  assert.equal(fake.requests.length, 0);
});

test("each file flag excludes its inline form", () => {
  assert.deepEqual(parseArgs(["run", "--system-prompt", "a", "--system-prompt-file", "b", "go"]), { kind: "usage-error", message: "--system-prompt and --system-prompt-file cannot go together: give one of them", topic: "run" });
  assert.deepEqual(parseArgs(["run", "--append-system-prompt-file", "b", "--append-system-prompt", "a", "go"]), {
    kind: "usage-error",
    message: "--append-system-prompt and --append-system-prompt-file cannot go together: give one of them",
    topic: "run",
  });
  assert.deepEqual(parseArgs(["run", "--system-prompt-file", "s.md", "--append-system-prompt", "a", "go"]), { kind: "run", prompt: "go", systemPromptFile: "s.md", appendSystemPrompt: "a" });
});

test("--effort xhigh runs at high and says so on stderr", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done." }] }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-opus-4-5", "--effort", "xhigh", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Done.\n");
  assert.match(stderr, /^harness: --effort xhigh: the models here take low, medium, high or max; running at high/m);
});
