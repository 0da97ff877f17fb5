// Sub-agents over the Open Harness API through a real server and its real runner, the model faked at
// the wire: those an execution's run started with the Task tool (listed, read, followed while they
// run, their results), and those spawned over the API and given tasks (delegated, streamed, stopped).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, readSse, takeSse, V1, type Api, type Sse } from "./open-harness-support.ts";

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
  assert.equal((await api(`${V1}/files/notes.md${q}`, { method: "PUT", body: "hello" })).status, 201);
});

after(() => h.close());

const task = (id: string, prompt: string) => ({ toolUses: [{ id, name: "Task", input: { description: "Find notes", prompt, subagent_type: "general-purpose" } }] });
/** The sub-agent `id` once `ready` holds for it (asked every 100 ms, for up to 10 s). */
async function subagentWhen(id: string, ready: (subagent: { status: string; tool_calls: unknown[] }) => boolean, what: string) {
  for (let i = 0; i < 100; i++) {
    const got = await api(`${SUBS}/${id}${q}`);
    if (got.status === 200) {
      const { subagent } = await got.json();
      if (ready(subagent)) return subagent;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the sub-agent never ${what}`);
}

/** The SSE events of `response` to its end (`events`), and `seen`, settled once one of `type` has
 * come (rejected if the stream ends before). */
function follow(response: Promise<Response>, type: string): { seen: Promise<void>; events: Promise<Sse[]> } {
  let came!: () => void;
  const seen = new Promise<void>((resolve) => (came = resolve));
  const events = response.then((r) => readSse(r, (event) => event.data.type === type && came()));
  return { seen: Promise.race([seen, events.then((all) => Promise.reject(new Error(`the stream ended without a ${type} event: ${JSON.stringify(all)}`)))]), events };
}

const types = (events: { data: Record<string, unknown> }[]) => events.map((e) => e.data.type);

test("a run's Task call is a sub-agent: listed, read with the calls it made, its result and its events", async () => {
  h.fake.push(task("toolu_sub1", "Which notes are there?"), { toolUses: [{ id: "toolu_glob", name: "Glob", input: { pattern: "*.md" } }] }, { text: "SUB-RESULT: notes.md" }, { text: "Done." });
  const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "find the notes", session_id: sessionId }) });
  const executionId = stream.headers.get("x-execution-id")!;
  await readSse(stream);

  const { subagents } = await (await api(`${SUBS}${q}`)).json();
  assert.equal(subagents.length, 1);
  const [sub] = subagents;
  assert.equal(sub.id, "toolu_sub1");
  assert.equal(sub.name, "general-purpose");
  assert.equal(sub.description, "Find notes");
  assert.equal(sub.prompt, "Which notes are there?");
  assert.equal(sub.status, "completed");
  assert.equal(sub.parent_agent_id, "main");
  assert.equal(sub.execution_id, executionId);
  assert.equal(sub.session_id, sessionId);
  assert.ok(Date.parse(sub.created_at) <= Date.parse(sub.completed_at));

  const { subagent } = await (await api(`${SUBS}/toolu_sub1${q}`)).json();
  assert.deepEqual(subagent.tool_calls.map((c: { id: string; name: string; status: string; parent_tool_call_id: string }) => [c.id, c.name, c.status, c.parent_tool_call_id]), [["toolu_glob", "Glob", "completed", "toolu_sub1"]]);

  const { result } = await (await api(`${SUBS}/toolu_sub1/result${q}`)).json();
  assert.equal(result.execution_id, executionId);
  assert.equal(result.status, "completed");
  assert.equal(result.output, "SUB-RESULT: notes.md");
  assert.deepEqual(result.tool_calls.map((c: { name: string; success: boolean }) => [c.name, c.success]), [["Glob", true]]);

  const events = await readSse(await api(`${SUBS}/toolu_sub1/stream${q}`));
  assert.deepEqual(types(events), ["tool_call_start", "tool_call_end", "tool_result", "text", "done"]);
  assert.equal(events[3].data.content, "SUB-RESULT: notes.md");
  assert.deepEqual(events.map((e) => e.id), ["1", "2", "3", "4", "5"]);
  const rest = await readSse(await api(`${SUBS}/toolu_sub1/stream${q}`, { headers: { "last-event-id": "3" } }));
  assert.deepEqual(types(rest), ["text", "done"]);

  // The execution's own tool calls name the Task call its sub-agent's call belongs to.
  const { tool_calls } = await (await api(`${V1}/executions/${executionId}/tool-calls`)).json();
  assert.equal(tool_calls.find((c: { id: string }) => c.id === "toolu_glob").parent_tool_call_id, "toolu_sub1");
});

test("a running sub-agent is followed live, its result is 409 until it ends", async () => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  h.fake.push(task("toolu_sub2", "Look slowly."), { toolUses: [{ id: "toolu_glob2", name: "Glob", input: { pattern: "*" } }] }, { text: "SLOW-RESULT", hold }, { text: "Finished." });
  const { execution_id: executionId } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "look slowly", session_id: sessionId }) })).json();
  await subagentWhen("toolu_sub2", (s) => s.tool_calls.length === 1, "made its call");
  const { subagent } = await (await api(`${SUBS}/toolu_sub2${q}`)).json();
  assert.equal(subagent.status, "running");
  assert.equal(subagent.completed_at, undefined);
  const running = await api(`${SUBS}/toolu_sub2/result${q}`);
  assert.equal(running.status, 409);
  assert.equal((await running.json()).error.code, "subagent_running");

  // Released once the stream has sent what came before: the rest comes live.
  const live = follow(api(`${SUBS}/toolu_sub2/stream${q}`), "tool_result");
  await live.seen;
  release();
  const events = await live.events;
  assert.deepEqual(types(events), ["tool_call_start", "tool_call_end", "tool_result", "text", "done"]);
  assert.equal(events[3].data.content, "SLOW-RESULT");
  await executionWhen(api, executionId, (e) => e.status === "completed", "completed");
  const ended = await api(`${SUBS}/toolu_sub2${q}`, { method: "DELETE" });
  assert.equal(ended.status, 409);
  assert.equal((await ended.json()).error.code, "subagent_finished");
});

test("terminate stops a run's sub-agent alone: its Task call answers that it was interrupted, and the run goes on", async () => {
  h.fake.push(task("toolu_sub3", "Look forever."), { text: "still looking", hold: new Promise(() => {}) }, { text: "The sub-agent was stopped; done." });
  const before = h.fake.requests.length;
  const { execution_id: executionId } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "look forever", session_id: sessionId }) })).json();
  // The sub-agent's own request opens with its task as the user's message.
  await subagentWhen("toolu_sub3", () => h.fake.requests.slice(before).some((request) => JSON.stringify(request.body.messages[0]).includes("Look forever.")), "asked the model");
  const live = api(`${SUBS}/toolu_sub3/stream${q}`).then(readSse);
  const stopped = await api(`${SUBS}/toolu_sub3${q}`, { method: "DELETE" });
  assert.equal(stopped.status, 204);
  const { result } = await (await api(`${SUBS}/toolu_sub3/result${q}`)).json();
  assert.equal(result.status, "cancelled");
  assert.match(result.output, /Interrupted by user/);
  const events = await live;
  assert.deepEqual(types(events), ["text", "error", "done"]);
  assert.equal(events[1].data.code, "cancelled");
  const execution = await executionWhen(api, executionId, (e) => e.status !== "running", "ended");
  assert.equal(execution.status, "completed");
  const final = await (await api(`${V1}/executions/${executionId}/result`)).json();
  assert.match(final.result.output, /The sub-agent was stopped; done\./);
  assert.match(JSON.stringify(h.fake.requests.at(-1)!.body.messages.at(-1)), /Interrupted by user/);
});

test("bad input is 400 naming the field; unknown sessions, parents and sub-agents are 404", async () => {
  const missing = await api(SUBS);
  assert.equal(missing.status, 400);
  assert.match((await missing.json()).error.message, /session_id/);
  const otherParent = await api(`${V1}/agents/Explore/subagents${q}`);
  assert.equal(otherParent.status, 404);
  assert.equal((await otherParent.json()).error.code, "agent_not_found");
  const noSession = await api(`${SUBS}?session_id=nobody`);
  assert.equal(noSession.status, 404);
  assert.equal((await noSession.json()).error.code, "session_not_found");
  const unknown = await api(`${SUBS}/toolu_nope${q}`);
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).error.code, "subagent_not_found");
  assert.equal((await api(`${SUBS}/toolu_sub1${q}`, { headers: { "x-harness-user": "bob" } })).status, 404);

  const spawn = (body: unknown) => api(`${SUBS}${q}`, { method: "POST", body: JSON.stringify(body) });
  const noName = await spawn({ description: "x" });
  assert.equal(noName.status, 400);
  assert.match((await noName.json()).error.message, /name/);
  const badType = await spawn({ name: "no-such-agent", description: "x" });
  assert.equal(badType.status, 400);
  assert.match((await badType.json()).error.message, /name: no agent type "no-such-agent".*general-purpose/);
  const extra = await spawn({ name: "general-purpose", description: "x", colour: "red" });
  assert.equal(extra.status, 400);
  const prompt = await spawn({ name: "general-purpose", description: "x", system_prompt: "Be brief." });
  assert.equal(prompt.status, 501);
  assert.equal((await prompt.json()).error.operation, "subagents.spawn");
  const run = await api(`${SUBS}/toolu_sub1/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "again" }) });
  assert.equal(run.status, 409);
  assert.equal((await run.json()).error.code, "subagent_of_run");
});

test("a spawned sub-agent is idle until a task is delegated; delegate answers its result, delegateStream streams it", async () => {
  const spawned = await api(`${SUBS}${q}`, { method: "POST", body: JSON.stringify({ name: "general-purpose", description: "Count notes" }) });
  assert.equal(spawned.status, 201);
  const { subagent } = await spawned.json();
  assert.equal(subagent.status, "idle");
  assert.equal(subagent.name, "general-purpose");
  const idle = await api(`${SUBS}/${subagent.id}/result${q}`);
  assert.equal(idle.status, 409);
  assert.equal((await idle.json()).error.code, "subagent_idle");
  assert.ok((await (await api(`${SUBS}${q}`)).json()).subagents.some((s: { id: string }) => s.id === subagent.id));

  const badTask = await api(`${SUBS}/${subagent.id}/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "" }) });
  assert.equal(badTask.status, 400);
  assert.match((await badTask.json()).error.message, /task/);

  h.fake.push({ toolUses: [{ id: "toolu_glob3", name: "Glob", input: { pattern: "*.md" } }] }, { text: "One note." });
  const before = h.fake.requests.length;
  const delegated = await api(`${SUBS}/${subagent.id}/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "How many notes?" }) });
  assert.equal(delegated.status, 200);
  const answer = await delegated.json();
  assert.equal(answer.execution_id, subagent.id);
  assert.equal(answer.status, "completed");
  assert.equal(answer.output, "One note.");
  assert.equal(answer.subagent.status, "completed");
  assert.equal(answer.subagent.prompt, "How many notes?");
  assert.match(JSON.stringify(h.fake.requests[before].body.messages), /How many notes\?/);
  const { result } = await (await api(`${SUBS}/${subagent.id}/result${q}`)).json();
  assert.equal(result.output, "One note.");
  assert.deepEqual(result.tool_calls.map((c: { name: string; success: boolean }) => [c.name, c.success]), [["Glob", true]]);
  assert.ok(result.usage.total_tokens > 0);

  h.fake.push({ text: ["Streamed ", "answer."] });
  const stream = await api(`${SUBS}/${subagent.id}/delegate/stream${q}`, { method: "POST", body: JSON.stringify({ task: "Say it." }) });
  assert.equal(stream.status, 200);
  const events = await readSse(stream);
  assert.deepEqual(types(events), ["text", "text", "done"]);
  assert.equal(events.map((e) => e.data.content).join(""), "Streamed answer.");
  const attached = await readSse(await api(`${SUBS}/${subagent.id}/stream${q}`));
  assert.deepEqual(attached, events);
});

test("terminate stops a spawned sub-agent's running task (its result cancelled), then removes it", async () => {
  const { subagent } = await (await api(`${SUBS}${q}`, { method: "POST", body: JSON.stringify({ name: "general-purpose", description: "Wait" }) })).json();
  h.fake.push({ text: "never finished", hold: new Promise(() => {}) });
  const stream = await api(`${SUBS}/${subagent.id}/delegate/stream${q}`, { method: "POST", body: JSON.stringify({ task: "Wait forever." }) });
  assert.equal(stream.status, 200);
  const busy = await api(`${SUBS}/${subagent.id}/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "again" }) });
  assert.equal(busy.status, 409);
  const execute = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "meanwhile", session_id: sessionId }) })).json();
  await executionWhen(api, execute.execution_id, (e) => e.status === "failed", "failed as the runner is busy");

  const stopped = await api(`${SUBS}/${subagent.id}${q}`, { method: "DELETE" });
  assert.equal(stopped.status, 204);
  const events = await readSse(stream);
  assert.deepEqual(types(events).slice(-2), ["error", "done"]);
  assert.equal(events.at(-2)!.data.code, "cancelled");
  const { result } = await (await api(`${SUBS}/${subagent.id}/result${q}`)).json();
  assert.equal(result.status, "cancelled");
  assert.equal((await (await api(`${SUBS}/${subagent.id}${q}`)).json()).subagent.status, "failed");

  assert.equal((await api(`${SUBS}/${subagent.id}${q}`, { method: "DELETE" })).status, 204);
  assert.equal((await api(`${SUBS}/${subagent.id}${q}`)).status, 404);
  const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
  assert.equal(caps.subagents.supported, true);
  assert.ok(caps.subagents.operations.includes("subagents.delegateStream"));
});
