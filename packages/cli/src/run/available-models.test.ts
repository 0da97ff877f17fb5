// The settings' availableModels through `harness run`: a model chosen that the list leaves out is
// refused before any request; the default gives way to the first model allowed; sub-agents, HARNESS_MODEL,
// the settings' model and set_model are held to it too. Checked on what the fake model server received.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { controlLine, harness, STREAM_JSON, streamLinesOf, tempDir, userLine, withFake } from "../test-support.ts";

/** A home directory whose ~/.claude/settings.json holds `settings`. */
function homeWith(t: { after(fn: () => unknown): void }, settings: unknown): string {
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings));
  return home;
}

const POLICY = ["--managed-settings", JSON.stringify({ availableModels: ["sonnet", "claude-haiku-4-5"] })];

test("a model the managed availableModels leave out is refused, naming it and what is allowed, whoever chose it; an allowed one runs", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const allowedOnly = 'allow only "sonnet", "claude-haiku-4-5"';
  const refusals: Array<[string[], Record<string, string>, string]> = [
    [["--model", "opus"], {}, `The model "opus" (claude-opus-4-6), the run's model, is not available: the settings' availableModels ${allowedOnly}.`],
    [[], { HARNESS_MODEL: "claude-opus-4-6" }, "HARNESS_MODEL"],
    [[], { ANTHROPIC_MODEL: "opus" }, "ANTHROPIC_MODEL"],
    [[], { HOME: homeWith(t, { model: "claude-opus-4-1", availableModels: ["opus"] }) }, "the settings' model"],
  ];
  for (const [args, extra, said] of refusals) {
    const run = await harness(["run", "--cwd", dir, ...POLICY, ...args, "hi"], { ...env, ...extra }).result;
    assert.equal(run.code, 1, `${JSON.stringify(extra)} ${run.stdout}`);
    assert.ok(`${run.stdout}${run.stderr}`.includes(said), `${run.stdout}${run.stderr}`);
  }
  assert.equal(fake.requests.length, 0, "nothing reached the model");
  for (const args of [["--model", "claude-haiku-4-5-20251001"], ["--model", "sonnet"], []]) {
    const run = await harness(["run", "--cwd", dir, ...POLICY, ...args, "hi"], env).result;
    assert.equal(run.code, 0, run.stderr);
  }
  assert.deepEqual(fake.requests.map((r) => r.body.model), ["claude-haiku-4-5-20251001", "claude-sonnet-4-6", "claude-sonnet-4-6"]);
});

test("the default model, when availableModels leave it out, gives way to the first model of the list", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }] }));
  const run = await harness(["run", "--cwd", tempDir(t), "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: homeWith(t, { availableModels: ["haiku", "opus"] }) }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(fake.requests[0]!.body.model, "claude-haiku-4-5");
});

test("an availableModels that is not a list of model names is said, naming the file", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }] }));
  const home = homeWith(t, { availableModels: "sonnet" });
  const run = await harness(["run", "--cwd", tempDir(t), "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;
  assert.ok(run.stderr.includes(`${join(home, ".claude", "settings.json")} (availableModels): expected array, got the string "sonnet"`), run.stderr);
  const before = fake.requests.length;
  const managed = await harness(["run", "--cwd", tempDir(t), "--managed-settings", JSON.stringify({ availableModels: "sonnet" }), "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(managed.code, 2);
  assert.match(managed.stderr, /^harness: --managed-settings: availableModels: expected array, got the string "sonnet"/);
  assert.equal(fake.requests.length, before, "the run under a broken policy never reached the model");
});

test("a sub-agent's model, from its definition or CLAUDE_CODE_SUBAGENT_MODEL, is held to availableModels", async (t) => {
  const task = { toolUses: [{ name: "Task", input: { description: "Review", prompt: "Review it.", subagent_type: "reviewer" } }] };
  const fake = await withFake(t, startFakeAnthropic({ replies: [task, { text: "Could not." }, task, { text: "Could not either." }] }));
  const agents = JSON.stringify({ reviewer: { description: "Reviews", prompt: "You review.", model: "opus" } });
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const fromDefinition = await harness(["run", "--cwd", tempDir(t), ...POLICY, "--agents", agents, "go"], env).result;
  assert.equal(fromDefinition.code, 0, fromDefinition.stderr);
  const inherit = JSON.stringify({ reviewer: { description: "Reviews", prompt: "You review." } });
  const fromEnv = await harness(["run", "--cwd", tempDir(t), ...POLICY, "--agents", inherit, "go"], { ...env, CLAUDE_CODE_SUBAGENT_MODEL: "claude-opus-4-6" }).result;
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.deepEqual(fake.requests.map((r) => r.body.model), Array(4).fill("claude-sonnet-4-6"), "no request on opus");
  const results = [fake.requests[1]!, fake.requests[3]!].map((r) => JSON.stringify(r.body.messages.at(-1)));
  assert.match(results[0]!, /Cannot start the reviewer agent: The model \\"opus\\" \(claude-opus-4-6\), its definition's model, is not available/);
  assert.match(results[1]!, /The model \\"claude-opus-4-6\\", CLAUDE_CODE_SUBAGENT_MODEL, is not available/);
});

test("set_model in a stream-json session: a model the list leaves out is answered with an error naming it and what is allowed, and the turns keep the model they had", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "One." }, { text: "Two." }] }));
  const args = ["run", "--cwd", tempDir(t), ...POLICY, "--model", "claude-haiku-4-5", ...STREAM_JSON];
  // The second set_model once the first turn is over: one the list allows takes from the next turn on.
  const run = harness(args, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
    stdin: { open: true },
    onStdout: (text) => {
      if (sent || !text.includes('"type":"result"')) return;
      sent = true;
      run.child.stdin!.end(controlLine("s-2", { subtype: "set_model", model: "sonnet" }) + userLine("again"));
    },
  });
  let sent = false;
  run.child.stdin!.write(controlLine("s-1", { subtype: "set_model", model: "opus" }) + userLine("hi"));
  const { code, stdout, stderr } = await run.result;
  assert.equal(code, 0, stderr);
  const responses = new Map(streamLinesOf(stdout).filter((l) => l.type === "control_response").map((l) => [l.response.request_id, l.response]));
  assert.equal(responses.get("s-1")?.subtype, "error", JSON.stringify([...responses.values()]));
  assert.equal(responses.get("s-1")?.error, 'set_model: The model "opus" (claude-opus-4-6) is not available: the settings\' availableModels allow only "sonnet", "claude-haiku-4-5".');
  assert.equal(responses.get("s-2")?.subtype, "success");
  assert.deepEqual(streamLinesOf(stdout).filter((l) => l.type === "result").map((l) => l.is_error), [false, false]);
  assert.deepEqual(fake.requests.map((r) => r.body.model), ["claude-haiku-4-5", "claude-sonnet-4-6"]);
});
