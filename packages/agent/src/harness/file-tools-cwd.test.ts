// Glob, Grep and the file tools follow the shell's working directory, as Claude Code's do: after
// Bash's `cd sub`, a search without a path looks in sub, relative paths start there, and what they
// find is shown relative to it; the permission checks see the path the tool uses.
// CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR keeps them in the project's directory.
import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { ToolResultBlock } from "@harness/llm";
import { withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import type { ScriptedStep } from "../testing/scripted-provider.ts";
import type { RunAgentOptions } from "../types.ts";

type Call = { name: string; input: Record<string, unknown> };

/** One reply per call (ids c0, c1…), then "Done."; what the model got back, by id. */
async function run(t: Parameters<typeof tempProject>[0], calls: Call[], overrides: Partial<RunAgentOptions> = {}, settings?: Record<string, unknown>) {
  const project = await tempProject(t);
  await project.write("top.ts", "export const needle = 1;\n");
  await project.write("sub/a.ts", "export const needle = 2;\n");
  await project.write("sub/deeper/b.ts", "export const other = 3;\n");
  await project.write("sub/secret.txt", "hidden\n");
  if (settings) await project.settings(settings);
  const steps: ScriptedStep[] = [...calls.map((call, i) => ({ toolCalls: [{ id: `c${i}`, ...call }] })), { text: "Done." }];
  const { provider } = await runInProject(project, steps, { permissionMode: "bypassPermissions", ...overrides });
  const got = new Map<string, ToolResultBlock>();
  for (const request of provider.requests) {
    const last = withoutCacheMarks(request.messages).at(-1);
    if (!last || typeof last.content === "string") continue;
    for (const block of last.content) if (block.type === "tool_result") got.set(block.tool_use_id, block);
  }
  const told = (name: string) => provider.requests[0].tools?.find((tool) => tool.name === name)?.description ?? "";
  return { project, got, told, text: (id: string) => String(got.get(id)?.content) };
}

const bash = (command: string): Call => ({ name: "Bash", input: { command } });

test("after `cd sub`, Glob and Grep without a path search sub, and show what they find relative to it", async (t) => {
  const { text, told } = await run(t, [
    bash("cd sub"),
    { name: "Glob", input: { pattern: "*.ts" } },
    { name: "Glob", input: { pattern: "**/*.ts", path: "deeper" } },
    { name: "Grep", input: { pattern: "needle" } },
    { name: "Grep", input: { pattern: "needle", output_mode: "content", "-n": false } },
    { name: "Glob", input: { pattern: "*.ts", path: ".." } },
  ]);
  assert.equal(text("c1"), "a.ts");
  assert.equal(text("c2"), path.join("deeper", "b.ts"));
  assert.equal(text("c3"), "Found 1 file\na.ts");
  assert.equal(text("c4"), "a.ts:export const needle = 2;");
  // Above the shell's directory, paths are absolute, as anywhere outside it.
  assert.match(text("c5"), /^\/.*\/top\.ts$/);
  assert.match(told("Glob"), /the shell's current directory/);
  assert.match(told("Grep"), /the shell's current directory/);
});

test("after `cd sub`, Read, Write and Edit take relative file paths from sub", async (t) => {
  const { project, text } = await run(t, [
    bash("cd sub"),
    { name: "Read", input: { file_path: "a.ts" } },
    { name: "Write", input: { file_path: "new.txt", content: "made\n" } },
    { name: "Edit", input: { file_path: "a.ts", old_string: "needle = 2", new_string: "needle = 20" } },
  ]);
  assert.match(text("c1"), /export const needle = 2;/);
  assert.equal(await project.read("sub/new.txt"), "made\n");
  assert.equal(await project.exists("new.txt"), false);
  assert.equal(await project.read("sub/a.ts"), "export const needle = 20;\n");
});

test("with CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR, Glob and Grep stay in the project's directory after `cd sub`", async (t) => {
  const { text } = await run(
    t,
    [bash("cd sub"), { name: "Glob", input: { pattern: "*.ts" } }, { name: "Grep", input: { pattern: "needle" } }],
    {},
    { env: { CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "1" } },
  );
  assert.equal(text("c1"), "top.ts");
  const [header, ...files] = text("c2").split("\n");
  assert.equal(header, "Found 2 files");
  assert.deepEqual(files.sort(), [path.join("sub", "a.ts"), "top.ts"]);
});

test("the permission checks see the path a tool uses after `cd sub`: a deny rule holds, and the working directories stay the boundary", async (t) => {
  const { text, got } = await run(
    t,
    [bash("cd sub"), { name: "Read", input: { file_path: "secret.txt" } }, { name: "Grep", input: { pattern: "hidden" } }, { name: "Glob", input: { pattern: "*", path: "../.." } }, bash("cat secret.txt")],
    { permissionMode: "default" },
    { permissions: { deny: ["Read(./sub/secret.txt)"] } },
  );
  assert.equal(got.get("c1")?.is_error, true);
  assert.match(text("c1"), /denied/);
  assert.doesNotMatch(text("c1"), /hidden/);
  assert.match(text("c2"), /^No matches found/);
  assert.equal(got.get("c3")?.is_error, true);
  assert.match(text("c3"), /not granted/);
  // A command's relative paths start where it runs too.
  assert.match(text("c4"), /denied/);
  assert.doesNotMatch(text("c4"), /hidden/);
});

test("in a project reached through a symbolic link, the files of the directory the shell moved to are still inside the working directories", async (t) => {
  const project = await tempProject(t);
  await project.write("sub/a.ts", "export const needle = 2;\n");
  const link = path.join(await tempProject(t).then((p) => p.root), "link");
  symlinkSync(project.root, link);
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "c0", name: "Bash", input: { command: "cd sub" } }] },
    { toolCalls: [{ id: "c1", name: "Read", input: { file_path: "a.ts" } }] },
    { toolCalls: [{ id: "c2", name: "Glob", input: { pattern: "*.ts" } }] },
    { text: "Done." },
  ];
  const { events } = await runInProject(project, steps, { cwd: link, permissionMode: "default" });
  const output = (id: string) => events.find((e) => e.type === "tool.completed" && e.toolUseId === id);
  assert.match(JSON.stringify(output("c1")), /needle = 2/);
  assert.deepEqual(output("c2"), { type: "tool.completed", toolUseId: "c2", output: "a.ts", isError: false });
});

test("after `cd sub`, a tool's hooks are told the shell's directory as their cwd, as Claude Code tells them", async (t) => {
  const hook = { type: "command", command: 'cat >> "$CLAUDE_PROJECT_DIR/hook-inputs.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/hook-inputs.jsonl"' };
  const { project } = await run(t, [bash("cd sub"), { name: "Read", input: { file_path: "a.ts" } }], {}, {
    hooks: { PreToolUse: [{ matcher: "Read", hooks: [hook] }], PostToolUse: [{ matcher: "Read", hooks: [hook] }] },
  });
  const inputs = (await project.read("hook-inputs.jsonl")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { hook_event_name: string; cwd: string });
  assert.deepEqual(inputs.map((input) => input.hook_event_name), ["PreToolUse", "PostToolUse"]);
  for (const input of inputs) assert.equal(input.cwd, path.join(project.root, "sub"), input.hook_event_name);
});
