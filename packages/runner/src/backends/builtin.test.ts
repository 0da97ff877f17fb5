import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedProvider } from "@harness/agent/testing";
import type { AgentEvent, RunnerEvent } from "@harness/protocol";
import { startFakeAnthropic, startFakeOpenAI, toolThenText } from "@harness/test-utils";
import { createRunnerClient } from "../client/client.ts";
import { createRunnerServer } from "../http/server.ts";
import { headlessContext, type Backend } from "../backend.ts";
import { startRunner as startTestRunner } from "../test-support.ts";
import { builtinBackend } from "./builtin.ts";

type TestContext = { after(fn: () => unknown): void };

function tempWorkspace(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-builtin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startRunner(t: TestContext, workspace: string, backend: Backend) {
  const server = createRunnerServer({ workspace, backend });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return createRunnerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

async function collect(events: AsyncIterable<RunnerEvent>): Promise<RunnerEvent[]> {
  const out: RunnerEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Sets environment variables for one test and restores them after. */
function withEnv(t: TestContext, vars: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  t.after(() => apply(saved));
}

const signal = () => new AbortController().signal;

test("a backend given its environment runs in it, whatever process.env says later", async (t) => {
  const fake = await startFakeAnthropic({ replies: toolThenText("Bash", { command: "echo $HARNESS_TEST_MARK" }, "Done.") });
  t.after(() => fake.close());
  withEnv(t, { ANTHROPIC_BASE_URL: "http://127.0.0.1:9/nothing-here", ANTHROPIC_API_KEY: undefined, HARNESS_TEST_MARK: "from-process" });
  const env = { ...process.env, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "env-key", HARNESS_TEST_MARK: "from-backend-env" };
  const client = await startRunner(t, tempWorkspace(t), builtinBackend({ env }));
  const events = await collect(client.query({ prompt: "which?", permissionMode: "bypassPermissions" }, { signal: signal() }));
  assert.equal(events.at(-1)?.type, "run.completed");
  const completed = events.find((e) => e.type === "tool.completed");
  assert.equal(completed?.type === "tool.completed" && completed.output.trim(), "from-backend-env");
  assert.equal(fake.requests[0].headers["x-api-key"], "env-key");
});

test("a scripted agent run round-trips through the runner: deltas, tool events, each call's usage as it ends, transcript and usage", async (t) => {
  const workspace = tempWorkspace(t);
  const provider = scriptedProvider([
    { text: ["Let me ", "check."], toolCalls: [{ id: "tu1", name: "Bash", input: { command: "echo round-trip" } }], usage: { inputTokens: 100, outputTokens: 10 } },
    { text: ["It ", "said round-trip."], usage: { inputTokens: 120, outputTokens: 7 } },
  ]);
  const client = await startRunner(t, workspace, builtinBackend({ provider: () => provider }));
  const events = await collect(client.query({ prompt: "run it", model: "scripted-model" }, { signal: signal() }));

  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
  );
  // Bash output may or may not keep its final newline; that is the tool's business, not the runner's.
  assert.equal(events[1].type, "run.ready");
  const payloads = events
    .slice(2, -1)
    .map(({ seq: _seq, ...rest }) => (rest.type === "tool.completed" ? { ...rest, output: rest.output.trimEnd() } : rest));
  assert.deepEqual(payloads, [
    { type: "assistant.delta", text: "Let me " },
    { type: "assistant.delta", text: "check." },
    { type: "tool.started", toolName: "Bash", toolUseId: "tu1", input: { command: "echo round-trip" } },
    // Each model call's usage as it ends, before its tool calls run.
    { type: "call.completed", usage: { inputTokens: 100, outputTokens: 10, unpricedCalls: 1 } },
    { type: "tool.output", toolUseId: "tu1", text: "round-trip\n" },
    { type: "tool.completed", toolUseId: "tu1", output: "round-trip", isError: false },
    { type: "assistant.delta", text: "It " },
    { type: "assistant.delta", text: "said round-trip." },
    { type: "call.completed", usage: { inputTokens: 120, outputTokens: 7, unpricedCalls: 1 } },
  ]);
  const last = events.at(-1);
  assert.ok(last?.type === "run.completed", JSON.stringify(last));
  assert.equal(last.result, "It said round-trip.");
  assert.deepEqual(last.usage, { inputTokens: 220, outputTokens: 17, unpricedCalls: 2 }, "scripted-model has no known price");
  assert.equal(last.transcript?.length, 4);
  assert.deepEqual(last.transcript?.[0], { role: "user", content: "run it" });
  assert.equal(provider.requests[0].model, "scripted-model");

  // The transcript goes back as history and the model sees the earlier conversation.
  const again = scriptedProvider([{ text: "Still here." }]);
  const client2 = await startRunner(t, workspace, builtinBackend({ provider: () => again }));
  const second = await collect(client2.query({ prompt: "and now?", history: last.transcript }, { signal: signal() }));
  assert.equal(second.at(-1)?.type, "run.completed");
  assert.equal(again.requests[0].messages.length, 5);
});

test("a running command's output streams as tool.output events in the run's log, read again on re-attach", async (t) => {
  const workspace = tempWorkspace(t);
  const command = "for i in 1 2 3; do echo $i; sleep 0.3; done";
  const provider = scriptedProvider([{ toolCalls: [{ id: "tu1", name: "Bash", input: { command } }] }, { text: "Counted." }]);
  const client = await startRunner(t, workspace, builtinBackend({ provider: () => provider }));
  const events = await collect(client.query({ prompt: "count", requestId: "count-run", permissionMode: "bypassPermissions" }, { signal: signal() }));
  const types = events.map((e) => e.type);
  const streamed = events.filter((e) => e.type === "tool.output");
  assert.ok(streamed.length >= 3, `one event per line printed 300 ms apart, got ${streamed.length}`);
  assert.equal(streamed.map((e) => e.text).join(""), "1\n2\n3\n");
  assert.ok(types.lastIndexOf("tool.output") < types.indexOf("tool.completed") && types.indexOf("tool.started") < types.indexOf("tool.output"));
  const again = await collect(client.events("count-run", { afterSeq: 0, signal: signal() }));
  assert.deepEqual(again.filter((e) => e.type === "tool.output"), streamed);
});

test("the builtin backend drives the real Anthropic provider: a Bash tool round trip in the workspace", async (t) => {
  const fake = await startFakeAnthropic({ replies: toolThenText("Bash", { command: "echo from-bash > made.txt && cat made.txt" }, "Made it.") });
  t.after(() => fake.close());
  withEnv(t, { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: undefined });
  const workspace = tempWorkspace(t);
  const client = await startRunner(t, workspace, builtinBackend());

  const events = await collect(client.query({ prompt: "make a file", anthropicApiKey: "per-query-key", permissionMode: "acceptEdits" }, { signal: signal() }));
  assert.deepEqual(
    events.map((e) => e.type),
    ["run.started", "run.ready", "tool.started", "call.completed", "tool.output", "tool.completed", "assistant.delta", "call.completed", "run.completed"],
  );
  const completed = events[5];
  assert.ok(completed.type === "tool.completed");
  assert.equal(completed.output.trimEnd(), "from-bash");
  assert.equal(readFileSync(join(workspace, "made.txt"), "utf8"), "from-bash\n");
  assert.equal(fake.requests[0].headers["x-api-key"], "per-query-key");
  assert.match(JSON.stringify(fake.requests[1].body.messages.at(-1)), /from-bash/);
});

test("without any API key a run of an Anthropic model fails saying which variable to set, before calling the model", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "unused" }] });
  t.after(() => fake.close());
  withEnv(t, { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, HOME: tempWorkspace(t) });
  const client = await startRunner(t, tempWorkspace(t), builtinBackend());
  const expected = "ANTHROPIC_API_KEY is not set; export your Anthropic API key (or ANTHROPIC_AUTH_TOKEN) to use Anthropic models";
  // Named by the query: refused at once. Left to the settings and the default: the model provider says the same.
  for (const query of [{ prompt: "hi", model: "claude-test" }, { prompt: "hi" }]) {
    const events = await collect(client.query(query, { signal: signal() }));
    const last = events.at(-1)!;
    assert.equal(last.type, "run.error");
    assert.equal(last.type === "run.error" && last.message, expected);
  }
  assert.equal(fake.requests.length, 0);
});

test("a model the project's settings name decides whether the run needs an Anthropic key", async (t) => {
  const openai = await startFakeOpenAI({ replies: [{ text: "served by the settings' model" }] });
  t.after(() => openai.close());
  withEnv(t, { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "k", HOME: tempWorkspace(t) });
  const workspace = tempWorkspace(t);
  mkdirSync(join(workspace, ".claude"));
  writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify({ model: "openai/gpt-test" }));
  const client = await startRunner(t, workspace, builtinBackend());
  const events = await collect(client.query({ prompt: "hi" }, { signal: signal() }));
  assert.equal(events.at(-1)!.type, "run.completed", JSON.stringify(events.at(-1)));
  assert.equal(openai.requests[0].body.model, "gpt-test");
});

test("cancelling reports 'cancelled', a model error and the turn limit report their messages", async (t) => {
  const workspace = tempWorkspace(t);
  const run = (steps: Parameters<typeof scriptedProvider>[0], opts: { maxTurns?: number; signal?: AbortSignal; onEvent?: (e: AgentEvent) => void } = {}) =>
    builtinBackend({ provider: () => scriptedProvider(steps) }).run(
      { prompt: "p", maxTurns: opts.maxTurns },
      headlessContext({ signal: opts.signal ?? signal(), emit: opts.onEvent ?? (() => {}), workspace }),
    );

  const controller = new AbortController();
  const cancelled = await run([{ text: "partial", hang: true }], {
    signal: controller.signal,
    onEvent: (e) => e.type === "assistant.delta" && controller.abort(),
  });
  assert.equal(cancelled.ok, false);
  assert.ok(!cancelled.ok && cancelled.message === "cancelled" && Array.isArray(cancelled.transcript));

  const failed = await run([{ error: "Anthropic API error 400: bad request" }]);
  assert.deepEqual(failed.ok ? undefined : failed.message, "Anthropic API error 400: bad request");

  const limited = await run([{ toolCalls: [{ name: "Bash", input: { command: "true" } }] }, { text: "never" }], { maxTurns: 1 });
  assert.equal(limited.ok, false);
  assert.match(limited.ok ? "" : limited.message, /maximum of 1 model turn/);
});

test("a relative cwd in the query resolves inside the workspace", async (t) => {
  const workspace = tempWorkspace(t);
  const provider = scriptedProvider([{ toolCalls: [{ id: "t", name: "Bash", input: { command: "pwd" } }] }, { text: "ok" }]);
  const outputs: string[] = [];
  mkdirSync(join(workspace, "sub"));
  const outcome = await builtinBackend({ provider: () => provider }).run(
    { prompt: "where", cwd: "sub" },
    headlessContext({ signal: signal(), emit: (e) => { if (e.type === "tool.completed") outputs.push(e.output); }, workspace }),
  );
  assert.equal(outcome.ok, true);
  assert.equal(outputs[0].trim(), join(workspace, "sub"));
});

/** Reads events until one matches; returns everything read. */
async function readUntil(iter: AsyncIterator<RunnerEvent>, match: (e: RunnerEvent) => boolean): Promise<RunnerEvent[]> {
  const seen: RunnerEvent[] = [];
  for (;;) {
    const next = await iter.next();
    if (next.done) assert.fail(`the stream ended early; saw ${seen.map((e) => e.type).join(", ")}`);
    seen.push(next.value);
    if (match(next.value)) return seen;
  }
}

async function postJson(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await res.body?.cancel();
  return res.status;
}

test("an interactive run asks before each call; one approved runs, one denied does not; a steer reaches the model", async (t) => {
  const workspace = tempWorkspace(t);
  withEnv(t, { HOME: tempWorkspace(t) });
  const provider = scriptedProvider([
    {
      toolCalls: [
        { id: "yes", name: "Bash", input: { command: "touch approved.txt" } },
        { id: "no", name: "Bash", input: { command: "touch denied.txt" } },
      ],
    },
    { text: "Done.", usage: { inputTokens: 50, outputTokens: 3 } },
  ]);
  const { url, client } = await startTestRunner(t, { workspace, backend: builtinBackend({ provider: () => provider }) });
  const iter = client.query({ prompt: "make files", interactive: true, model: "scripted-model" }, { signal: signal() })[Symbol.asyncIterator]();

  let events = await readUntil(iter, (e) => e.type === "approval.requested" && e.toolUseId === "no");
  const started = events[0];
  assert.ok(started.type === "run.started");
  const run = `${url}/runs/${started.requestId}`;
  const asked = events.filter((e) => e.type === "approval.requested");
  assert.deepEqual(
    asked.map((e) => e.type === "approval.requested" && [e.toolUseId, e.toolName, e.description]),
    [
      ["yes", "Bash", "touch approved.txt"],
      ["no", "Bash", "touch denied.txt"],
    ],
  );
  assert.equal(await postJson(`${run}/steer`, { message: "Also say hello." }), 200);
  assert.equal(await postJson(`${run}/deny`, { toolUseId: "no", reason: "not that one" }), 200);
  assert.equal(await postJson(`${run}/approve`, { toolUseId: "yes" }), 200);
  events = events.concat(await readUntil(iter, (e) => e.type === "run.completed" || e.type === "run.error"));

  const last = events.at(-1);
  assert.ok(last?.type === "run.completed", JSON.stringify(last));
  assert.ok(existsSync(join(workspace, "approved.txt")), "the approved command ran");
  assert.equal(existsSync(join(workspace, "denied.txt")), false, "the denied command did not run");
  const denied = events.find((e) => e.type === "tool.completed" && e.toolUseId === "no");
  assert.ok(denied?.type === "tool.completed" && denied.isError);
  assert.match(denied.output, /not that one/);
  assert.deepEqual(
    events.filter((e) => e.type === "approval.resolved").map((e) => e.type === "approval.resolved" && [e.toolUseId, e.behavior]),
    [
      ["no", "deny"],
      ["yes", "allow"],
    ],
  );
  assert.ok(events.some((e) => e.type === "user.message" && e.steer === true && e.text === "Also say hello."));
  assert.match(JSON.stringify(provider.requests[1].messages.at(-1)), /Also say hello\./);
  // run.completed reports the model and each model call; the builtin loop has no session id.
  assert.equal(last.model, "scripted-model");
  assert.equal(last.turns?.length, 2);
  assert.equal(last.turns?.[1].inputTokens, 50);
  assert.equal(last.sessionId, undefined);
});

test("with shared resources, the files read in one run count in the next (an Edit needs no new Read)", async (t) => {
  const workspace = tempWorkspace(t);
  withEnv(t, { HOME: tempWorkspace(t) });
  const file = join(workspace, "notes.txt");
  const readThenEdit = async (sharedResources: boolean) => {
    writeFileSync(file, "one\n");
    const providers = [
      scriptedProvider([{ toolCalls: [{ name: "Read", input: { file_path: file } }] }, { text: "read" }]),
      scriptedProvider([{ toolCalls: [{ name: "Edit", input: { file_path: file, old_string: "one", new_string: "two" } }] }, { text: "edited" }]),
    ];
    let next = 0;
    const backend = builtinBackend({ provider: () => providers[next++], sharedResources });
    const ctx = () => headlessContext({ signal: signal(), emit: () => {}, workspace });
    try {
      assert.equal((await backend.run({ prompt: "read it", permissionMode: "acceptEdits" }, ctx())).ok, true);
      assert.equal((await backend.run({ prompt: "edit it", permissionMode: "acceptEdits" }, ctx())).ok, true);
    } finally {
      await backend.dispose?.();
    }
    return readFileSync(file, "utf8");
  };
  assert.equal(await readThenEdit(true), "two\n");
  assert.equal(await readThenEdit(false), "one\n", "each run on its own must read the file first");
});

test("a model id with a provider prefix is routed by the loop, with no Anthropic key needed", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ text: ["Hi from ", "OpenAI"] }] });
  t.after(() => fake.close());
  withEnv(t, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: undefined, HOME: tempWorkspace(t) });
  const client = await startRunner(t, tempWorkspace(t), builtinBackend());
  const events = await collect(client.query({ prompt: "hi", model: "openai/gpt-test" }, { signal: signal() }));
  const last = events.at(-1);
  assert.ok(last?.type === "run.completed", JSON.stringify(last));
  assert.equal(last.result, "Hi from OpenAI");
  assert.equal(last.model, "gpt-test");
  assert.equal(fake.requests[0].body.model, "gpt-test");
});

test("an interactive query that names no permission mode follows the project's defaultMode setting", async (t) => {
  const workspace = tempWorkspace(t);
  withEnv(t, { HOME: tempWorkspace(t) });
  mkdirSync(join(workspace, ".claude"));
  writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
  const provider = scriptedProvider([
    { toolCalls: [{ id: "w", name: "Write", input: { file_path: join(workspace, "made.txt"), content: "made\n" } }] },
    { text: "Written." },
  ]);
  const events: AgentEvent[] = [];
  const outcome = await builtinBackend({ provider: () => provider }).run(
    { prompt: "write it" },
    {
      ...headlessContext({ signal: signal(), emit: (e) => events.push(e), workspace }),
      requestApproval: async () => assert.fail("acceptEdits lets a Write in the workspace run without asking"),
    },
  );
  assert.equal(outcome.ok, true, JSON.stringify(outcome));
  assert.equal(readFileSync(join(workspace, "made.txt"), "utf8"), "made\n");
});

test("a run says what it has available once it is set up: the project's commands, the tools, and a host's onReady still hears it", async (t) => {
  const workspace = tempWorkspace(t);
  mkdirSync(join(workspace, ".claude", "commands"), { recursive: true });
  writeFileSync(join(workspace, ".claude", "commands", "deploy.md"), "Deploy.");
  withEnv(t, { HOME: workspace });
  const events: AgentEvent[] = [];
  const heard: string[] = [];
  const outcome = await builtinBackend({ provider: () => scriptedProvider([{ text: "Hi." }]), runOptions: { onReady: (info) => heard.push(info.model) } }).run(
    { prompt: "hello" },
    headlessContext({ signal: signal(), emit: (e) => events.push(e), workspace }),
  );
  assert.equal(outcome.ok, true);
  const ready = events.filter((e) => e.type === "run.ready");
  assert.equal(ready.length, 1);
  const { available } = ready[0] as Extract<AgentEvent, { type: "run.ready" }>;
  assert.ok(available.slashCommands.includes("deploy") && available.slashCommands.includes("help"), available.slashCommands.join(" "));
  assert.ok(available.tools.includes("Bash") && available.tools.includes("Read"));
  assert.deepEqual([available.mcpServers, available.outputStyle], [[], "default"]);
  assert.deepEqual(heard, [available.model]);
  assert.ok(events.indexOf(ready[0]) < events.findIndex((e) => e.type === "assistant.delta"), "before the reply");
});
