// `harness run --output-format json|stream-json`: what a script reads from stdout.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { parseArgs } from "../args.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

const BASH_THEN_TEXT = () => toolThenText("Bash", { command: "echo hi" }, "It printed hi.");

test("json: stdout is one result object when the run ends, stderr has no tool activity", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: BASH_THEN_TEXT() }));
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--output-format", "json", "say hi"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.equal(stdout.split("\n").length, 2, "one line, ended");
  const result = JSON.parse(stdout);
  assert.deepEqual(
    { type: result.type, subtype: result.subtype, is_error: result.is_error, result: result.result, num_turns: result.num_turns, model: result.model },
    { type: "result", subtype: "success", is_error: false, result: "It printed hi.", num_turns: 2, model: "claude-sonnet-4-6" },
  );
  assert.ok(result.usage.input_tokens > 0 && result.usage.output_tokens > 0, JSON.stringify(result.usage));
  assert.ok(result.total_cost_usd > 0, "a known model's calls are priced");
  assert.ok(Number.isInteger(result.duration_ms) && result.duration_ms >= 0);
});

test("stream-json: every event of the run as a line of JSON, then the result", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: BASH_THEN_TEXT() }));
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--output-format=stream-json", "say hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
  const started = lines.find((e) => e.type === "tool.started");
  assert.equal(started?.toolName, "Bash");
  assert.deepEqual(started?.input, { command: "echo hi" });
  const completed = lines.find((e) => e.type === "tool.completed");
  assert.equal(completed?.output, "hi");
  const text = lines.filter((e) => e.type === "assistant.delta").map((e) => e.text).join("");
  assert.equal(text, "It printed hi.");
  const init = lines[0]!;
  assert.deepEqual(
    { type: init.type, subtype: init.subtype, session_id: init.session_id, cwd: init.cwd, model: init.model, permissionMode: init.permissionMode, mcp_servers: init.mcp_servers, output_style: init.output_style },
    { type: "system", subtype: "init", session_id: lines.at(-1)!.session_id, cwd: dir, model: "claude-sonnet-4-6", permissionMode: "bypassPermissions", mcp_servers: [], output_style: "default" },
    "it opens with the conversation's id and what the run works with",
  );
  assert.ok(["Bash", "Read", "Edit", "Task"].every((name) => (init.tools as string[]).includes(name)), String(init.tools));
  assert.ok(["compact", "clear", "help"].every((name) => (init.slash_commands as string[]).includes(name)));
  assert.ok((init.agents as string[]).includes("general-purpose"));
  assert.deepEqual(init.skills, []);
  const last = lines.at(-1)!;
  assert.equal(last.type, "result");
  assert.equal(last.result, "It printed hi.");
  assert.ok(lines.indexOf(started!) < lines.indexOf(completed!));
});

test("stream-json: the opening line lists the tools the model is offered, not those the settings or --disallowedTools deny outright", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["WebFetch", "Bash(rm:*)"] } }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--disallowedTools", "WebSearch", "--output-format", "stream-json", "hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  const init = JSON.parse(stdout.split("\n")[0]!) as { tools: string[] };
  const offered = (fake.requests[0]!.body.tools as { name: string }[]).map((tool) => tool.name);
  assert.ok(!offered.includes("WebFetch") && !offered.includes("WebSearch") && offered.includes("Bash"), offered.join(", "));
  assert.deepEqual(init.tools, offered);
});

test("stream-json: a run refused before it starts has no opening line, only the result, and no id to resume", async (t) => {
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--output-format", "stream-json", "hi"], {
    ANTHROPIC_API_KEY: "k",
    HARNESS_MODEL_RETRIES: "many",
  }).result;
  assert.equal(code, 1);
  assert.equal(stderr, "");
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; session_id?: string; error?: string });
  assert.equal(lines.length, 1);
  assert.equal(lines[0].type, "result");
  assert.match(lines[0].error!, /HARNESS_MODEL_RETRIES/);
  assert.equal(lines[0].session_id, undefined);
});

test("json: a failed run is a result with is_error, its reason and exit status 1, and nothing on stderr", async (t) => {
  // The model keeps calling tools: one turn allowed.
  const turns = await withFake(t, startFakeAnthropic({ replies: BASH_THEN_TEXT() }));
  const dir = tempDir(t);
  const capped = await harness(["run", "--cwd", dir, "--permission-mode", "bypassPermissions", "--max-turns", "1", "--output-format", "json", "say hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: turns.url,
  }).result;
  assert.equal(capped.code, 1);
  assert.equal(capped.stderr, "");
  const limited = JSON.parse(capped.stdout);
  assert.equal(limited.subtype, "error_max_turns");
  assert.equal(limited.is_error, true);
  assert.match(limited.error, /turn/);
  assert.equal(limited.num_turns, 1);
  assert.equal(limited.result, undefined);

  const broken = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 400, message: "prompt is too long" }] }));
  const failed = await harness(["run", "--cwd", dir, "--output-format", "json", "say hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: broken.url }).result;
  assert.equal(failed.code, 1);
  const error = JSON.parse(failed.stdout);
  assert.equal(error.subtype, "error_during_execution");
  assert.match(error.error, /400.*prompt is too long/);
});

test("a deprecated model is said once on stderr, as a warning of the run, in text and json alike", async (t) => {
  for (const format of ["text", "json"]) {
    const fake = await withFake(t, startFakeAnthropic({ replies: BASH_THEN_TEXT() }));
    const dir = tempDir(t);
    const { code, stderr } = await harness(
      ["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "--permission-mode", "bypassPermissions", "--output-format", format, "say hi"],
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
    ).result;
    assert.equal(code, 0, stderr);
    const warnings = stderr.split("\n").filter((line) => line.includes("deprecated"));
    assert.equal(warnings.length, 1, stderr);
    assert.match(warnings[0], /^! The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on .+ Please migrate to a newer model\./);
  }
});

test("--system-prompt replaces the built-in prompt and --append-system-prompt follows it, in the request the model gets", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Bonjour." }, { text: "Salut." }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const replaced = await harness(["run", "--cwd", dir, "--system-prompt", "You are a terse reviewer.", "--append-system-prompt", "Answer in French.", "hi"], env).result;
  assert.equal(replaced.code, 0, replaced.stderr);
  // The system prompt's first block: the prompt in place of the built-in one, then the addition;
  // the environment and memory follow in blocks of their own.
  const system = (request: number) => fake.requests[request].body.system as { type: string; text: string }[];
  assert.equal(system(0)[0].text, "You are a terse reviewer.\n\nAnswer in French.");
  const plain = await harness(["run", "--cwd", dir, "hi"], env).result;
  assert.equal(plain.code, 0, plain.stderr);
  assert.doesNotMatch(JSON.stringify(system(1)), /terse reviewer|French/);
});

test("--output-format takes text, json or stream-json", () => {
  assert.deepEqual(parseArgs(["run", "--output-format", "json", "hi"]), { kind: "run", prompt: "hi", outputFormat: "json" });
  assert.deepEqual(parseArgs(["run", "--output-format=stream-json", "hi"]), { kind: "run", prompt: "hi", outputFormat: "stream-json" });
  assert.deepEqual(parseArgs(["run", "--output-format", "yaml", "hi"]), {
    kind: "usage-error",
    message: '--output-format must be one of text, json, stream-json, not "yaml"',
    topic: "run",
  });
});

test("a claude -p command line for stream-json (-p, --verbose, --dangerously-skip-permissions) runs unchanged", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: BASH_THEN_TEXT() }));
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "-p", "--verbose", "--dangerously-skip-permissions", "--output-format", "stream-json", "say hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
  assert.equal(lines.find((e) => e.type === "tool.completed")?.output, "hi", "the call ran without asking");
  assert.equal(lines.at(-1)?.result, "It printed hi.");
});

test("json: every result has Claude Code's counts, zero when the run failed before any model call, and a failure's reason in errors", async (t) => {
  const { code, stdout } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--output-format", "json", "hi"], { ANTHROPIC_API_KEY: "" }).result;
  assert.equal(code, 1);
  const result = JSON.parse(stdout);
  assert.deepEqual(
    { num_turns: result.num_turns, usage: result.usage, total_cost_usd: result.total_cost_usd, errors: result.errors, is_error: result.is_error },
    {
      num_turns: 0,
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      },
      total_cost_usd: 0,
      errors: [result.error],
      is_error: true,
    },
  );
  assert.match(result.error, /ANTHROPIC_API_KEY/);
});

test("text: a script reading stdout gets only the answer, as from claude -p; what the model said before its tool calls goes to stderr with them", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ text: "Let me check.\n\n", toolUses: [{ name: "Bash", input: { command: "echo hi" } }] }, { text: "\n\n", toolUses: [{ name: "Bash", input: { command: "echo again" } }] }, { text: "It printed hi." }] }),
  );
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--permission-mode", "bypassPermissions", "say hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "It printed hi.\n");
  assert.equal(stderr, "Let me check.\n● Bash(echo hi)\n  ⎿  hi\n● Bash(echo again)\n  ⎿  again\n");
});

test("stream-json: the conversation is also in Claude Code's messages, so that a script reading claude -p's stream reads it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Let me look.", toolUses: [{ id: "toolu_1", name: "Bash", input: { command: "echo hi" } }] }, { text: "It printed hi." }] }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "say hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; session_id?: string; [key: string]: unknown });
  const sessionId = lines[0].session_id;
  const messages = lines.filter((e) => e.type === "assistant" || e.type === "user");
  assert.deepEqual(messages, [
    { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Let me look." }] }, parent_tool_use_id: null, session_id: sessionId },
    { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hi" } }] }, parent_tool_use_id: null, session_id: sessionId },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi", is_error: false }] }, parent_tool_use_id: null, session_id: sessionId },
    { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "It printed hi." }] }, parent_tool_use_id: null, session_id: sessionId },
  ]);
  assert.ok(lines.indexOf(messages.at(-1)!) < lines.length - 1, "before the result");
  assert.equal(lines.at(-1)!.type, "result");
});

test("json: the calls the permissions refused are in permission_denials, as in Claude Code's result", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_w", name: "Bash", input: { command: "touch made" } }, { id: "toolu_e", name: "Bash", input: { command: "echo ok" } }] },
        { text: "Done." },
      ],
    }),
  );
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--allowedTools", "Bash(echo:*)", "--output-format", "json", "go"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout);
  assert.deepEqual(result.permission_denials, [{ tool_name: "Bash", tool_use_id: "toolu_w", tool_input: { command: "touch made" } }]);
  const allowed = await harness(["run", "--cwd", dir, "--output-format", "json", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.deepEqual(JSON.parse(allowed.stdout).permission_denials, [], "none refused: an empty list");
});

test("stream-json: the opening line lists the project's MCP servers and skills, and comes before the warnings of loading them", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const dir = tempDir(t);
  const home = tempDir(t);
  mkdirSync(join(dir, ".claude", "skills", "deploy"), { recursive: true });
  writeFileSync(join(dir, ".claude", "skills", "deploy", "SKILL.md"), "---\ndescription: Deploy the app\n---\nDeploy it.\n");
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ outputStyle: "Explanatory" }));
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ mcpServers: { broken: { command: "/nonexistent/mcp-server" } } }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--output-format", "stream-json", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(lines[0]!.subtype, "init");
  assert.deepEqual(lines[0]!.mcp_servers, [{ name: "broken", status: "failed" }]);
  assert.deepEqual(lines[0]!.skills, ["deploy"]);
  assert.ok((lines[0]!.slash_commands as string[]).includes("deploy"));
  assert.equal(lines[0]!.output_style, "Explanatory");
  assert.ok(lines.slice(1).some((line) => line.type === "notice" && /broken/.test(String(line.message))), "the server's failure is told after the opening line");
});
