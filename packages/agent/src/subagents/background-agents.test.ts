import assert from "node:assert/strict";
import { test } from "node:test";
import { createBackgroundAgents } from "./background-agents.ts";
import type { SubagentOutput } from "./types.ts";

const forever = (_id: string, signal: AbortSignal) =>
  new Promise<SubagentOutput>((resolve) => signal.addEventListener("abort", () => resolve({ content: "Interrupted", isError: true }), { once: true }));

test("at most `limit` background agents run at once: one more is refused in words until one ends", async () => {
  const run = new AbortController();
  const agents = createBackgroundAgents(run.signal, { limit: 2 });
  const first = agents.start({ id: "agent_1", description: "one", agentType: "Explore" }, forever);
  assert.ok(!("error" in first));
  assert.ok(!("error" in agents.start({ id: "agent_2", description: "two", agentType: "Explore" }, forever)));
  const refused = agents.start({ id: "agent_3", description: "three", agentType: "Explore" }, forever);
  assert.ok("error" in refused);
  assert.equal(refused.error, "2 background agents are already running, the most there may be at once. Wait for one to finish (TaskOutput), stop one (TaskStop), or run this task without run_in_background.");
  assert.equal(first.stop(), true);
  await first.done;
  assert.ok(!("error" in agents.start({ id: "agent_3", description: "three", agentType: "Explore" }, forever)));
  run.abort();
  await agents.settled();
  assert.deepEqual(agents.list().map((agent) => agent.status), ["killed", "killed", "killed"]);
});

test("a finished agent is taken for notification once; its result, status and usage are kept", async () => {
  const agents = createBackgroundAgents(new AbortController().signal);
  const agent = agents.start({ id: "agent_1", description: "one", agentType: "Explore" }, async () => ({ content: "found it", usage: { inputTokens: 3, outputTokens: 2 }, toolUses: 4 }));
  assert.ok(!("error" in agent));
  assert.equal(agents.pending(), true);
  await agent.done;
  assert.equal(agent.status, "completed");
  assert.deepEqual(agents.takeFinished().map((a) => a.id), ["agent_1"]);
  assert.deepEqual(agents.takeFinished(), []);
  assert.equal(agents.pending(), false);
  assert.equal(agent.output?.content, "found it");
});
