// Stopping sub-agents over the Open Harness API at awkward moments, through a real server and its
// real runner, the model faked at the wire: a spawned one terminated while its task is still
// starting, and a run's one terminated twice at once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, V1, type Api } from "./open-harness-support.ts";

let h: Harness;
let api: Api;
let sessionId: string;
let q: string;
const SUBS = `${V1}/agents/main/subagents`;

before(async () => {
  h = await startHarness();
  api = apiAs(h.server.url);
  sessionId = (await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json()).session.id;
  q = `?session_id=${sessionId}`;
  // A Task call starts only once this hook has said so and slept: the window in which a delegated
  // task is starting.
  const settings = { hooks: { PreToolUse: [{ matcher: "Task", hooks: [{ type: "command", command: "touch task-starting; sleep 1" }] }] } };
  assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(settings) })).status, 201);
});

after(() => h.close());

async function until(ready: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never ${what}`);
}

test("a spawned sub-agent terminated while its task starts never runs it: the delegate is answered 409, and the session is free", async () => {
  const { subagent } = await (await api(`${SUBS}${q}`, { method: "POST", body: JSON.stringify({ name: "general-purpose", description: "Wait" }) })).json();
  const asked = h.fake.requests.length;
  const delegated = api(`${SUBS}/${subagent.id}/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "Wait forever." }) });
  await until(async () => (await api(`${V1}/files/task-starting${q}`)).status === 200, "started the Task call's hook");
  const again = await api(`${SUBS}/${subagent.id}/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "Another." }) });
  assert.equal(again.status, 409);
  assert.equal((await again.json()).error.code, "subagent_running");

  const stopped = await api(`${SUBS}/${subagent.id}${q}`, { method: "DELETE" });
  assert.equal(stopped.status, 204);
  const answer = await delegated;
  assert.equal(answer.status, 409);
  assert.equal((await answer.json()).error.code, "subagent_terminated");
  assert.equal((await api(`${SUBS}/${subagent.id}${q}`)).status, 404);

  // Nothing of the task ran, and the session takes a prompt.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(h.fake.requests.length, asked);
  h.fake.push({ text: "Free again." });
  const { execution_id } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "are you free?", session_id: sessionId }) })).json();
  const execution = await executionWhen(api, execution_id, (e) => e.status !== "running" && e.status !== "pending", "ended");
  assert.equal(execution.status, "completed");
});

test("terminating a run's sub-agent twice at once stops it once: both are answered 204, and the run goes on", async () => {
  h.fake.push(
    { toolUses: [{ id: "toolu_twice", name: "Task", input: { description: "Look", prompt: "Look forever.", subagent_type: "general-purpose" } }] },
    { text: "still looking", hold: new Promise(() => {}) },
    { text: "Stopped; done." },
  );
  const before = h.fake.requests.length;
  const { execution_id: executionId } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "look forever", session_id: sessionId }) })).json();
  // The sub-agent's own request opens with its task as the user's message.
  const subagentAsked = () => h.fake.requests.slice(before).some((request) => JSON.stringify(request.body.messages[0]).includes("Look forever."));
  await until(async () => subagentAsked(), "the sub-agent asked the model");
  const [first, second] = await Promise.all([api(`${SUBS}/toolu_twice${q}`, { method: "DELETE" }), api(`${SUBS}/toolu_twice${q}`, { method: "DELETE" })]);
  assert.deepEqual([first.status, second.status], [204, 204], JSON.stringify([await first.text(), await second.text()]));
  const execution = await executionWhen(api, executionId, (e) => e.status !== "running", "ended");
  assert.equal(execution.status, "completed");
});

test("a run's sub-agent terminated while its Task call's hook still runs never starts: 204, the call answers interrupted, and the run goes on", async () => {
  await api(`${V1}/files/task-starting${q}`, { method: "DELETE" });
  h.fake.push({ toolUses: [{ id: "toolu_early", name: "Task", input: { description: "Look", prompt: "Look early.", subagent_type: "general-purpose" } }] }, { text: "Stopped early; done." });
  const before = h.fake.requests.length;
  const { execution_id: executionId } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "look early", session_id: sessionId }) })).json();
  await until(async () => (await api(`${V1}/files/task-starting${q}`)).status === 200, "started the Task call's hook");
  const stopped = await api(`${SUBS}/toolu_early${q}`, { method: "DELETE" });
  assert.equal(stopped.status, 204, await stopped.clone().text());
  const execution = await executionWhen(api, executionId, (e) => e.status !== "running", "ended");
  assert.equal(execution.status, "completed");
  const asked = h.fake.requests.slice(before);
  assert.equal(asked.length, 2, "the main agent twice, the sub-agent never");
  assert.match(JSON.stringify(asked[1].body.messages.at(-1)), /"tool_use_id":"toolu_early".*Interrupted by user/);
});

test("a deleted session's spawned sub-agents go with it: a new session of the same id has none", async () => {
  const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  const own = `?session_id=${session.id}`;
  const spawned = await api(`${SUBS}${own}`, { method: "POST", body: JSON.stringify({ name: "general-purpose", description: "Left behind" }) });
  assert.equal(spawned.status, 201);
  assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);
  const client = await h.connect(session.id);
  try {
    const { subagents } = await (await api(`${SUBS}${own}`)).json();
    assert.deepEqual(subagents, []);
  } finally {
    await client.close();
  }
});

test("a Task call waiting for approval has no sub-agent running yet: terminate is 409 saying so, and stops nothing", async () => {
  const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  const own = `?session_id=${session.id}`;
  const settings = { permissions: { ask: ["Task"] } };
  assert.equal((await api(`${V1}/files/.claude/settings.json${own}`, { method: "PUT", body: JSON.stringify(settings) })).status, 201);
  h.fake.push({ toolUses: [{ id: "toolu_asks", name: "Task", input: { description: "Look", prompt: "Look.", subagent_type: "general-purpose" } }] }, { text: "Looked." }, { text: "Done." });
  const { execution_id: executionId } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "look", session_id: session.id }) })).json();
  await until(async () => (await api(`${SUBS}/toolu_asks${own}`)).status === 200, "made the Task call");
  const waiting = await api(`${SUBS}/toolu_asks${own}`, { method: "DELETE" });
  assert.equal(waiting.status, 409);
  assert.equal((await waiting.json()).error.code, "subagent_not_started");
  const input = await api(`${V1}/executions/${executionId}/input`, { method: "POST", body: JSON.stringify({ data: "yes" }) });
  assert.equal(input.status, 200, await input.clone().text());
  const execution = await executionWhen(api, executionId, (e) => e.status !== "running", "ended");
  assert.equal(execution.status, "completed");
  const { result } = await (await api(`${SUBS}/toolu_asks/result${own}`)).json();
  assert.equal(result.output, "Looked.");
});
