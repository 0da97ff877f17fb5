// `harness run "/todos"`, "/export", "/model", "/permissions" and "/add-dir": Claude Code's built-ins
// for the conversation and the run, answered without a model call; a project's own command of the
// name still wins.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, type FakeReply } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const TODOS = [
  { content: "Write the parser", status: "completed", activeForm: "Writing the parser" },
  { content: "Test the parser", status: "in_progress", activeForm: "Testing the parser" },
  { content: "Document it", status: "pending", activeForm: "Documenting it" },
];

/** A project and a home of their own, and `harness run` in them against a fake with `replies`. */
async function project(t: { after(fn: () => unknown): void }, replies: FakeReply[]) {
  const fake = await withFake(t, startFakeAnthropic({ replies }));
  const cwd = realpathSync(tempDir(t));
  const home = realpathSync(tempDir(t));
  const run = async (args: string[]) => {
    const { code, stdout, stderr } = await harness(["run", "--cwd", cwd, "--model", "claude-sonnet-4-6", ...args], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;
    assert.equal(code, 0, stderr);
    return stdout;
  };
  return { fake, cwd, home, run };
}

test('harness run "/todos" lists the todo list as the conversation\'s last TodoWrite left it, without a model call', async (t) => {
  const { fake, run } = await project(t, [{ toolUses: [{ name: "TodoWrite", input: { todos: TODOS } }] }, { text: "Planned." }]);
  assert.match(await run(["--permission-mode", "bypassPermissions", "plan the parser"]), /Planned\./);
  assert.equal(fake.requests.length, 2);

  const stdout = await run(["--continue", "/todos"]);
  assert.equal(stdout.trimEnd(), ["Todos: 1 of 3 completed", "", "  [x] Write the parser", "  [>] Test the parser", "  [ ] Document it"].join("\n"));
  assert.equal(fake.requests.length, 2, "the list needs no model call");

  // A conversation of its own has none.
  assert.equal((await run(["/todos"])).trimEnd(), "No todos: the list is empty (the model keeps it with its TodoWrite tool).");
});

test('harness run "/export FILE" writes the conversation to the file as text; without a file it prints it; neither asks the model', async (t) => {
  const { fake, cwd, run } = await project(t, [{ toolUses: [{ name: "Bash", input: { command: "echo hello-from-bash", description: "Say hello" } }] }, { text: "It said hello." }]);
  await run(["--permission-mode", "bypassPermissions", "run echo for me"]);
  assert.equal(fake.requests.length, 2);

  const stdout = await run(["--continue", "/export notes/chat.md"]);
  assert.equal(stdout.trimEnd(), `Conversation exported to ${join(cwd, "notes", "chat.md")}`);
  const text = readFileSync(join(cwd, "notes", "chat.md"), "utf8");
  assert.match(text, /^> run echo for me\n/);
  assert.match(text, /⏺ Bash\(echo hello-from-bash\)\n {2}⎿ {2}hello-from-bash\n/);
  assert.match(text, /⏺ It said hello\.\n/);

  assert.equal(await run(["--continue", "/export"]), text, "printed as it is written");
  assert.equal(fake.requests.length, 2, "exporting needs no model call");
});

test('harness run "/export" into a directory that is a file, or outside the working directories, says so', async (t) => {
  const { cwd, run } = await project(t, [{ text: "Hi." }]);
  writeFileSync(join(cwd, "taken"), "");
  await run(["hello"]);
  assert.match(await run(["--continue", "/export taken/chat.md"]), /^Cannot export the conversation to .*taken\/chat\.md: /);
  // Nowhere outside the working directories: the command passes no permission check.
  assert.match(await run(["--continue", "/export ../outside.md"]), /^Cannot export the conversation to .*\/outside\.md: it is outside the working directories/);
});

test('harness run "/model" lists the current model, the aliases and the models the settings allow, without a model call', async (t) => {
  const { fake, run } = await project(t, []);
  const stdout = await run(["/model"]);
  assert.match(stdout, /^Current model: claude-sonnet-4-6\n/);
  for (const alias of ["default", "sonnet", "opus", "haiku"]) assert.match(stdout, new RegExp(`^ {2}${alias} +→ \\S+`, "m"));
  assert.match(stdout, /\/model ID/);

  const limited = await run(["--managed-settings", JSON.stringify({ availableModels: ["sonnet", "claude-haiku-4-5"] }), "/model"]);
  assert.match(limited, /^Models the settings allow \(availableModels\):\n {2}sonnet\n {2}claude-haiku-4-5$/m);
  assert.doesNotMatch(limited, /^ {2}opus/m, "an alias the list leaves out is not offered");
  assert.equal(fake.requests.length, 0);
});

test('harness run "/permissions" lists the allow, ask and deny rules with the file each comes from, and the mode', async (t) => {
  const { fake, cwd, home, run } = await project(t, []);
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"] } }));
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { ask: ["WebFetch"] } }));
  const stdout = await run(["--permission-mode", "acceptEdits", "/permissions"]);
  assert.match(stdout, /^Permission mode: acceptEdits$/m);
  assert.match(stdout, new RegExp(`^Allow:\\n  Bash\\(npm test:\\*\\) · ${cwd}/\\.claude/settings\\.json$`, "m"));
  assert.match(stdout, new RegExp(`^Ask:\\n  WebFetch · ${home}/\\.claude/settings\\.json$`, "m"));
  assert.match(stdout, new RegExp(`^Deny:\\n  Read\\(\\./\\.env\\) · ${cwd}/\\.claude/settings\\.json$`, "m"));
  assert.equal(fake.requests.length, 0);
});

test('harness run "/add-dir PATH" says how to add a working directory, and lists those the run has', async (t) => {
  const { fake, cwd, run } = await project(t, []);
  const extra = realpathSync(tempDir(t));
  const stdout = await run(["--add-dir", extra, `/add-dir ${extra}/more`]);
  assert.match(stdout, new RegExp(`^Working directories:\\n  ${cwd}\\n  ${extra}$`, "m"));
  assert.match(stdout, new RegExp(`--add-dir ${extra}/more`));
  assert.equal(fake.requests.length, 0);
});

test("a project's own /todos command replaces the built-in and goes to the model", async (t) => {
  const { fake, cwd, run } = await project(t, [{ text: "From the model." }]);
  mkdirSync(join(cwd, ".claude", "commands"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "commands", "todos.md"), "List the TODO comments.\n");
  assert.match(await run(["/todos"]), /From the model\./);
  assert.equal(fake.requests.length, 1);
});

test('harness run "/help" lists the new built-ins', async (t) => {
  const { run } = await project(t, []);
  const stdout = await run(["/help"]);
  for (const usage of ["/todos", "/export [file]", "/model", "/permissions", "/add-dir <path>"]) assert.match(stdout, new RegExp(`^  ${usage.replace(/[[\]]/g, "\\$&")} — `, "m"));
});
