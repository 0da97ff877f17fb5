// The Claude Agent SDK driving `harness run` as it drives Claude Code's executable
// (pathToClaudeCodeExecutable): its arguments, its user messages and its control protocol
// (initialize, can_use_tool, interrupt, set_permission_mode, set_model), end to end through the
// real `harness` process against the fake Anthropic server.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSdkMcpServer, query, tool, type CanUseTool, type HookCallback, type HookInput, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { mcpTestServerCommand, startFakeAnthropic } from "@harness/test-utils";
import { z } from "zod";
import { SUB_AGENT_THEN_MAIN_BASH, tempDir, withFake } from "../../test-support.ts";
import { SDK_MODEL, allMessages, sdkOptions } from "./test-support.ts";


const toolResults = (messages: SDKMessage[]) =>
  messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content.filter((b) => b.type === "tool_result") : []));

test("Agent SDK: query() with a prompt runs harness run; canUseTool approves the Bash call with its updatedInput", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_1", name: "Bash", input: { command: "touch asked.txt && echo asked" } }] }, { text: "Made the file." }] }),
  );
  const dir = tempDir(t);
  const asked: { tool: string; input: Record<string, unknown>; toolUseID: string }[] = [];
  const canUseTool: CanUseTool = async (tool, input, { toolUseID }) => {
    asked.push({ tool, input, toolUseID });
    return { behavior: "allow", updatedInput: { command: "touch approved.txt && echo approved" } };
  };
  const messages = await allMessages(query({ prompt: "make a file", options: sdkOptions(dir, fake.url, { canUseTool }) }));

  assert.deepEqual(asked, [{ tool: "Bash", input: { command: "touch asked.txt && echo asked" }, toolUseID: "toolu_1" }]);
  const init = messages[0]!;
  assert.equal(init.type === "system" && init.subtype, "init");
  assert.equal(init.type === "system" && init.subtype === "init" && init.model, SDK_MODEL);
  assert.ok(init.type === "system" && init.subtype === "init" && init.tools.includes("Bash"));
  const assistant = messages.filter((m) => m.type === "assistant");
  assert.deepEqual(
    assistant.map((m) => m.type === "assistant" && m.message.content[0]!.type),
    ["tool_use", "text"],
  );
  const [toolResult] = toolResults(messages);
  assert.equal(toolResult?.type === "tool_result" && toolResult.tool_use_id, "toolu_1");
  assert.match(JSON.stringify(toolResult), /approved/);
  const result = messages.at(-1)!;
  assert.equal(result.type, "result");
  assert.equal(result.type === "result" && result.subtype, "success");
  assert.equal(result.type === "result" && result.subtype === "success" && result.result, "Made the file.");

  assert.ok(existsSync(join(dir, "approved.txt")), "the command ran as canUseTool changed it");
  assert.ok(!existsSync(join(dir, "asked.txt")));
  assert.equal(fake.requests.length, 2);
  assert.equal(fake.requests[0]!.body.model, SDK_MODEL);
  assert.match(JSON.stringify(fake.requests[0]!.body.messages), /make a file/);
  const sent = JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1));
  assert.match(sent, /"tool_use_id":"toolu_1"/);
  assert.match(sent, /approved/);
});

test("Agent SDK: canUseTool's denial reaches the model with its message", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_rm", name: "Bash", input: { command: "rm -rf build" } }] }, { text: "Left it." }] }),
  );
  const dir = tempDir(t);
  const canUseTool: CanUseTool = async () => ({ behavior: "deny", message: "no removing here" });
  const messages = await allMessages(query({ prompt: "clean up", options: sdkOptions(dir, fake.url, { canUseTool }) }));
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success");
  assert.deepEqual(result.type === "result" && result.permission_denials, [{ tool_name: "Bash", tool_use_id: "toolu_rm", tool_input: { command: "rm -rf build" } }]);
  assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /no removing here/);
});

test("Agent SDK: messages from an async iterable are turns of one conversation; setModel and setPermissionMode apply to the next", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, { toolUses: [{ id: "toolu_w", name: "Write", input: { file_path: "notes.md", content: "hi" } }] }, { text: "Two." }] }));
  const dir = tempDir(t);
  let firstResult!: () => void;
  const firstDone = new Promise<void>((resolve) => (firstResult = resolve));
  const said = (text: string): SDKUserMessage => ({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null });
  async function* prompts() {
    yield said("first question");
    await firstDone;
    await run.setModel("claude-opus-4-6");
    await run.setPermissionMode("acceptEdits");
    yield said("second question");
  }
  const run = query({ prompt: prompts(), options: sdkOptions(dir, fake.url) });
  const messages: SDKMessage[] = [];
  for await (const message of run) {
    messages.push(message);
    if (message.type === "result" && messages.filter((m) => m.type === "result").length === 1) firstResult();
    if (message.type === "result" && messages.filter((m) => m.type === "result").length === 2) break;
  }
  const results = messages.filter((m) => m.type === "result");
  assert.deepEqual(results.map((r) => r.type === "result" && r.subtype), ["success", "success"]);
  assert.deepEqual(fake.requests.map((r) => r.body.model), [SDK_MODEL, "claude-opus-4-6", "claude-opus-4-6"]);
  const second = fake.requests[1]!.body.messages as { role: string }[];
  assert.deepEqual(second.map((m) => m.role), ["user", "assistant", "user"], "the second turn goes on with the first");
  assert.equal(readFileSync(join(dir, "notes.md"), "utf8"), "hi", "acceptEdits let the Write run without asking");
});

test("Agent SDK: interrupt() stops the turn under way, and the query ends with its result", async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Thinking", hold }] }));
  const dir = tempDir(t);
  const run = query({ prompt: "take your time", options: sdkOptions(dir, fake.url) });
  const messages: SDKMessage[] = [];
  const reading = (async () => {
    for await (const message of run) messages.push(message);
  })();
  await fake.waitForRequests(1);
  await run.interrupt();
  await reading;
  const result = messages.at(-1)!;
  assert.equal(result.type, "result");
  assert.equal(result.type === "result" && result.subtype, "error_during_execution");
  assert.equal(result.type === "result" && result.is_error, false, "an interrupt is no failure");
  assert.equal(fake.requests.length, 1);
});

test("Agent SDK: the system prompt, its append and the agents sent at initialize reach the model", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Arr." }, { text: "Aye." }] }));
  const dir = tempDir(t);
  const agents = { "sea-reviewer": { description: "Reviews code like a sailor", prompt: "You review code at sea." } };
  await allMessages(query({ prompt: "hello", options: sdkOptions(dir, fake.url, { systemPrompt: "You are a pirate.", agents }) }));
  const system = JSON.stringify(fake.requests[0]!.body.system);
  assert.match(system, /You are a pirate\./);
  assert.match(JSON.stringify(fake.requests[0]!.body.tools), /sea-reviewer/, "the agent is offered to the Task tool");

  await allMessages(query({ prompt: "hello again", options: sdkOptions(dir, fake.url, { systemPrompt: { type: "preset", preset: "claude_code", append: "Always say aye." } }) }));
  const preset = JSON.stringify(fake.requests[1]!.body.system);
  assert.doesNotMatch(preset, /You are a pirate\./);
  assert.match(preset, /Always say aye\./);
});

test("Agent SDK: hooks of query() run as Claude Code runs them: a PreToolUse hook denies Bash, a PostToolUse hook adds context; matchers select", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_sh", name: "Bash", input: { command: "touch ran.txt" } }, { id: "toolu_rd", name: "Read", input: { file_path: "notes.md" } }] },
        { text: "Done." },
      ],
    }),
  );
  const dir = tempDir(t);
  writeFileSync(join(dir, "notes.md"), "some notes\n");
  const seen: { event: string; tool?: string; toolUseID?: string }[] = [];
  const record = (input: HookInput, toolUseID: string | undefined) => seen.push({ event: input.hook_event_name, ...("tool_name" in input && { tool: input.tool_name }), ...(toolUseID && { toolUseID }) });
  const denyShell: HookCallback = async (input, toolUseID) => {
    record(input, toolUseID);
    return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no shell in this project" } };
  };
  const addContext: HookCallback = async (input, toolUseID) => {
    record(input, toolUseID);
    return { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "The notes are three days old." } };
  };
  const stderr: string[] = [];
  const messages = await allMessages(
    query({
      prompt: "look around",
      options: sdkOptions(dir, fake.url, {
        stderr: (text: string) => stderr.push(text),
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [denyShell] }], PostToolUse: [{ matcher: "Read|Grep", hooks: [addContext] }] },
      }),
    }),
  );
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.doesNotMatch(stderr.join(""), /not acted on/);
  assert.deepEqual(seen, [
    { event: "PreToolUse", tool: "Bash", toolUseID: "toolu_sh" },
    { event: "PostToolUse", tool: "Read", toolUseID: "toolu_rd" },
  ]);
  assert.ok(!existsSync(join(dir, "ran.txt")), "the denied command did not run");
  const sent = JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1));
  assert.match(sent, /no shell in this project/);
  assert.match(sent, /The notes are three days old\./);
});

test("Agent SDK: a createSdkMcpServer server's tools are offered as mcp__<server>__<tool> and called in the program, over mcp_message", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_add", name: "mcp__calc__add", input: { a: 2, b: 3 } }] }, { text: "Five." }] }));
  const dir = tempDir(t);
  const calls: { a: number; b: number }[] = [];
  const calc = createSdkMcpServer({
    name: "calc",
    tools: [
      tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async (args) => {
        calls.push(args);
        return { content: [{ type: "text", text: `the sum is ${args.a + args.b}` }] };
      }),
    ],
  });
  const stderr: string[] = [];
  const messages = await allMessages(query({ prompt: "add 2 and 3", options: sdkOptions(dir, fake.url, { mcpServers: { calc }, allowedTools: ["mcp__calc__add"], stderr: (text: string) => stderr.push(text) }) }));
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.doesNotMatch(stderr.join(""), /not acted on/);
  const init = messages[0]!;
  assert.deepEqual(init.type === "system" && init.subtype === "init" && init.mcp_servers, [{ name: "calc", status: "connected" }]);
  assert.ok(init.type === "system" && init.subtype === "init" && init.tools.includes("mcp__calc__add"));
  const offered = (fake.requests[0]!.body.tools as { name: string; input_schema?: unknown }[]).find((t) => t.name === "mcp__calc__add");
  assert.ok(offered, "the tool is offered to the model");
  assert.match(JSON.stringify(offered.input_schema), /"a"/);
  assert.deepEqual(calls, [{ a: 2, b: 3 }]);
  assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /the sum is 5/);
});

test("Agent SDK: a createSdkMcpServer server is held to deniedMcpServers and allowedMcpServers by name: a blocked one is not offered, and a warning says why", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }, { text: "Hi again." }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ deniedMcpServers: [{ serverName: "calc" }] }));
  const server = (name: string) => createSdkMcpServer({ name, tools: [tool("ping", "Answers", {}, async () => ({ content: [{ type: "text", text: "pong" }] }))] });
  const ask = async (more: Record<string, unknown>) => {
    const stderr: string[] = [];
    const messages = await allMessages(query({ prompt: "hi", options: sdkOptions(dir, fake.url, { mcpServers: { calc: server("calc"), notes: server("notes") }, settingSources: ["project"], stderr: (text: string) => stderr.push(text), ...more }) }));
    const init = messages[0]!;
    assert.ok(init.type === "system" && init.subtype === "init", JSON.stringify(init));
    // Warnings reach the program as Claude Code's informational system messages.
    const warnings = messages.flatMap((m) => (m.type === "system" && "content" in m ? [String(m.content)] : [])).join("\n");
    return { init, warnings, stderr: stderr.join("") };
  };
  const offered = (i: number) => (fake.requests[i]!.body.tools as { name: string }[]).map((t) => t.name).filter((name) => name.startsWith("mcp__"));

  const denied = await ask({});
  assert.deepEqual(denied.init.mcp_servers, [{ name: "notes", status: "connected" }]);
  assert.deepEqual(offered(0), ["mcp__notes__ping"]);
  assert.match(denied.warnings, /MCP server "calc" of the program's own servers is not started: it is listed in deniedMcpServers/);

  const unlisted = await ask({ settingSources: [], managedSettings: { allowedMcpServers: [{ serverName: "calc" }] } });
  assert.deepEqual(unlisted.init.mcp_servers, [{ name: "calc", status: "connected" }]);
  assert.deepEqual(offered(1), ["mcp__calc__ping"]);
  assert.match(unlisted.warnings, /MCP server "notes" of the program's own servers is not started: allowedMcpServers does not list its name/);
});

test("Agent SDK: MCP servers sent in the initialize request (mcpServersDelivery: initialize) start as --mcp-config's do", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_echo", name: "mcp__tools__echo", input: { text: "over stdin" } }] }, { text: "Echoed." }] }));
  const dir = tempDir(t);
  const stderr: string[] = [];
  const messages = await allMessages(
    query({
      prompt: "echo something",
      options: sdkOptions(dir, fake.url, { mcpServers: { tools: mcpTestServerCommand() }, mcpServersDelivery: "initialize", allowedTools: ["mcp__tools__echo"], stderr: (text: string) => stderr.push(text) }),
    }),
  );
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.doesNotMatch(stderr.join(""), /not acted on/);
  const init = messages[0]!;
  assert.deepEqual(init.type === "system" && init.subtype === "init" && init.mcp_servers, [{ name: "tools", status: "connected" }]);
  assert.match(JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1)), /over stdin/);
});

test("Agent SDK: canUseTool's updatedPermissions apply to the calls that follow; those for a settings file are written there and hold in the next session", async (t) => {
  const bash = (id: string, command: string) => ({ id, name: "Bash", input: { command } });
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [bash("toolu_a", "touch a.txt")] },
        { toolUses: [bash("toolu_b", "touch b.txt"), bash("toolu_c", "touch c.txt"), { id: "toolu_w", name: "Write", input: { file_path: "notes.md", content: "hi" } }] },
        { text: "Made them." },
        { toolUses: [bash("toolu_c2", "touch c.txt"), bash("toolu_b2", "touch b.txt")] },
        { text: "Again." },
      ],
    }),
  );
  const dir = tempDir(t);
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (tool, input) => {
    asked.push(`${tool} ${JSON.stringify(input)}`);
    return {
      behavior: "allow",
      updatedInput: input,
      updatedPermissions: [
        { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch b.txt" }], behavior: "allow", destination: "session" },
        { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch c.txt" }], behavior: "allow", destination: "localSettings" },
        { type: "setMode", mode: "acceptEdits", destination: "session" },
      ],
    };
  };
  const first = await allMessages(query({ prompt: "make files", options: sdkOptions(dir, fake.url, { canUseTool }) }));
  assert.equal(first.at(-1)?.type === "result" && (first.at(-1) as { subtype: string }).subtype, "success");
  assert.deepEqual(asked, ['Bash {"command":"touch a.txt"}'], "the rules and the mode given with the first answer let the other calls run unasked");
  for (const file of ["a.txt", "b.txt", "c.txt", "notes.md"]) assert.ok(existsSync(join(dir, file)), file);
  const local = JSON.parse(readFileSync(join(dir, ".claude/settings.local.json"), "utf8"));
  assert.deepEqual(local.permissions.allow, ["Bash(touch c.txt)"]);
  assert.equal(existsSync(join(dir, ".claude/settings.json")), false, "the session's rules are written nowhere");

  asked.length = 0;
  const deny: CanUseTool = async (tool, input) => {
    asked.push(`${tool} ${JSON.stringify(input)}`);
    return { behavior: "deny", message: "not now" };
  };
  await allMessages(query({ prompt: "again", options: sdkOptions(dir, fake.url, { canUseTool: deny }) }));
  assert.deepEqual(asked, ['Bash {"command":"touch b.txt"}'], "the local settings' rule holds in a new session, the session's rule does not");
});

test("Agent SDK: a rule canUseTool adds for the session while a sub-agent asks holds for the main agent's calls after it", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: SUB_AGENT_THEN_MAIN_BASH,
    }),
  );
  const dir = tempDir(t);
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (tool, input) => {
    asked.push(`${tool} ${String(input.command)}`);
    if (asked.length > 1) return { behavior: "deny", message: "asked again" };
    return { behavior: "allow", updatedInput: input, updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "session" }] };
  };
  const messages = await allMessages(query({ prompt: "make files", options: sdkOptions(dir, fake.url, { canUseTool }) }));
  assert.equal(messages.at(-1)?.type === "result" && (messages.at(-1) as { subtype: string }).subtype, "success");
  assert.deepEqual(asked, ["Bash touch sub.txt"], "the main agent's call is not asked about again");
  for (const file of ["sub.txt", "main.txt"]) assert.ok(existsSync(join(dir, file)), file);
});

test("Agent SDK: query() gets only messages of Claude Code's kinds; a notice of the run is a system informational message", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_ls", name: "Bash", input: { command: "ls" } }] }, { text: "Listed." }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude/settings.json"), "{ not json");
  const messages = await allMessages(query({ prompt: "list", options: sdkOptions(dir, fake.url) }));
  const known = new Set(["system", "assistant", "user", "result", "stream_event"]);
  assert.deepEqual(messages.filter((m) => !known.has(m.type)).map((m) => m.type), [], "no message of a kind the SDK does not know");
  const notices = messages.filter((m) => m.type === "system" && m.subtype === "informational");
  assert.ok(notices.some((m) => m.type === "system" && m.subtype === "informational" && m.level === "warning" && /settings\.json/.test(m.content) && typeof m.uuid === "string" && typeof m.session_id === "string"), JSON.stringify(notices));
  assert.deepEqual(messages.filter((m) => m.type === "assistant" || m.type === "user").map((m) => m.type), ["assistant", "user", "assistant"]);
});

test("Agent SDK: mcpServerStatus() lists the servers and their tools; setMaxThinkingTokens() sets the next turn's thinking budget", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, { text: "Two." }] }));
  const dir = tempDir(t);
  let firstDone!: () => void;
  const first = new Promise<void>((resolve) => (firstDone = resolve));
  const said = (text: string): SDKUserMessage => ({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null });
  const statuses: unknown[] = [];
  async function* prompts() {
    yield said("first");
    await first;
    statuses.push(await run.mcpServerStatus());
    await run.setMaxThinkingTokens(2048);
    yield said("second");
  }
  const run = query({ prompt: prompts(), options: sdkOptions(dir, fake.url, { mcpServers: { tools: mcpTestServerCommand() }, mcpServersDelivery: "initialize" }) });
  let results = 0;
  for await (const message of run) {
    if (message.type !== "result") continue;
    if (++results === 1) firstDone();
    else break;
  }
  const [status] = statuses as { name: string; status: string; tools?: { name: string }[] }[][];
  assert.equal(status?.length, 1, JSON.stringify(status));
  assert.equal(status[0]!.name, "tools");
  assert.equal(status[0]!.status, "connected");
  assert.ok(status[0]!.tools?.some((tool) => tool.name === "echo"), JSON.stringify(status));
  assert.equal(fake.requests[0]!.body.thinking, undefined);
  // This model thinks adaptively: a budget turns its thinking on, as --max-thinking-tokens does.
  assert.deepEqual(fake.requests[1]!.body.thinking, { type: "adaptive" });
});

test("Agent SDK: a call the model makes to a denied createSdkMcpServer server's tool is refused and never reaches the program", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_ping", name: "mcp__calc__ping", input: {} }] }, { text: "Could not." }] }));
  const dir = tempDir(t);
  let called = 0;
  const calc = createSdkMcpServer({ name: "calc", tools: [tool("ping", "Answers", {}, async () => (called++, { content: [{ type: "text", text: "pong" }] }))] });
  const stderr: string[] = [];
  const messages = await allMessages(query({ prompt: "ping", options: sdkOptions(dir, fake.url, { mcpServers: { calc }, allowedTools: ["mcp__calc__ping"], managedSettings: { deniedMcpServers: [{ serverName: "calc" }] }, stderr: (text: string) => stderr.push(text) }) }));
  const result = messages.at(-1)!;
  assert.equal(result.type === "result" && result.subtype, "success", stderr.join(""));
  assert.equal(called, 0);
  const reply = JSON.stringify((fake.requests[1]!.body.messages as unknown[]).at(-1));
  assert.match(reply, /"is_error":true/);
  assert.doesNotMatch(reply, /pong/);
});
