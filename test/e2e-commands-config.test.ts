// configure and several clients, end to end.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { idle, startHarness, type Harness } from "./e2e-commands-support.ts";

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

test("configure model changes the model the next model call asks for", async () => {
  const client = await h.connect("model");
  h.fake.push({ text: "hi" }, { text: "hi again" });
  const before = h.fake.requests.length;
  client.send({ type: "submit", prompt: "first" });
  await client.waitForState(idle, 30_000);
  client.send({ type: "configure", config: { model: "claude-e2e-special" } }, { type: "submit", prompt: "second" });
  await client.waitForState((s) => idle(s) && s.messages.length === 4, 30_000);
  assert.equal((client.state!.config as { model?: string }).model, "claude-e2e-special");
  const [first, second] = h.fake.requests.slice(before);
  assert.notEqual(first.body.model, "claude-e2e-special");
  assert.equal(second.body.model, "claude-e2e-special");
  assert.deepEqual(client.errors, []);
  await client.close();
});

test("configure refuses a model the server's runs cannot use, saying why, and keeps the one set", async () => {
  const client = await h.connect("bad-model");
  client.send({ type: "configure", config: { model: "claude-kept" } });
  await client.waitForState((s) => (s.config as { model?: string } | undefined)?.model === "claude-kept", 30_000);
  client.send({ type: "configure", config: { model: "gemini/pro-2", maxTurns: 3 } }, { type: "configure", config: { model: "anthropic/" } });
  await client.waitForErrors(2, 30_000);
  assert.match(client.errors[0].message, /^configure: model "gemini\/pro-2" cannot be used here: unknown model provider "gemini" in "gemini\/pro-2": use anthropic\/<model>, openai\/<model>, ollama\/<model>, or a bare Claude model id$/);
  assert.match(client.errors[1].message, /no model id in "anthropic\/"/);
  assert.deepEqual(client.state!.config, { model: "claude-kept" }, "nothing of the refused configure was applied");
  await client.close();
});

test("two clients of one session follow a scripted run and end with identical state", async () => {
  const a = await h.connect("shared");
  const b = await h.connect("shared");
  h.fake.push({ text: "Checking.", toolUses: [{ name: "Bash", input: { command: "echo shared-output" } }] }, { text: ["All ", "good."] });
  a.send({ type: "submit", prompt: "check it" });
  await b.waitForState((s) => s.status === "running", 30_000);
  b.send({ type: "configure", config: { effort: "high" } });
  await Promise.all([a.waitForState(idle, 30_000), b.waitForState(idle, 30_000)]);
  assert.deepEqual(a.state, b.state);
  assert.equal(a.seq, b.seq);
  assert.match(a.state!.messages[1].toolCalls![0].output ?? "", /shared-output/);
  assert.deepEqual((a.state!.config as { effort?: string }).effort, "high");
  const fresh = await h.connect("shared");
  assert.deepEqual(fresh.state, a.state);
  await Promise.all([a.close(), b.close(), fresh.close()]);
});
