// Auto memory through `harness run`, as Claude Code has it: the MEMORY.md of the project's directory
// under ~/.claude/projects reaches the model with the other memory files, the system prompt says
// where the directory is, the model writes there without being asked about it, and the
// CLAUDE_CODE_DISABLE_AUTO_MEMORY switch or the settings' autoMemoryEnabled turn all of it off.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A project and a home whose auto memory for it holds a note; the directory as Claude Code names it. */
function place(t: { after(fn: () => unknown): void }) {
  const home = tempDir(t);
  const project = tempDir(t);
  const memory = join(home, ".claude", "projects", project.replace(/[^a-zA-Z0-9]/g, "-"), "memory");
  write(join(memory, "MEMORY.md"), "- [Tests](testing.md) — AUTO-MEMORY-MARKER: run tests with node --test\n");
  return { home, project, memory };
}

test("the MEMORY.md of the project's auto memory directory is in the first request, and the system prompt names the directory", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const { home, project, memory } = place(t);
  const run = await harness(["run", "--cwd", project, "hi"], { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(run.code, 0, run.stderr);
  const body = fake.requests[0]!.body;
  const messages = JSON.stringify(body.messages);
  assert.match(messages, /user's auto-memory, persists across conversations/);
  assert.match(messages, /AUTO-MEMORY-MARKER/);
  assert.ok(JSON.stringify(body.system).includes(`${memory}/`), "the system prompt names the directory");
});

test("CLAUDE_CODE_DISABLE_AUTO_MEMORY=1, or autoMemoryEnabled: false in the project's settings, leaves auto memory out", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }] }));
  const { home, project, memory } = place(t);
  const env = { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const off = await harness(["run", "--cwd", project, "hi"], { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }).result;
  assert.equal(off.code, 0, off.stderr);
  write(join(project, ".claude", "settings.json"), JSON.stringify({ autoMemoryEnabled: false }));
  const opted = await harness(["run", "--cwd", project, "hi"], env).result;
  assert.equal(opted.code, 0, opted.stderr);
  for (const request of fake.requests) {
    const body = JSON.stringify(request.body);
    assert.doesNotMatch(body, /AUTO-MEMORY-MARKER/);
    assert.ok(!body.includes(memory), "the directory is not named");
  }
});

test("in default mode the model's Write into the auto memory directory is not asked about; a Write into the project still is", async (t) => {
  const { home, project, memory } = place(t);
  const note = join(memory, "testing.md");
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        {
          toolUses: [
            { id: "toolu_mem", name: "Write", input: { file_path: note, content: "Run the tests with node --test.\n" } },
            { id: "toolu_proj", name: "Write", input: { file_path: join(project, "notes.md"), content: "x\n" } },
          ],
        },
        { text: "Saved." },
      ],
    }),
  );
  const run = await harness(["run", "--cwd", project, "--output-format", "json", "remember how to run the tests"], { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(note, "utf8"), "Run the tests with node --test.\n");
  assert.deepEqual(JSON.parse(run.stdout).permission_denials.map((d: { tool_use_id: string }) => d.tool_use_id), ["toolu_proj"]);
  assert.equal(existsSync(join(project, "notes.md")), false);
});

test("autoMemoryDirectory in a project's shared settings is ignored with a warning; in the user's settings it moves the directory", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }] }));
  const { home, project } = place(t);
  const elsewhere = join(home, "notes");
  write(join(elsewhere, "MEMORY.md"), "- ELSEWHERE-MARKER\n");
  const env = { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  write(join(project, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/notes" }));
  const shared = await harness(["run", "--cwd", project, "hi"], env).result;
  assert.equal(shared.code, 0, shared.stderr);
  assert.match(shared.stderr, /autoMemoryDirectory/);
  assert.match(JSON.stringify(fake.requests[0]!.body), /AUTO-MEMORY-MARKER/);

  write(join(project, ".claude", "settings.json"), "{}");
  write(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/notes" }));
  const user = await harness(["run", "--cwd", project, "hi"], env).result;
  assert.equal(user.code, 0, user.stderr);
  const body = JSON.stringify(fake.requests[1]!.body);
  assert.match(body, /ELSEWHERE-MARKER/);
  assert.doesNotMatch(body, /AUTO-MEMORY-MARKER/);
});

test("an autoMemoryDirectory that is not absolute is refused, naming the setting", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }] }));
  const { home, project } = place(t);
  write(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "notes" }));
  const run = await harness(["run", "--cwd", project, "hi"], { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /autoMemoryDirectory.*must be an absolute path or start with ~\//);
  assert.match(JSON.stringify(fake.requests[0]!.body), /AUTO-MEMORY-MARKER/, "the default directory is used");
});
