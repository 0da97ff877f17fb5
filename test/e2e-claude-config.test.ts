// A repository set up the way a Claude Code user sets one up (test/fixtures/claude-project) runs
// unchanged through the real runner process: memory with an import, settings rules, hooks, an MCP
// server, a skill, a custom sub-agent and a slash command, each with its effect checked.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { access, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRunnerClient } from "@harness/runner/client";
import type { RunnerEvent, RunnerQuery } from "@harness/protocol";
import { mcpTestServerCommand, startFakeAnthropic, type FakeAnthropic, type FakeReply } from "@harness/test-utils";

const fixture = fileURLToPath(new URL("./fixtures/claude-project", import.meta.url));
const runnerMain = fileURLToPath(new URL("../packages/runner/src/main.ts", import.meta.url));

let fake: FakeAnthropic;
let root: string;
let project: string;
let runner: ChildProcess;
let client: ReturnType<typeof createRunnerClient>;

before(async () => {
  fake = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), "harness-claude-config-"));
  project = join(root, "project");
  const home = join(root, "home");
  await cp(fixture, project, { recursive: true });
  const mcp = mcpTestServerCommand({ resources: true, prompts: true });
  await writeFile(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { tools: { command: mcp.command, args: mcp.args } } }));
  // Approved as Claude Code records it: in the project's entry of ~/.claude.json.
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".claude.json"), JSON.stringify({ projects: { [project]: { enabledMcpjsonServers: ["tools"] } } }));
  runner = spawn(process.execPath, [runnerMain, "--exit-with-stdin"], {
    env: { ...process.env, HOME: home, HARNESS_WORKSPACE: project, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "test-key" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    runner.stdout!.once("data", (line) => resolve(JSON.parse(String(line)).url));
    runner.once("exit", (code) => reject(new Error(`runner exited with ${code}`)));
  });
  client = createRunnerClient(url);
});

after(async () => {
  runner?.stdin?.end();
  if (runner && runner.exitCode === null) await new Promise((r) => runner.once("exit", r));
  await fake?.close();
  await rm(root, { recursive: true, force: true });
});

/** Runs one query with `replies` scripted, and returns its events and the requests it made. */
async function run(prompt: string, replies: FakeReply[], extra: Partial<RunnerQuery> = {}) {
  const first = fake.requests.length;
  fake.push(...replies);
  const events: RunnerEvent[] = [];
  for await (const event of client.query({ prompt, permissionMode: "default", ...extra }, { signal: AbortSignal.timeout(60_000) })) events.push(event);
  return { events, requests: fake.requests.slice(first), last: events.at(-1)! };
}

const resultOf = (events: RunnerEvent[], id: string) => {
  const done = events.find((e) => e.type === "tool.completed" && e.toolUseId === id);
  assert.ok(done && done.type === "tool.completed", `no tool.completed for ${id}`);
  return done;
};
const text = (value: unknown) => JSON.stringify(value);
const exists = (path: string) => access(path).then(() => true, () => false);

test("memory with its @import, the skill registry, the MCP tools and the environment reach the model", async () => {
  const { requests, last } = await run("hello", [{ text: "hi" }]);
  assert.equal(last.type, "run.completed");
  const body = requests[0].body;
  const everything = text(body.system) + text(body.messages);
  assert.match(everything, /Answer briefly/, "CLAUDE.md");
  assert.match(everything, /CONVENTION-MARKER-42/, "the file CLAUDE.md imports");
  assert.match(everything, /RULE-MARKER-7/, "a rule of .claude/rules");
  assert.doesNotMatch(everything, /DOCS-RULE-MARKER-9/, "a rule with paths waits for a file it matches");
  assert.match(everything, /release-notes/, "the skill's name and description");
  assert.match(text(body.system), new RegExp(project.replace(/[/.]/g, "\\$&")), "the working directory");
  const tools = body.tools.map((t: { name: string }) => t.name);
  for (const name of ["Bash", "Read", "Edit", "Write", "Task", "Skill", "mcp__tools__echo"]) assert.ok(tools.includes(name), `tool ${name}`);
  assert.ok(text(body.system).includes("cache_control") || text(body.tools).includes("cache_control"), "prompt-cache breakpoints");
});

test("a rule with paths reaches the model with the first tool call on a file it matches", async () => {
  const { events, requests } = await run("read the docs", [
    { toolUses: [{ id: "toolu_docs", name: "Read", input: { file_path: "docs/conventions.md" } }] },
    { toolUses: [{ id: "toolu_again", name: "Read", input: { file_path: "docs/conventions.md" } }] },
    { text: "read" },
  ]);
  assert.equal(resultOf(events, "toolu_docs").isError, false);
  assert.match(text(requests[1].body.messages.at(-1)), /DOCS-RULE-MARKER-9/);
  assert.doesNotMatch(text(requests[2].body.messages.at(-1)), /DOCS-RULE-MARKER-9/, "once per run");
});

test("allow and deny rules and the PreToolUse hook decide what runs", async () => {
  const { events, requests } = await run("do things", [
    {
      toolUses: [
        { id: "toolu_echo", name: "Bash", input: { command: "echo allowed-by-rule" } },
        { id: "toolu_curl", name: "Bash", input: { command: "curl http://127.0.0.1:9/x" } },
        { id: "toolu_rm", name: "Bash", input: { command: "rm -rf out" } },
        { id: "toolu_smuggle", name: "Bash", input: { command: "echo ok && curl http://127.0.0.1:9/y" } },
        { id: "toolu_secret", name: "Read", input: { file_path: "secrets/key.txt" } },
      ],
    },
    { text: "done" },
  ]);
  assert.equal(resultOf(events, "toolu_echo").isError, false);
  assert.match(resultOf(events, "toolu_echo").output, /allowed-by-rule/);
  assert.equal(resultOf(events, "toolu_curl").isError, true);
  assert.match(resultOf(events, "toolu_curl").output, /Bash\(curl:\*\)/);
  assert.equal(resultOf(events, "toolu_rm").isError, true);
  assert.match(resultOf(events, "toolu_rm").output, /rm is blocked by the project's policy/);
  assert.equal(await exists(join(project, "out", "keep.txt")), true, "the blocked rm never ran");
  assert.equal(resultOf(events, "toolu_smuggle").isError, true);
  assert.equal(resultOf(events, "toolu_secret").isError, true);
  assert.doesNotMatch(resultOf(events, "toolu_secret").output, /do-not-read/);
  // The model was told each outcome.
  assert.match(text(requests[1].body.messages.at(-1)), /rm is blocked/);
});

test("writes: allowed inside out/ with the PostToolUse hook's context, refused elsewhere with no one to approve", async () => {
  const { events, requests } = await run("write", [
    {
      toolUses: [
        { id: "toolu_in", name: "Write", input: { file_path: "out/result.txt", content: "inside\n" } },
        { id: "toolu_out", name: "Write", input: { file_path: "notes.txt", content: "outside\n" } },
      ],
    },
    { text: "written" },
  ]);
  assert.equal(resultOf(events, "toolu_in").isError, false);
  assert.equal(await readFile(join(project, "out", "result.txt"), "utf8"), "inside\n");
  assert.match(text(requests[1].body.messages.at(-1)), /WRITE-LOGGED/, "PostToolUse additionalContext reached the model");
  assert.match(await readFile(join(project, ".claude", "writes.log"), "utf8"), /out\/result\.txt/);
  assert.equal(resultOf(events, "toolu_out").isError, true);
  assert.match(resultOf(events, "toolu_out").output, /not granted|approve/i);
  assert.equal(await exists(join(project, "notes.txt")), false);
});

test("the MCP server's tool and the Skill tool", async () => {
  const { events } = await run("use tools", [
    {
      toolUses: [
        { id: "toolu_mcp", name: "mcp__tools__echo", input: { text: "ping-through-mcp" } },
        { id: "toolu_skill", name: "Skill", input: { skill: "release-notes" } },
      ],
    },
    { text: "ok" },
  ]);
  assert.equal(resultOf(events, "toolu_mcp").isError, false);
  assert.match(resultOf(events, "toolu_mcp").output, /ping-through-mcp/);
  assert.equal(resultOf(events, "toolu_skill").isError, false);
  assert.match(resultOf(events, "toolu_skill").output, /SKILL-BODY-MARKER|release-notes/);
});

test("the MCP server's prompt as a slash command, and its resources named in a prompt and read by the model", async () => {
  const prompted = await run("/mcp__tools__review src/app.ts naming", [{ text: "Reviewed." }]);
  assert.equal(prompted.last.type, "run.completed");
  assert.match(text(prompted.requests[0].body.messages.at(-1)), /Please review src\/app\.ts, looking at naming\./);

  const { events, requests } = await run("Summarize @tools:docs://readme", [
    { toolUses: [{ id: "toolu_list", name: "ListMcpResourcesTool", input: { server: "tools" } }] },
    { text: "A test server." },
  ]);
  assert.match(text(requests[0].body.messages.at(-1)), /Contents of tools:docs:\/\/readme:\\n# Test server/);
  assert.ok(events.some((e) => e.type === "tool.started" && e.toolName === "ReadMcpResourceTool"), "the read shows as a tool call");
  assert.equal(resultOf(events, "toolu_list").isError, false);
  assert.match(resultOf(events, "toolu_list").output, /docs:\/\/logo/);
});

test("the custom sub-agent runs with its own prompt and its events carry its id", async () => {
  const { events, requests, last } = await run("review it", [
    { toolUses: [{ id: "toolu_task", name: "Task", input: { description: "review", prompt: "Review out/keep.txt", subagent_type: "reviewer" } }] },
    { text: "Looks fine. REVIEW-RESULT" },
    { text: "The reviewer is happy." },
  ]);
  assert.equal(last.type, "run.completed");
  const sub = requests[1].body;
  assert.match(text(sub.system), /REVIEWER-PROMPT-MARKER/);
  const subTools = sub.tools.map((t: { name: string }) => t.name).sort();
  assert.deepEqual(subTools, ["Glob", "Grep", "Read"]);
  assert.match(resultOf(events, "toolu_task").output, /REVIEW-RESULT/);
  assert.ok(events.some((e) => e.type === "assistant.delta" && e.agentId && e.parentToolUseId === "toolu_task"));
});

test("a slash command from .claude/commands expands with its arguments", async () => {
  const { requests } = await run("/greet Ada", [{ text: "Hello Ada" }]);
  assert.match(text(requests[0].body.messages.at(-1)), /Say hello to Ada\. \(COMMAND-MARKER\)/);
});
