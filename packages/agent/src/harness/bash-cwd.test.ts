// Bash keeps its working directory between calls, as Claude Code's does: a command that ends in
// another directory (`cd sub`) has the next one start there; one that ends outside the working
// directories puts the shell back in the project's, with Claude Code's note; and
// CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR has every command start in the project's.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { ToolResultBlock } from "@harness/llm";
import { withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import type { ScriptedStep } from "../testing/scripted-provider.ts";
import type { RunAgentOptions } from "../types.ts";
import { createAgentResources } from "./resources.ts";

type Input = string | Record<string, unknown>;

/** One reply per entry, each calling Bash with its commands (ids r<reply>c<call>), then "Done.". */
function replies(...each: Input[][]): ScriptedStep[] {
  const steps: ScriptedStep[] = each.map((commands, r) => ({
    toolCalls: commands.map((input, c) => ({ id: `r${r}c${c}`, name: "Bash", input: typeof input === "string" ? { command: input } : input })),
  }));
  return [...steps, { text: "Done." }];
}

/** What the model got back for every Bash call of the run, by id. */
async function run(t: Parameters<typeof tempProject>[0], each: Input[][], overrides: Partial<RunAgentOptions> = {}, settings?: Record<string, unknown>) {
  const project = await tempProject(t);
  mkdirSync(path.join(project.root, "sub", "deeper"), { recursive: true });
  if (settings) await project.settings(settings);
  const real = realpathSync(project.root);
  const { provider } = await runInProject(project, replies(...each), { permissionMode: "bypassPermissions", ...overrides });
  const got = new Map<string, ToolResultBlock>();
  for (const request of provider.requests) {
    const last = withoutCacheMarks(request.messages).at(-1);
    if (!last || typeof last.content === "string") continue;
    for (const block of last.content) if (block.type === "tool_result") got.set(block.tool_use_id, block);
  }
  const told = provider.requests[0].tools?.find((tool) => tool.name === "Bash")?.description ?? "";
  return { project, real, got, told, text: (id: string) => String(got.get(id)?.content) };
}

test("after `cd sub`, the next Bash call starts in sub; the output and exit code of the call that moved are as they were", async (t) => {
  const { real, got, told, text } = await run(t, [["cd sub && echo moved; exit 3"], ["pwd"], ["cd deeper"], ["pwd; cd .. && pwd -P"], ["pwd"]]);
  assert.equal(text("r0c0"), "moved\n\nExit code 3");
  assert.equal(got.get("r0c0")?.is_error, true);
  assert.equal(text("r1c0"), path.join(real, "sub"));
  assert.equal(text("r2c0"), "(Command completed with no output)");
  assert.equal(text("r3c0"), `${path.join(real, "sub", "deeper")}\n${path.join(real, "sub")}`);
  assert.equal(text("r4c0"), path.join(real, "sub"));
  assert.match(told, /The working directory carries over: after `cd dir`, the next call starts in dir/);
});

test("a call that ends outside the working directories puts the shell back in the project's, and says so; an added directory is one of them", async (t) => {
  const extra = realpathSync(await tempProject(t).then((p) => p.root));
  const outside = realpathSync(await tempProject(t).then((p) => p.root));
  const { project, real, got, text } = await run(t, [[`cd ${outside} && pwd`], ["pwd"], [`cd ${extra}`], ["pwd"], [`cd ${outside}; ls no-such-file`]], {}, { permissions: { additionalDirectories: [extra] } });
  assert.equal(text("r0c0"), `${outside}\nShell cwd was reset to ${project.root}`);
  assert.equal(got.get("r0c0")?.is_error, undefined);
  assert.equal(text("r1c0"), real);
  assert.equal(text("r2c0"), "(Command completed with no output)");
  assert.equal(text("r3c0"), extra);
  // The note follows the command's own ending.
  assert.match(text("r4c0"), /No such file or directory\n\nExit code 2\nShell cwd was reset to /);
});

test("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR, in the settings' env or the run's, has every call start in the project's directory, without a note", async (t) => {
  const fromSettings = await run(t, [["cd sub"], ["pwd"]], {}, { env: { CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "1" } });
  assert.equal(fromSettings.text("r0c0"), "(Command completed with no output)");
  assert.equal(fromSettings.text("r1c0"), fromSettings.real);
  assert.match(fromSettings.told, /Each call starts a fresh shell in the project's directory: `cd` and exported variables do not carry over/);
  const fromRun = await run(t, [["cd sub"], ["pwd"], ["cd /"]], { env: { ...process.env, CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "true" } as Record<string, string> });
  assert.equal(fromRun.text("r1c0"), fromRun.real);
  assert.equal(fromRun.text("r2c0"), "(Command completed with no output)");
});

test("calls of one reply each start where the shell was as the reply began; of those that moved, the last to finish sets where the next starts", async (t) => {
  const { real, text } = await run(t, [
    ["cd sub && sleep 0.4", "pwd", "sleep 0.8; pwd"],
    ["pwd"],
    ["cd deeper && sleep 0.4 && pwd", "cd .. && pwd"],
    ["pwd"],
  ]);
  const sub = path.join(real, "sub");
  assert.equal(text("r0c1"), real);
  assert.equal(text("r0c2"), real);
  // The call that stayed where it started, though it finished last, moved nothing.
  assert.equal(text("r1c0"), sub);
  assert.equal(text("r2c0"), path.join(sub, "deeper"));
  assert.equal(text("r2c1"), real);
  assert.equal(text("r3c0"), path.join(sub, "deeper"));
});

test("a background command starts where the shell is, and does not move it", async (t) => {
  const { project, real, text } = await run(t, [["cd sub"], [{ command: "cd deeper; pwd > ../where.txt", run_in_background: true }], ["sleep 0.3; pwd; cat where.txt"]]);
  assert.match(text("r1c0"), /^Command running in background with ID: /);
  assert.equal(text("r2c0"), `${path.join(real, "sub")}\n${path.join(real, "sub", "deeper")}`);
  assert.ok(await project.exists("sub/where.txt"));
});

test("the working directory holds across the runs of one conversation, bash mode's commands included", async (t) => {
  const project = await tempProject(t);
  mkdirSync(path.join(project.root, "sub"));
  const resources = createAgentResources();
  const options = { resources, permissionMode: "bypassPermissions" as const };
  await runInProject(project, [], { ...options, prompt: "<bash-input>cd sub</bash-input>" });
  const { result } = await runInProject(project, [], { ...options, prompt: "<bash-input>pwd</bash-input>" });
  const said = JSON.stringify(result.transcript);
  assert.ok(said.includes(`<bash-stdout>${path.join(realpathSync(project.root), "sub")}</bash-stdout>`), said);
});

test("a sub-agent's Bash starts where its parent's is, and its own `cd` leaves the parent's where it was", async (t) => {
  const project = await tempProject(t);
  mkdirSync(path.join(project.root, "sub", "deeper"), { recursive: true });
  const real = realpathSync(project.root);
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "m1", name: "Bash", input: { command: "cd sub" } }] },
    { toolCalls: [{ id: "task", name: "Task", input: { description: "Look", prompt: "Look around.", subagent_type: "general-purpose" } }] },
    { toolCalls: [{ id: "s1", name: "Bash", input: { command: "pwd; cd deeper" } }] },
    { toolCalls: [{ id: "s2", name: "Bash", input: { command: "pwd" } }] },
    { text: "Sub-agent done." },
    { toolCalls: [{ id: "m2", name: "Bash", input: { command: "pwd" } }] },
    { text: "Done." },
  ];
  const { provider } = await runInProject(project, steps, { permissionMode: "bypassPermissions" });
  const got = new Map<string, string>();
  for (const request of provider.requests) {
    const last = withoutCacheMarks(request.messages).at(-1);
    if (last && typeof last.content !== "string") for (const b of last.content) if (b.type === "tool_result") got.set(b.tool_use_id, String(b.content));
  }
  assert.equal(got.get("s1"), path.join(real, "sub"));
  assert.equal(got.get("s2"), path.join(real, "sub", "deeper"));
  assert.equal(got.get("m2"), path.join(real, "sub"));
});

test("a command that leaves a process running with its output elsewhere still ends at once, and still moves the shell", async (t) => {
  // The process left running ends only once the test opens the gate, after the run; should the
  // command wait for it, the gate opens after 20 s so that the test fails rather than hangs.
  const gate = path.join(mkdtempSync(path.join(tmpdir(), "harness-gate-")), "open");
  t.after(() => rmSync(path.dirname(gate), { recursive: true, force: true }));
  const fallback = setTimeout(() => writeFileSync(gate, ""), 20_000);
  const { real, text } = await run(t, [[`(until [ -e '${gate}' ]; do sleep 0.02; done) >/dev/null 2>&1 & cd sub; echo started`], ["pwd"]]);
  assert.equal(existsSync(gate), false, "the command waited for the process it left running");
  writeFileSync(gate, "");
  clearTimeout(fallback);
  assert.equal(text("r0c0"), "started");
  assert.equal(text("r1c0"), path.join(real, "sub"));
});
