// `harness run --max-budget-usd` and `--fallback-model`: what a script sees when the run costs too
// much, and when the model is overloaded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, startFakeOpenAI, toolThenText } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const BASH_THEN_TEXT = () => toolThenText("Bash", { command: "echo hi" }, "It printed hi.");

test("--max-budget-usd: the run stops once its cost reaches the amount, with subtype error_max_budget_usd and exit 1", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: BASH_THEN_TEXT() }));
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--max-budget-usd", "0.000001", "--output-format", "json", "say hi"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 1, stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.type, "result");
  assert.equal(result.subtype, "error_max_budget_usd");
  assert.equal(result.is_error, true);
  assert.match(result.error, /budget of \$0\.000001/);
  assert.ok(result.total_cost_usd > 0.000001, String(result.total_cost_usd));
  assert.equal(result.num_turns, 1);
  assert.equal(fake.requests.length, 1, "no model call after the budget was reached");
  assert.equal(typeof result.session_id, "string", "the conversation is kept, to go on with");
});

test("--max-budget-usd: a run within its budget ends as usual; as text, one that passes it says so on stderr", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [...BASH_THEN_TEXT(), ...BASH_THEN_TEXT()] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const within = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--max-budget-usd", "5", "say hi"], env).result;
  assert.equal(within.code, 0, within.stderr);
  assert.equal(within.stdout, "It printed hi.\n");
  const over = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--max-budget-usd=0.000001", "say hi"], env).result;
  assert.equal(over.code, 1);
  assert.match(over.stderr, /harness: .*budget of \$0\.000001/);
});

test("--max-budget-usd takes a positive amount of dollars: anything else is one line naming the flag, exit 1", async (t) => {
  for (const value of ["abc", "-1", "0", "1e999"]) {
    const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), `--max-budget-usd=${value}`, "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }).result;
    assert.equal(code, 1, `${value}: ${stderr}`);
    assert.equal(stdout, "");
    assert.match(stderr, /^harness: --max-budget-usd must be a positive amount in US dollars/);
    assert.equal(stderr.trimEnd().split("\n").length, 1);
  }
});

test("--fallback-model: an overloaded model gives way to the fallback, said on stderr, and the run goes on with it", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ kind: "http-error", status: 529 }, { toolUses: [{ name: "Bash", input: { command: "echo hi" } }] }, { text: "From the fallback." }] }),
  );
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--fallback-model", "claude-haiku-4-5", "--permission-mode", "bypassPermissions", "--output-format", "json", "hi"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.result, "From the fallback.");
  assert.equal(result.model, "claude-haiku-4-5");
  assert.deepEqual(
    fake.requests.map((request) => request.body.model),
    ["claude-sonnet-4-6", "claude-haiku-4-5", "claude-haiku-4-5"],
  );
  assert.match(stderr, /claude-sonnet-4-6 is overloaded.*claude-haiku-4-5/);
});

test("--fallback-model: other failures (a rate limit) are not overloads and fail as before; the fallback may not be the model itself", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 429 }] }));
  const dir = tempDir(t);
  const limited = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--fallback-model", "claude-haiku-4-5", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(limited.code, 1);
  assert.equal(fake.requests.length, 1);
  const same = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--fallback-model", "claude-sonnet-4-6", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(same.code, 1);
  assert.match(same.stderr, /^harness: --fallback-model must differ from the main model \(claude-sonnet-4-6\)/);
});

test("--fallback-model: a fallback named with its routing prefix that is overloaded too fails the run, once", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 529 }] }));
  const openai = await startFakeOpenAI({ replies: Array.from({ length: 4 }, () => ({ kind: "http-error" as const, status: 529 })) });
  t.after(() => openai.close());
  const { code, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--fallback-model", "openai/gpt-4o", "hi"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, OPENAI_API_KEY: "k", OPENAI_BASE_URL: openai.url },
  ).result;
  assert.equal(code, 1, stderr);
  assert.equal(fake.requests.length, 1);
  assert.equal(openai.requests.length, 1, "the fallback is not fallen back on again");
  assert.equal(stderr.match(/is overloaded; the run goes on with the fallback model/g)?.length, 1, stderr);
  assert.match(stderr, /harness: .*529/);
});

test("--max-budget-usd with a model whose price is not known: the run says so on stderr, once, and goes on", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [...BASH_THEN_TEXT(), { text: "unused" }] }));
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", "claude-mystery-9", "--permission-mode", "bypassPermissions", "--max-budget-usd", "0.000001", "say hi"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "It printed hi.\n");
  assert.equal(stderr.match(/The price of claude-mystery-9 is not known/g)?.length, 1, stderr);
  assert.equal(fake.requests.length, 2);
});

test("--max-budget-usd with a model Ollama runs on this machine: its calls cost $0, and the run says nothing of their price", async (t) => {
  const openai = await startFakeOpenAI({ replies: [{ text: "Hi." }] });
  t.after(() => openai.close());
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "ollama/qwen3:8b", "--max-budget-usd", "0.000001", "say hi"], { ANTHROPIC_API_KEY: "", OLLAMA_BASE_URL: openai.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Hi.\n");
  assert.doesNotMatch(stderr, /not known/);
});

test("--max-budget-usd: sub-agents running in parallel stop before their next model call once the run's cost reaches the budget", async (t) => {
  // Each call costs $0.0045 on claude-sonnet-4-6 ($3 and $15 a million): the main agent's first call
  // is within the budget of $0.008, and any call after it passes it.
  const usage = { input_tokens: 1000, output_tokens: 100 };
  const isSubagent = (body: Record<string, unknown>) => JSON.stringify(body.system).includes("You keep working.");
  const fake = await withFake(
    t,
    startFakeAnthropic({
      respond: (request) => (isSubagent(request.body) ? { toolUses: [{ name: "Bash", input: { command: "true" } }], usage } : undefined),
      replies: [
        {
          toolUses: [
            { name: "Task", input: { description: "One", prompt: "Work on one.", subagent_type: "worker" } },
            { name: "Task", input: { description: "Two", prompt: "Work on two.", subagent_type: "worker" } },
          ],
          usage,
        },
        { text: "unused", usage },
      ],
    }),
  );
  const agents = JSON.stringify({ worker: { description: "Works", prompt: "You keep working.", tools: ["Bash"], maxTurns: 8 } });
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--agents", agents, "--permission-mode", "bypassPermissions", "--max-budget-usd", "0.008", "--output-format", "stream-json", "--verbose", "go"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 1, stderr);
  const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const result = lines.at(-1)!;
  assert.equal(result.subtype, "error_max_budget_usd");
  const subagentCalls = fake.requests.filter((request) => isSubagent(request.body)).length;
  assert.ok(subagentCalls <= 2, `the sub-agents made ${subagentCalls} model calls (up to 16 before they checked the budget)`);
  assert.equal(fake.requests.length - subagentCalls, 1, "the main agent makes no call after the sub-agents return");
  const taskResults = JSON.stringify(lines.filter((line) => line.type === "user"));
  assert.equal(taskResults.match(/reached its budget of \$0\.008/g)?.length, 2, taskResults);
});
