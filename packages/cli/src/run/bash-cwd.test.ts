// `harness run`: the model's `cd` in one Bash call holds for its next, as in Claude Code; a `cd`
// out of the working directories is undone, with Claude Code's note in what the model is told.
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const bash = (id: string, command: string) => ({ toolUses: [{ id, name: "Bash", input: { command } }] });

test("harness run: Bash starts where the model's last `cd` left it, and back in the project after a `cd` outside it", async (t) => {
  const outside = realpathSync(tempDir(t));
  const fake = await withFake(t, startFakeAnthropic({ replies: [bash("toolu_1", "cd sub && echo moved"), bash("toolu_2", `pwd; cd ${outside}`), bash("toolu_3", "pwd"), { text: "Done." }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, "sub"));
  const { code, stderr } = await harness(["run", "--cwd", dir, "--dangerously-skip-permissions", "--", "look around"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  const told = (n: number) => (fake.requests[n]!.body.messages as { content: { type: string; content: unknown }[] }[]).at(-1)!.content.find((b) => b.type === "tool_result")!.content;
  const real = realpathSync(dir);
  assert.equal(told(1), "moved");
  assert.equal(told(2), `${join(real, "sub")}\nShell cwd was reset to ${dir}`);
  assert.equal(told(3), real);
});
