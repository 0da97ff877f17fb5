// The claude-code backend running the real Claude Code binary against the fake model server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AgentEvent } from "@harness/protocol";
import { join } from "node:path";
import { claudeCodeBackend } from "./claude-code.ts";
import { MISSING_ANTHROPIC_KEY } from "@harness/llm/model-prefix";
import { AUTH_FAILED_MESSAGE, unknownSessionNotice } from "./run.ts";
import { drivenContext, fakeForClaudeCode, NO_CLAUDE_CODE, runnerEnvFor, tempDirs, textOf } from "./test-support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const skip = NO_CLAUDE_CODE;
const timeout = 60_000;

test("text streams as deltas; the outcome has the result, usage, cost, Claude Code's session id and the turns", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ text: ["Hello ", "from ", "the ", "fake ", "model."], usage: { input_tokens: 1200, output_tokens: 9, cache_read_input_tokens: 300 } }],
  });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake, { ANTHROPIC_API_KEY: "runner-key" }) });
  const outcome = await backend.run({ prompt: "say hello", anthropicApiKey: "query-key", systemPrompt: "Always be brief." }, run.ctx);

  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(outcome.result, "Hello from the fake model.");
  const deltas = run.events.filter((e) => e.type === "assistant.delta");
  assert.equal(deltas.length, 5, "one delta per streamed word");
  assert.equal(textOf(run.events), "Hello from the fake model.");
  assert.equal(outcome.usage.inputTokens, 1200);
  assert.equal(outcome.usage.outputTokens, 9);
  assert.equal(outcome.usage.cacheReadTokens, 300);
  assert.ok((outcome.usage.costUsd ?? 0) > 0, "Claude Code prices the call");
  assert.match(outcome.sessionId ?? "", UUID);
  assert.deepEqual(outcome.turns, [{ inputTokens: 1200, outputTokens: 9, cacheReadTokens: 300, cacheWriteTokens: 0 }]);
  // The call was reported as it ended, once, priced (by the harness's price list: Claude Code's own
  // price of the model is known once a result has told it; the run's end gives Claude Code's figure).
  const calls = run.events.filter((e) => e.type === "call.completed");
  assert.equal(calls.length, 1);
  assert.equal(calls[0].type === "call.completed" && calls[0].usage.inputTokens, 1200);
  assert.ok(calls[0].type === "call.completed" && (calls[0].usage.costUsd ?? 0) > 0);
  assert.deepEqual(outcome.transcript, [
    { role: "user", content: "say hello" },
    { role: "assistant", content: [{ type: "text", text: "Hello from the fake model." }] },
  ]);

  assert.equal(fake.requests.length, 1);
  const request = fake.requests[0];
  assert.equal(request.headers["x-api-key"], "query-key", "the query's key wins over the runner's");
  const system = JSON.stringify(request.body.system);
  assert.match(system, /Claude Code/, "Claude Code's own system prompt");
  assert.match(system, /Always be brief\./, "with the query's appended");
  assert.match(JSON.stringify(request.body.messages), /say hello/);
  // Claude Code keeps its transcripts in the state directory, not in any ~/.claude.
  assert.ok(existsSync(join(dirs.stateDir, "claude", "projects")));
});

test("a Bash call round trip: tool events with input and output, the file made in the workspace, the result sent back", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      { text: "Making it.", toolUses: [{ id: "toolu_make", name: "Bash", input: { command: "echo from-bash > made.txt && cat made.txt", description: "make" } }] },
      { text: "Made it." },
    ],
  });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "make a file", permissionMode: "bypassPermissions" }, run.ctx);

  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(readFileSync(join(dirs.workspace, "made.txt"), "utf8"), "from-bash\n");
  const tools = run.events.filter((e) => e.type === "tool.started" || e.type === "tool.completed");
  assert.deepEqual(tools, [
    { type: "tool.started", toolName: "Bash", toolUseId: "toolu_make", input: { command: "echo from-bash > made.txt && cat made.txt", description: "make" } },
    { type: "tool.completed", toolUseId: "toolu_make", output: "from-bash", isError: false },
  ]);
  assert.equal(textOf(run.events), "Making it.Made it.");
  assert.equal(outcome.result, "Made it.");
  assert.equal(outcome.turns?.length, 2);
  const sent = fake.requests[1].body.messages.at(-1);
  const result = sent.content.find((b: { type: string }) => b.type === "tool_result");
  assert.equal(result.tool_use_id, "toolu_make");
  assert.match(JSON.stringify(result.content), /from-bash/);
  assert.deepEqual(
    outcome.transcript.map((m) => m.role),
    ["user", "assistant", "user", "assistant"],
  );
});

test("resume by session id continues the conversation; each run reports only its own usage, and the conversation's totals go on from those sent", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      // About a second of streaming: the first run's API time is long, the second's short.
      // Slow enough that the second call, even on a busy machine, takes less API time.
      { text: "The code word is heron.", usage: { input_tokens: 100, output_tokens: 10 }, delayMs: 300 },
      { text: "You said heron.", usage: { input_tokens: 200, output_tokens: 20 } },
    ],
  });
  const dirs = tempDirs(t);
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  const first = await backend.run({ prompt: "remember heron" }, drivenContext(dirs).ctx);
  assert.ok(first.ok, JSON.stringify(first));
  const second = await backend.run({ prompt: "what was the word?", resumeSessionId: first.sessionId, spentBefore: first.spent }, drivenContext(dirs).ctx);
  assert.ok(second.ok, JSON.stringify(second));

  assert.equal(second.sessionId, first.sessionId);
  const messages = JSON.stringify(fake.requests[1].body.messages);
  assert.match(messages, /remember heron/);
  assert.match(messages, /The code word is heron\./);
  assert.match(messages, /what was the word\?/);
  assert.deepEqual([first.usage.inputTokens, first.usage.outputTokens], [100, 10]);
  assert.deepEqual([second.usage.inputTokens, second.usage.outputTokens], [200, 20], "not the session's running total");
  assert.ok((second.usage.costUsd ?? 0) > (first.usage.costUsd ?? 0), "the second call is the dearer one");
  assert.ok(first.spent && second.spent, "each run's end says what the conversation spent");
  assert.deepEqual(first.spent.usage, first.usage);
  assert.deepEqual([first.spent.calls, second.spent.calls, second.spent.usage.inputTokens, second.spent.usage.outputTokens], [1, 2, 300, 30]);
  assert.ok(Math.abs(second.spent.usage.costUsd! - first.usage.costUsd! - second.usage.costUsd!) < 1e-9);
  assert.ok(first.spent.apiMs >= 500 && first.spent.wallMs >= first.spent.apiMs, JSON.stringify(first.spent));
  const secondApiMs = second.spent.apiMs - first.spent.apiMs;
  assert.ok(secondApiMs > 0 && secondApiMs < first.spent.apiMs, `the second run adds its own API time, not Claude Code's running total: ${JSON.stringify([first.spent, second.spent])}`);
  assert.equal(second.apiMs, secondApiMs);
  assert.ok(second.spent.wallMs > first.spent.wallMs);
});

test("a store of the backend that lost the session's totals (another version's file) does not make a resumed run count the earlier runs' calls again", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      // Slow enough that the second call, even on a busy machine, takes less API time.
      { text: "The code word is heron.", usage: { input_tokens: 100, output_tokens: 10 }, delayMs: 300 },
      { text: "You said heron.", usage: { input_tokens: 200, output_tokens: 20 } },
    ],
  });
  const dirs = tempDirs(t);
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  const first = await backend.run({ prompt: "remember heron" }, drivenContext(dirs).ctx);
  assert.ok(first.ok, JSON.stringify(first));
  // A file this version cannot read counts as empty: the totals Claude Code's session had are gone.
  writeFileSync(join(dirs.stateDir, "claude-code.json"), JSON.stringify({ version: 0, runs: [] }));
  const run = drivenContext(dirs);
  const second = await backend.run({ prompt: "what was the word?", resumeSessionId: first.sessionId }, run.ctx);
  assert.ok(second.ok, JSON.stringify(second));
  assert.equal(second.sessionId, first.sessionId);
  assert.deepEqual([second.usage.inputTokens, second.usage.outputTokens], [200, 20], "only the run's own call");
  const reported = run.events.flatMap((e) => (e.type === "call.completed" ? [e.usage] : []));
  assert.equal(reported.length, 1);
  assert.ok(Math.abs((second.usage.costUsd ?? 0) - (reported[0].costUsd ?? 0)) < 1e-9, `the run's cost is its call's: ${second.usage.costUsd} vs ${reported[0].costUsd}`);
  // Nor its API time: without the running total before, the run's is taken no further than its own time.
  const wallMs = second.spent!.wallMs;
  assert.equal(second.spent!.calls, 1);
  assert.ok(second.spent!.apiMs <= wallMs && wallMs > 0, JSON.stringify(second.spent));
  assert.ok(second.spent!.apiMs < first.spent!.apiMs, `not the first run's slow call again: ${JSON.stringify([first.spent, second.spent])}`);
});

test("a run of a command Claude Code answers itself (/context), which calls no model, neither adds API time nor makes the next run count the earlier runs' again", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [
      { text: "Slow.", usage: { input_tokens: 100, output_tokens: 10 }, delayMs: 100 },
      { text: "Quick.", usage: { input_tokens: 200, output_tokens: 20 } },
    ],
  });
  const dirs = tempDirs(t);
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  const first = await backend.run({ prompt: "answer slowly" }, drivenContext(dirs).ctx);
  assert.ok(first.ok && first.spent, JSON.stringify(first));
  const context = await backend.run({ prompt: "/context", resumeSessionId: first.sessionId, spentBefore: first.spent }, drivenContext(dirs).ctx);
  assert.ok(context.ok && context.spent, JSON.stringify(context));
  assert.equal(fake.requests.length, 1, "the report needs no model call");
  assert.deepEqual([context.spent.calls, context.spent.apiMs, context.spent.usage.inputTokens], [1, first.spent.apiMs, 100]);
  const third = await backend.run({ prompt: "quickly now", resumeSessionId: first.sessionId, spentBefore: context.spent }, drivenContext(dirs).ctx);
  assert.ok(third.ok && third.spent, JSON.stringify(third));
  assert.deepEqual([third.spent.calls, third.spent.usage.inputTokens], [2, 300]);
  const apiMs = third.spent.apiMs - context.spent.apiMs;
  assert.ok(apiMs > 0 && apiMs < first.spent.apiMs, `the quick call's time only: ${JSON.stringify([first.spent, context.spent, third.spent])}`);
});

test("resuming a Claude Code session this workspace does not keep starts a new one and says so", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, { replies: [{ text: "fresh start" }] });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const elsewhere = "0a1b2c3d-0000-4000-8000-000000000001";
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run(
    { prompt: "go on", resumeSessionId: elsewhere, history: [{ role: "user", content: "from another session" }] },
    run.ctx,
  );
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.notEqual(outcome.sessionId, elsewhere);
  assert.deepEqual(run.events.filter((e) => e.type === "notice"), [{ type: "notice", level: "warning", message: unknownSessionNotice(elsewhere) }]);
  assert.deepEqual(outcome.transcript[0], { role: "user", content: "from another session" }, "the session's history is kept in the transcript");
});

test("Claude Code gets only the environment it needs: a secret of the runner's environment stays out", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ toolUses: [{ id: "toolu_env", name: "Bash", input: { command: "env", description: "show env" } }] }, { text: "done" }],
  });
  const dirs = tempDirs(t);
  const saved = { secret: process.env.HARNESS_RUNNER_SECRET, base: process.env.ANTHROPIC_BASE_URL, key: process.env.ANTHROPIC_API_KEY };
  process.env.HARNESS_RUNNER_SECRET = "do-not-leak-4711";
  process.env.ANTHROPIC_BASE_URL = fake.url;
  process.env.ANTHROPIC_API_KEY = "runner-env-key";
  t.after(() => {
    for (const [name, value] of [["HARNESS_RUNNER_SECRET", saved.secret], ["ANTHROPIC_BASE_URL", saved.base], ["ANTHROPIC_API_KEY", saved.key]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  const run = drivenContext(dirs);
  // The default runnerEnv: the runner's process.env.
  const outcome = await claudeCodeBackend().run({ prompt: "show me the environment", permissionMode: "bypassPermissions" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));

  const done = run.events.find((e) => e.type === "tool.completed");
  assert.ok(done?.type === "tool.completed");
  const env = new Map(done.output.split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  assert.ok(!done.output.includes("do-not-leak-4711"));
  assert.equal(env.has("HARNESS_RUNNER_SECRET"), false);
  assert.equal(env.get("ANTHROPIC_API_KEY"), "runner-env-key");
  assert.equal(env.get("ANTHROPIC_BASE_URL"), fake.url);
  assert.equal(env.get("CLAUDE_CONFIG_DIR"), join(dirs.stateDir, "claude"));
  assert.ok(env.get("HOME")?.startsWith(dirs.stateDir), `HOME inside the state directory, got ${env.get("HOME")}`);
  assert.ok(env.get("TMPDIR")?.startsWith(dirs.stateDir), `TMPDIR inside the state directory, got ${env.get("TMPDIR")}`);
  assert.equal(env.get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), "1");
  assert.equal(env.get("PWD"), dirs.workspace, "the workspace is the working directory");
});

test("models are named as for the builtin backend: anthropic/<id> and HARNESS_MODEL reach Claude Code; another provider's model is refused", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, { respond: () => ({ text: "ok" }) });
  const model = async (query: { model?: string }, env: Record<string, string> = {}) => {
    const from = fake.requests.length;
    const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake, env) }).run({ prompt: "hi", ...query }, drivenContext(tempDirs(t)).ctx);
    return outcome.ok ? fake.requests.slice(from).map((r) => r.body.model).join(",") : `failed: ${outcome.message}`;
  };
  assert.equal(await model({ model: "anthropic/claude-haiku-4-5" }), "claude-haiku-4-5");
  assert.equal(await model({}, { HARNESS_MODEL: "anthropic/claude-sonnet-4-5" }), "claude-sonnet-4-5", "the runner's default model");
  assert.equal(await model({}, { ANTHROPIC_MODEL: "claude-haiku-4-5" }), "claude-haiku-4-5");
  assert.equal(await model({ model: "claude-sonnet-4-5" }, { HARNESS_MODEL: "claude-haiku-4-5" }), "claude-sonnet-4-5", "the query's model wins");
  const before = fake.requests.length;
  assert.match(await model({ model: "openai/gpt-4o" }), /^failed: Claude Code runs Anthropic's models only, not "openai\/gpt-4o"/);
  assert.match(await model({}, { HARNESS_MODEL: "ollama/llama3" }), /^failed: .*"ollama\/llama3".*\(HARNESS_MODEL or ANTHROPIC_MODEL\)$/);
  assert.equal(fake.requests.length, before, "a refused model starts no Claude Code");
});

test("a run without any API key fails before starting Claude Code", async (t) => {
  const dirs = tempDirs(t);
  const outcome = await claudeCodeBackend({ runnerEnv: { PATH: process.env.PATH } }).run({ prompt: "hi" }, drivenContext(dirs).ctx);
  assert.deepEqual(outcome, { ok: false, message: MISSING_ANTHROPIC_KEY });
  assert.equal(existsSync(dirs.stateDir), false);
});

test("a missing binary is a failed run that says so", async (t) => {
  const dirs = tempDirs(t);
  const backend = claudeCodeBackend({ executable: join(dirs.workspace, "no-such-claude"), runnerEnv: { ANTHROPIC_API_KEY: "k" } });
  const outcome = await backend.run({ prompt: "hi" }, drivenContext(dirs).ctx);
  assert.equal(outcome.ok, false);
  assert.match(outcome.ok ? "" : outcome.message, /^Claude Code failed: .*no-such-claude/);
});

test("a rejected API key ends the run at once with a message that says so", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, { respond: () => ({ kind: "http-error", status: 401 }) });
  const dirs = tempDirs(t);
  const started = performance.now();
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "hi" }, drivenContext(dirs).ctx);
  assert.deepEqual(outcome.ok ? undefined : outcome.message, AUTH_FAILED_MESSAGE);
  // Claude Code retries a 401 for minutes; the backend stops at the first rejection.
  assert.ok(performance.now() - started < 20_000);
  assert.ok(fake.requests.length < 5, `${fake.requests.length} attempts`);
});

test("a rate limit Claude Code waits out is announced, as the builtin backend announces its retries", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, { replies: [{ kind: "http-error", status: 429, retryAfter: 1 }, { text: "after the wait" }] });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "hi" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  const notices = run.events.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? `${e.level} ${e.message}` : ""));
  assert.equal(notices.length, 1, JSON.stringify(notices));
  assert.match(notices[0], /^warning The model request failed \(HTTP 429, rate_limit\); trying again in 1(\.\d)? s \(attempt 2 of \d+\)\.$/);
  assert.ok(run.events.indexOf(run.events.find((e) => e.type === "notice")!) < run.events.findIndex((e) => e.type === "assistant.delta"));
});

test("a refusal Claude Code goes on from is said, as Claude Code's own screen says it", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ text: "I can't", stopReason: "refusal", stopDetails: { category: "cyber", explanation: "Refused." } }, { text: "Here is what I can do." }],
  });
  const run = drivenContext(tempDirs(t));
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "hi" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  const notices = run.events.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? e.message : ""));
  assert.ok(notices.some((m) => /safeguards stopped the response/.test(m)), JSON.stringify(notices));
});

test("reaching maxTurns is a failure that names the limit", { skip, timeout }, async (t) => {
  const fake = await fakeForClaudeCode(t, {
    replies: [{ toolUses: [{ name: "Bash", input: { command: "true" } }] }, { text: "never asked for" }],
  });
  const dirs = tempDirs(t);
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run(
    { prompt: "loop", maxTurns: 1, permissionMode: "bypassPermissions" },
    drivenContext(dirs).ctx,
  );
  assert.equal(outcome.ok, false);
  assert.match(outcome.ok ? "" : outcome.message, /maximum number of turns/);
  assert.equal(fake.requests.length, 1);
});

test("a sub-agent's text and tool calls carry its agent id and the Agent call that started it", { skip, timeout }, async (t) => {
  const has = (req: { body: { messages: unknown[] } }, text: string) => JSON.stringify(req.body.messages).includes(text);
  const fake = await fakeForClaudeCode(t, {
    respond: (req) => {
      if (has(req, "do the sub work")) {
        return has(req, "tool_result") ? { text: "sub done" } : { text: "sub says", toolUses: [{ id: "toolu_sub", name: "Bash", input: { command: "echo from-sub" } }] };
      }
      if (has(req, "task-notification")) return { text: "The agent reported." };
      if (has(req, "toolu_agent")) return { text: "Waiting for the agent." };
      return { toolUses: [{ id: "toolu_agent", name: "Agent", input: { description: "sub", prompt: "do the sub work", subagent_type: "general-purpose" } }] };
    },
  });
  const dirs = tempDirs(t);
  const run = drivenContext(dirs);
  const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "delegate", permissionMode: "bypassPermissions" }, run.ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));

  const started = run.events.find((e) => e.type === "tool.started" && e.toolUseId === "toolu_agent");
  assert.ok(started && !("agentId" in started), "the Agent call is the main agent's");
  const sub = run.events.filter((e) => "parentToolUseId" in e && e.parentToolUseId === "toolu_agent");
  assert.ok(sub.every((e) => "agentId" in e && typeof e.agentId === "string" && e.agentId.length > 0));
  assert.deepEqual(
    sub.map((e) => (e.type === "assistant.delta" ? `delta ${e.text}` : e.type === "tool.completed" ? `completed ${e.output.trim()}` : e.type)),
    // Each of the sub-agent's two model calls is reported at its first line; the last again with its
    // real output count once Claude Code tells it (as the agent finishes).
    ["call.completed", "delta sub says", "tool.started", "completed from-sub", "call.completed", "delta sub done", "call.completed"],
  );
  assert.doesNotMatch(JSON.stringify(outcome.transcript), /sub says/, "the sub-agent's conversation is not the main transcript");
});

for (const background of [true, false]) {
  test(`a sub-agent's last model call is counted with its real output count once Claude Code tells it (${background ? "in the background" : "in the foreground"}), before the run ends`, { skip, timeout }, async (t) => {
    const has = (req: { body: { messages: unknown[] } }, text: string) => JSON.stringify(req.body.messages).includes(text);
    const fake = await fakeForClaudeCode(t, {
      respond: (req) => {
        if (has(req, "do the sub work")) {
          if (!has(req, "toolu_agent")) return { text: "sub done", usage: { input_tokens: 300, output_tokens: 33 } };
        }
        if (has(req, "task-notification")) return { text: "The agent reported.", usage: { input_tokens: 500, output_tokens: 5 } };
        if (has(req, "toolu_agent")) return { text: "Over.", usage: { input_tokens: 400, output_tokens: 4 } };
        return { toolUses: [{ id: "toolu_agent", name: "Agent", input: { description: "sub", prompt: "do the sub work", subagent_type: "general-purpose", run_in_background: background } }], usage: { input_tokens: 100, output_tokens: 11 } };
      },
    });
    const dirs = tempDirs(t);
    const run = drivenContext(dirs);
    const outcome = await claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) }).run({ prompt: "delegate", permissionMode: "bypassPermissions" }, run.ctx);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const sub = run.events.flatMap((e) => (e.type === "call.completed" && e.parentToolUseId === "toolu_agent" ? [e] : []));
    assert.ok(sub.length >= 1);
    assert.equal(sub.at(-1)!.usage.inputTokens, 300);
    assert.equal(sub.at(-1)!.usage.outputTokens, 33, "the real count, not the one the call began with");
    assert.ok(sub.every((e) => e.callId === sub[0].callId), "one call, reported again under its id");
  });
}

test("a run reports its commands' argument hints, asked of Claude Code once the run is under way; the session's next run has them from its start", { skip, timeout }, async (t) => {
  let release = () => {};
  const hold = new Promise<void>((resolve) => (release = resolve));
  const fake = await fakeForClaudeCode(t, { replies: [{ text: "Deployed.", hold }, { text: "Again." }] });
  const dirs = tempDirs(t);
  mkdirSync(join(dirs.workspace, ".claude", "commands"), { recursive: true });
  writeFileSync(join(dirs.workspace, ".claude", "commands", "deploy.md"), "---\ndescription: Deploy it\nargument-hint: <environment>\n---\nDeploy to $ARGUMENTS.\n");
  const backend = claudeCodeBackend({ runnerEnv: runnerEnvFor(fake) });
  const run = drivenContext(dirs);
  const hinted = (e: AgentEvent) => e.type === "run.ready" && e.available.argumentHints?.deploy !== undefined;
  const running = backend.run({ prompt: "deploy" }, run.ctx);
  // The model is asked with the run's first reply still held: the hints came while it ran.
  const ready = await run.waitForEvent(hinted, 30_000);
  release();
  const first = await running;
  assert.ok(first.ok, JSON.stringify(first));
  assert.equal(ready.type === "run.ready" && ready.available.argumentHints?.deploy, "<environment>");
  const readies = run.events.filter((e) => e.type === "run.ready");
  assert.equal(readies.length, 2, "the init's, then the same with the hints");
  assert.ok(readies[0]!.type === "run.ready" && readies[0]!.available.slashCommands.includes("deploy"));

  const next = drivenContext(dirs);
  const second = await backend.run({ prompt: "again", resumeSessionId: first.sessionId }, next.ctx);
  assert.ok(second.ok, JSON.stringify(second));
  const nextReadies = next.events.filter((e) => e.type === "run.ready");
  assert.equal(nextReadies.length, 1, JSON.stringify(nextReadies));
  assert.equal(nextReadies[0]!.type === "run.ready" && nextReadies[0]!.available.argumentHints?.deploy, "<environment>");
});
