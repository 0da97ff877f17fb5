// `harness run --agents JSON` and `--agent NAME` (and the settings' `agent`): sub-agents given on
// the command line, and the main thread run as one of them, as `claude -p` takes them.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, startFakeOpenAI } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

type Tool = { name: string; description: string };
const toolsOf = (body: Record<string, unknown>) => body.tools as Tool[];
const systemText = (body: Record<string, unknown>) => (body.system as { text: string }[]).map((block) => block.text).join("\n");

test("--agents: an agent given as JSON is offered to Task and wins over an agent file of the same name", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: The project's reviewer\n---\nReview.\n");
  const agents = JSON.stringify({
    reviewer: { description: "Reviews code from the command line", prompt: "You review code." },
    tester: { description: "Runs the tests", prompt: "You run tests.", tools: ["Bash", "Read"], model: "haiku" },
  });
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--agents", agents, "--output-format", "stream-json", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  const task = toolsOf(fake.requests[0]!.body).find((tool) => tool.name === "Task")!;
  assert.match(task.description, /reviewer: Reviews code from the command line/);
  assert.match(task.description, /tester: Runs the tests/);
  assert.doesNotMatch(task.description, /The project's reviewer/);
  const init = JSON.parse(stdout.split("\n")[0]!) as { agents: string[] };
  assert.ok(init.agents.includes("tester") && init.agents.includes("reviewer"), init.agents.join(", "));
});

test("--agents: a Task call runs the agent given as JSON, with its prompt, tools and model", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [{ toolUses: [{ name: "Task", input: { description: "Run tests", prompt: "Run the tests.", subagent_type: "tester" } }] }, { text: "All pass." }, { text: "The tests pass." }],
    }),
  );
  const agents = JSON.stringify({ tester: { description: "Runs the tests", prompt: "You run tests.", tools: ["Read"], model: "claude-haiku-4-5" } });
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--agents", agents, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "The tests pass.\n");
  const sub = fake.requests[1]!.body;
  assert.equal(sub.model, "claude-haiku-4-5");
  assert.match(systemText(sub), /You run tests\./);
  assert.deepEqual(toolsOf(sub).map((tool) => tool.name), ["Read"]);
});

test("--agents: bad JSON, or a field of the wrong type, is one line naming the flag and what is wrong, exit 1", async (t) => {
  const dir = tempDir(t);
  const cases: [string, RegExp][] = [
    ["{not json", /^harness: --agents: not valid JSON/],
    ['["reviewer"]', /^harness: --agents: must be a JSON object of agents by name/],
    ['{"reviewer": {"prompt": "Review."}}', /^harness: --agents: reviewer: "description" is missing/],
    ['{"reviewer": {"description": "R", "prompt": 3}}', /^harness: --agents: reviewer: "prompt" must be text, not the number 3/],
    ['{"reviewer": {"description": "R", "prompt": "P", "tools": "Read"}}', /^harness: --agents: reviewer: "tools" must be a list of tool names/],
    ['{"reviewer": {"description": "R", "prompt": "P", "model": 4}}', /^harness: --agents: reviewer: "model" must be text/],
    ['{"two words": {"description": "R", "prompt": "P"}}', /^harness: --agents: "two words" is not a valid agent name/],
  ];
  for (const [json, expected] of cases) {
    const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--agents", json, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }).result;
    assert.equal(code, 1, `${json}: ${stderr}`);
    assert.equal(stdout, "");
    assert.match(stderr, expected);
    assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);
  }
});

test("--agent: the main thread runs as the agent: its prompt in place of the built-in one, its tools and its model", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Reviewed." }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: claude-haiku-4-5\n---\nYou are a strict reviewer.\n");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--agent", "reviewer", "review"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Reviewed.\n");
  const body = fake.requests[0]!.body;
  assert.equal(body.model, "claude-haiku-4-5");
  assert.deepEqual(toolsOf(body).map((tool) => tool.name), ["Read", "Grep"]);
  const system = body.system as { text: string }[];
  assert.equal(system[0]!.text, "You are a strict reviewer.");
  assert.doesNotMatch(systemText(body), /interactive coding agent/);
});

test("--agent: an agent of --agents, --model over the agent's model, and the settings' agent when no flag names one", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const dir = tempDir(t);
  const agents = JSON.stringify({ terse: { description: "Answers tersely", prompt: "Be terse.", model: "claude-haiku-4-5" } });
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const given = await harness(["run", "--cwd", dir, "--agents", agents, "--agent", "terse", "--model", "claude-sonnet-4-6", "hi"], env).result;
  assert.equal(given.code, 0, given.stderr);
  assert.equal(fake.requests[0]!.body.model, "claude-sonnet-4-6");
  assert.equal((fake.requests[0]!.body.system as { text: string }[])[0]!.text, "Be terse.");

  mkdirSync(join(dir, ".claude"), { recursive: true });
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ agent: "terse" }));
  const fromSettings = await harness(["run", "--cwd", dir, "--agents", agents, "hi"], env).result;
  assert.equal(fromSettings.code, 0, fromSettings.stderr);
  assert.equal(fake.requests[1]!.body.model, "claude-haiku-4-5");
  assert.equal((fake.requests[1]!.body.system as { text: string }[])[0]!.text, "Be terse.");
});

test("--agent: an agent that does not exist is a clear error, exit 1, before any model call", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--agent", "nobody", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, /^harness: --agent: there is no agent named "nobody" \(the agents: .*general-purpose.*\)/);
  assert.equal(fake.requests.length, 0);
});

test("--agent: an agent whose model is an alias (haiku) keeps the run's model when that is no Claude model, as a sub-agent does", async (t) => {
  const openai = await startFakeOpenAI({ replies: [{ text: "Reviewed." }] });
  t.after(() => openai.close());
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\nmodel: haiku\n---\nYou are a strict reviewer.\n");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--agent", "reviewer", "review"], {
    HARNESS_MODEL: "openai/gpt-4o",
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: "",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Reviewed.\n");
  assert.equal(openai.requests[0]!.body.model, "gpt-4o");
  assert.match(JSON.stringify(openai.requests[0]!.body.messages), /You are a strict reviewer\./);
});

test("--agent: an agent listing Agent, or Agent(types), among its tools keeps Task, limited to the types named", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", "lead.md"), "---\nname: lead\ndescription: Leads\ntools: Read, Agent(tester, reviewer)\n---\nYou lead.\n");
  writeFileSync(join(dir, ".claude", "agents", "any.md"), "---\nname: any\ndescription: Leads any\ntools: Read, Agent\n---\nYou lead.\n");
  writeFileSync(join(dir, ".claude", "agents", "tester.md"), "---\nname: tester\ndescription: Runs the tests\n---\nTest.\n");
  writeFileSync(join(dir, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\n---\nReview.\n");
  writeFileSync(join(dir, ".claude", "agents", "other.md"), "---\nname: other\ndescription: Does other things\n---\nOther.\n");
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const limited = await harness(["run", "--cwd", dir, "--agent", "lead", "go"], env).result;
  assert.equal(limited.code, 0, limited.stderr);
  assert.deepEqual(toolsOf(fake.requests[0]!.body).map((tool) => tool.name), ["Read", "Task"]);
  const task = toolsOf(fake.requests[0]!.body).find((tool) => tool.name === "Task")!;
  assert.match(task.description, /tester: Runs the tests/);
  assert.match(task.description, /reviewer: Reviews code/);
  assert.doesNotMatch(task.description, /other: Does other things|general-purpose/);
  const any = await harness(["run", "--cwd", dir, "--agent", "any", "go"], env).result;
  assert.equal(any.code, 0, any.stderr);
  const anyTask = toolsOf(fake.requests[1]!.body).find((tool) => tool.name === "Task");
  assert.ok(anyTask, toolsOf(fake.requests[1]!.body).map((tool) => tool.name).join(", "));
  assert.match(anyTask.description, /other: Does other things/);
});

test("--agents: an agent's hooks run while it runs as a sub-agent, its Stop hooks as SubagentStop; the main thread's calls do not fire them", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ name: "Write", input: { file_path: "main.txt", content: "m" } }] },
        { toolUses: [{ name: "Task", input: { description: "Write", prompt: "Write it.", subagent_type: "careful" } }] },
        { toolUses: [{ name: "Write", input: { file_path: "sub.txt", content: "s" } }] },
        { text: "Written." },
        { text: "Done." },
      ],
    }),
  );
  const dir = tempDir(t);
  const log = join(dir, "hooks.log");
  const logEvent = { hooks: [{ type: "command", command: `grep -o '"hook_event_name":"[A-Za-z]*"' | head -1 >> ${log}` }] };
  const agents = JSON.stringify({ careful: { description: "Writes carefully", prompt: "You write.", hooks: { PreToolUse: [{ matcher: "Write", ...logEvent }], Stop: [logEvent] } } });
  const { code, stderr } = await harness(["run", "--cwd", dir, "--agents", agents, "--permission-mode", "acceptEdits", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.deepEqual(readFileSync(log, "utf8").trim().split("\n"), ['"hook_event_name":"PreToolUse"', '"hook_event_name":"SubagentStop"']);
});

test("--agents: mcpServers and hooks that cannot be used are one line naming the agent and the field, exit 1", async (t) => {
  const dir = tempDir(t);
  const run = async (fields: Record<string, unknown>) => {
    const agents = JSON.stringify({ helper: { description: "Helps", prompt: "You help.", ...fields } });
    const result = await harness(["run", "--cwd", dir, "--agents", agents, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }).result;
    assert.equal(result.code, 1, result.stderr);
    return result.stderr;
  };
  assert.match(await run({ mcpServers: "github" }), /^harness: --agents: helper: "mcpServers" must be a list of server names and definitions, such as \["github", \{"helper": \{"command": "…"\}\}\], not the text "github"/);
  assert.match(await run({ mcpServers: [{ a: { command: "x" }, b: { command: "y" } }] }), /^harness: --agents: helper: "mcpServers\[0\]" must define one server, as \{"name": \{"command": "…"\}\}, but defines 2/);
  assert.match(await run({ mcpServers: ["github", { tool: { args: ["x"] } }] }), /^harness: --agents: helper: "mcpServers\[1\]": tool\.command: missing "command" \(the program to start\)/);
  assert.match(await run({ hooks: [] }), /^harness: --agents: helper: "hooks" must be an object of hook events, as in the settings/);
  assert.match(await run({ hooks: { BeforeTool: [] } }), /^harness: --agents: helper: "hooks": BeforeTool: unknown hook event "BeforeTool"/);
  assert.match(await run({ hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } }), /^harness: --agents: helper: "hooks": PreToolUse\[0\]\.hooks\[0\]\.command: /);
});

test("--agents: a hook key harness does not act on is said on stderr, naming the agent, and the run goes on", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const dir = tempDir(t);
  const hook = { type: "command", command: "true", statusMessage: "Checking" };
  const agents = JSON.stringify({ helper: { description: "Helps", prompt: "You help.", hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] } } });
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--agents", agents, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout.trim(), "ok");
  assert.match(stderr, /^harness: --agents: helper: "hooks": PreToolUse\[0\]\.hooks\[0\]\.statusMessage: unknown key "statusMessage" is ignored/m);
});

test("a Task call with run_in_background and a model: the run goes on, the agent runs on that model, and its result reaches the main agent before the run ends", async (t) => {
  const isSubagent = (body: Record<string, unknown>) => /carry out one task on its behalf/.test(systemText(body));
  const lastMessage = (body: Record<string, unknown>) => JSON.stringify((body.messages as unknown[]).at(-1));
  const fake = await withFake(
    t,
    startFakeAnthropic({
      respond: (request) => {
        if (isSubagent(request.body)) return { text: "It says alpha." };
        const last = lastMessage(request.body);
        if (last.includes("<task-notification>")) return { text: "notes.txt says alpha." };
        if (last.includes("tool_result")) return { text: "An agent is reading it." };
        return { toolUses: [{ name: "Task", input: { description: "Read the notes", prompt: "What does notes.txt say?", subagent_type: "general-purpose", model: "haiku", run_in_background: true } }] };
      },
    }),
  );
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /notes\.txt says alpha\.\n$/);
  const sub = fake.requests.filter((request) => isSubagent(request.body));
  assert.deepEqual(sub.map((request) => request.body.model), ["claude-haiku-4-5"]);
  const main = fake.requests.filter((request) => !isSubagent(request.body));
  assert.equal(main.length, 3);
  assert.match(lastMessage(main[1]!.body), /Async agent launched successfully/);
  assert.match(lastMessage(main[2]!.body), /<task-notification>\\n<task-id>agent_[\w-]+<\/task-id>\\n<status>completed<\/status>[\s\S]*<result>It says alpha\.<\/result>/);
  const task = toolsOf(main[0]!.body).find((tool) => tool.name === "Task") as Tool & { input_schema: { properties: Record<string, unknown> } };
  assert.deepEqual(Object.keys(task.input_schema.properties), ["description", "prompt", "subagent_type", "model", "run_in_background"]);
  assert.ok(toolsOf(main[0]!.body).some((tool) => tool.name === "TaskOutput") && toolsOf(main[0]!.body).some((tool) => tool.name === "TaskStop"));
  assert.ok(!toolsOf(sub[0]!.body).some((tool) => ["Task", "TaskOutput", "TaskStop"].includes(tool.name)), "a sub-agent has none of them");
});
