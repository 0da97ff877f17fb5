// The Open Harness API (REST + SSE under /v1) drives the same sessions a WebSocket client sees: a
// real `harness serve`, its runner, the fake model, and a minimal WebSocket client beside it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { idle, startHarness } from "./e2e-commands-support.ts";
import { ANN_TOKEN, apiAs, executionWhen, readSse, V1, withAnnsToken } from "./open-harness-support.ts";

test("a session made over REST runs a prompt whose reply calls a tool, streamed as Open Harness events, and a WebSocket client sees the same conversation", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const harnesses = await (await api("/v1/harnesses")).json();
    assert.equal(harnesses.total, 1);
    assert.equal(harnesses.data[0].id, "harness");
    assert.equal(harnesses.data[0].capabilities.sessions.supported, true);
    assert.equal(harnesses.data[0].capabilities.models.supported, false);
    const caps = await (await api(`${V1}/capabilities`)).json();
    assert.ok(caps.capabilities.execution.operations.includes("execution.stream"));
    assert.ok(caps.capabilities.execution.limitations.some((l: string) => /approval/.test(l)));
    assert.equal((await (await api(`${V1}/health`)).json()).status, "healthy");

    const created = await api(`${V1}/sessions`, { method: "POST", body: JSON.stringify({ name: "Globbing" }) });
    assert.equal(created.status, 201);
    const { session, connect_url } = await created.json();
    assert.equal(session.name, "Globbing");
    assert.equal(session.message_count, 0);
    assert.match(connect_url, new RegExp(`/ws\\?userId=alice&sessionId=${session.id}`));

    const ws = await h.connect(session.id);
    h.fake.push({ text: ["Let me ", "look."], toolUses: [{ name: "Glob", input: { pattern: "*.md" } }] }, { text: "No markdown here." });
    const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "find markdown", session_id: session.id }) });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get("content-type") ?? "", /text\/event-stream/);
    const executionId = stream.headers.get("x-execution-id");
    assert.ok(executionId);
    const events = (await readSse(stream)).map((e) => e.data);
    const types = events.map((e) => e.type);
    assert.equal(events.filter((e) => e.type === "text").map((e) => e.content).join(""), "Let me look.\n\nNo markdown here.");
    const start = events.find((e) => e.type === "tool_call_start")!;
    assert.equal(start.name, "Glob");
    assert.deepEqual(start.input, { pattern: "*.md" });
    const result = events.find((e) => e.type === "tool_result")!;
    assert.equal(result.id, start.id);
    assert.equal(result.success, true);
    assert.ok(types.indexOf("tool_call_start") < types.indexOf("tool_call_end"));
    assert.ok(types.indexOf("tool_call_end") <= types.indexOf("tool_result"));
    assert.equal(types.at(-1), "done");
    const usage = events.at(-1)!.usage as { input_tokens: number; output_tokens: number; total_tokens: number };
    assert.ok(usage.output_tokens > 0);
    assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);

    // Attached again after it ended: the events after Last-Event-ID, numbered as before.
    const all = await readSse(await api(`${V1}/executions/${executionId}/stream`));
    assert.deepEqual(all.map((e) => e.data), events);
    const rest = await readSse(await api(`${V1}/executions/${executionId}/stream`, { headers: { "last-event-id": all.at(-2)!.id! } }));
    assert.deepEqual(rest, [all.at(-1)]);
    const bobs = await api(`${V1}/executions/${executionId}`, { headers: { "x-harness-user": "bob" } });
    assert.equal(bobs.status, 404, "another user's execution is not found");

    const status = await (await api(`${V1}/executions/${executionId}`)).json();
    assert.equal(status.execution.status, "completed");
    const final = await (await api(`${V1}/executions/${executionId}/result`)).json();
    assert.equal(final.result.output, "Let me look.\n\nNo markdown here.");
    assert.deepEqual(final.result.tool_calls.map((c: { name: string; success: boolean }) => [c.name, c.success]), [["Glob", true]]);
    assert.deepEqual(final.result.usage, usage);

    // The WebSocket client saw the same run.
    await ws.waitForState(idle, 30_000, "the run to end over the WebSocket");
    assert.deepEqual(ws.errors, []);
    assert.equal(ws.state!.messages[0].content, "find markdown");
    assert.equal(ws.state!.messages[1].content, "Let me look.\n\nNo markdown here.");
    assert.equal(ws.state!.messages[1].toolCalls?.[0].name, "Glob");

    const history = await (await api(`${V1}/sessions/${session.id}/history?limit=1&offset=1`)).json();
    assert.equal(history.total, 2);
    assert.equal(history.has_more, false);
    assert.equal(history.data[0].role, "assistant");
    assert.equal(history.data[0].tool_calls[0].status, "completed");
    const listed = await (await api(`${V1}/sessions`)).json();
    assert.deepEqual(listed.data.map((s: { id: string; message_count: number }) => [s.id, s.message_count]), [[session.id, 2]]);

    // A message sent over the WebSocket shows in the REST view, and one sent over REST on the socket.
    h.fake.push({ text: "Plain answer." });
    const sent = await api(`${V1}/sessions/${session.id}/message`, { method: "POST", body: JSON.stringify({ content: "and now?" }) });
    assert.equal(sent.status, 200);
    const exchange = await sent.json();
    assert.equal(exchange.message.content, "and now?");
    assert.equal(exchange.response.content, "Plain answer.");
    await ws.waitForState((s) => s.messages.length === 4 && idle(s), 30_000, "the REST message over the WebSocket");
    await ws.close();

    assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);
    const gone = await api(`${V1}/sessions/${session.id}`);
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, "session_not_found");
  } finally {
    await h.close();
  }
});

test("an execution is cancelled over REST, or ended by its session's deletion; its stream ends with done, its status says which", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    // Held after its first words: under way until it is cancelled, however slow the machine.
    h.fake.push({ text: ["slow ", "reply ", "that ", "goes ", "on"], hold: new Promise(() => {}) });
    const started = await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "take your time" }) });
    assert.equal(started.status, 202);
    const { execution_id, stream_url } = await started.json();
    const stream = await api(stream_url.replace(/^https?:\/\/[^/]+/, ""));
    const reading = readSse(stream);
    await executionWhen(api, execution_id, (e) => e.status === "running", "ran");
    const cancel = await api(`${V1}/executions/${execution_id}/cancel`, { method: "POST" });
    assert.equal(cancel.status, 200);
    assert.equal((await cancel.json()).cancelled, true);
    const events = (await reading).map((e) => e.data);
    assert.equal(events.at(-1)!.type, "done");
    assert.equal((await (await api(`${V1}/executions/${execution_id}`)).json()).execution.status, "cancelled");
    assert.equal((await (await api(`${V1}/executions/${execution_id}/result`)).json()).result.status, "cancelled");
    const again = await api(`${V1}/executions/${execution_id}/cancel`, { method: "POST" });
    assert.equal(again.status, 409);
    assert.equal((await again.json()).error.code, "execution_finished");

    // A session deleted under a run ends its execution, saying so.
    h.fake.push({ text: ["another ", "slow ", "reply ", "that ", "goes ", "on"], hold: new Promise(() => {}) });
    const doomed = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "more" }) });
    const doomedId = doomed.headers.get("x-execution-id")!;
    const doomedEvents = readSse(doomed);
    const execution = await executionWhen(api, doomedId, (e) => e.status === "running", "ran");
    assert.equal((await api(`${V1}/sessions/${execution.session_id}`, { method: "DELETE" })).status, 204);
    const ended = (await doomedEvents).map((e) => e.data);
    assert.deepEqual(ended.slice(-2).map((e) => e.type), ["error", "done"]);
    assert.match(String(ended.at(-2)!.message), /deleted/);
    assert.equal((await (await api(`${V1}/executions/${doomedId}`)).json()).execution.status, "failed");
  } finally {
    await h.close();
  }
});

test("a call that needs approval waits for a WebSocket client to approve it (another prompt meanwhile is refused busy); the REST stream then goes on to done", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const ws = await h.connect(session.id);
    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo yes > approved.txt", description: "write approved.txt" } }] }, { text: "Done." });
    const reading = api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "run it", session_id: session.id }) }).then(readSse);
    await ws.waitForState((s) => s.status === "awaiting-approval", 30_000, "the call to wait for approval");
    const history = await (await api(`${V1}/sessions/${session.id}/history`)).json();
    assert.equal(history.data[1].tool_calls[0].status, "pending");
    // Meanwhile the session is busy: another prompt is refused, saying so.
    const refused = await api(`${V1}/sessions/${session.id}/message`, { method: "POST", body: JSON.stringify({ content: "and this?" }) });
    assert.equal(refused.status, 409);
    assert.equal((await refused.json()).error.code, "busy");
    const pending = (ws.state!.pendingApprovals as { toolCallId: string }[])[0];
    ws.send({ type: "approve", toolCallId: pending.toolCallId });
    const events = (await reading).map((e) => e.data);
    const result = events.find((e) => e.type === "tool_result")!;
    assert.equal(result.success, true);
    assert.equal(await readFile(join(h.workspace("alice", session.id), "approved.txt"), "utf8"), "yes\n");
    assert.equal(events.at(-1)!.type, "done");
    await ws.close();
  } finally {
    await h.close();
  }
});

test("a call that needs approval is answered over REST: the execution shows what it waits for, and input yes or no answers it", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const waiting = async (id: string) =>
    (await executionWhen(api, id, (e) => Boolean(e.pending_input), "waited for input")).pending_input as { tool_call_id: string; tool_name: string; prompt: string };
  const input = (id: string, data: unknown) => api(`${V1}/executions/${id}/input`, { method: "POST", body: JSON.stringify({ data }) });
  try {
    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo yes > approved.txt", description: "write approved.txt" } }] }, { text: "Written." });
    const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "write it" }) })).json();
    const asked = await waiting(started.execution_id);
    assert.equal(asked.tool_name, "Bash");
    assert.match(asked.prompt, /approved\.txt/);
    const unclear = await input(started.execution_id, "maybe");
    assert.equal(unclear.status, 400);
    assert.match((await unclear.json()).error.message, /data: .*yes.*no/);
    const yes = await input(started.execution_id, "yes\n");
    assert.equal(yes.status, 200);
    assert.deepEqual(await yes.json(), { accepted: true });
    const events = (await readSse(await api(`${V1}/executions/${started.execution_id}/stream`))).map((e) => e.data);
    assert.equal(events.find((e) => e.type === "tool_result")!.success, true);
    assert.equal(await readFile(join(h.workspace("alice", started.session_id), "approved.txt"), "utf8"), "yes\n");
    const late = await input(started.execution_id, "yes");
    assert.equal(late.status, 410);
    assert.equal((await late.json()).error.code, "execution_finished");

    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo no > denied.txt", description: "write denied.txt" } }] }, { text: "Not written." });
    const second = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "write that", session_id: started.session_id }) })).json();
    await waiting(second.execution_id);
    assert.equal((await input(second.execution_id, "no")).status, 200);
    const denied = (await readSse(await api(`${V1}/executions/${second.execution_id}/stream`))).map((e) => e.data);
    assert.equal(denied.find((e) => e.type === "tool_result")!.success, false);
    await assert.rejects(readFile(join(h.workspace("alice", started.session_id), "denied.txt")));
  } finally {
    await h.close();
  }
});

test("a session is renamed over REST; the user's executions are listed, newest first, with their tool calls", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const renamed = await api(`${V1}/sessions/${session.id}`, { method: "PATCH", body: JSON.stringify({ name: "Renamed" }) });
    assert.equal(renamed.status, 200);
    assert.equal((await renamed.json()).session.name, "Renamed");
    assert.equal((await (await api(`${V1}/sessions/${session.id}`)).json()).session.name, "Renamed");
    const paused = await api(`${V1}/sessions/${session.id}`, { method: "PATCH", body: JSON.stringify({ status: "paused" }) });
    assert.equal(paused.status, 501);
    assert.match((await paused.json()).error.message, /status/);

    h.fake.push({ toolUses: [{ name: "Glob", input: { pattern: "*" } }] }, { text: "ok" });
    const first = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "one", session_id: session.id }) });
    const firstId = first.headers.get("x-execution-id");
    await readSse(first);
    h.fake.push({ text: "second" });
    const second = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "two", session_id: session.id }) });
    const secondId = second.headers.get("x-execution-id");
    await readSse(second);

    const listed = await (await api(`${V1}/executions?limit=1`)).json();
    assert.equal(listed.total, 2);
    assert.equal(listed.has_more, true);
    assert.equal(listed.data[0].id, secondId);
    assert.equal(listed.data[0].status, "completed");
    assert.equal((await (await api(`${V1}/executions?status=running`)).json()).total, 0);
    assert.equal((await (await api(`${V1}/executions`, { headers: { "x-harness-user": "bob" } })).json()).total, 0);

    const { tool_calls } = await (await api(`${V1}/executions/${firstId}/tool-calls`)).json();
    assert.equal(tool_calls.length, 1);
    assert.equal(tool_calls[0].name, "Glob");
    assert.deepEqual(tool_calls[0].input, { pattern: "*" });
    assert.equal(tool_calls[0].status, "completed");
    assert.ok(Date.parse(tool_calls[0].started_at) <= Date.parse(tool_calls[0].completed_at));
    assert.equal(typeof tool_calls[0].duration_ms, "number");
  } finally {
    await h.close();
  }
});

test("bad input, unknown ids and what is not implemented are answered in the ErrorResponse shape", async () => {
  const h = await startHarness();
  const api = (path: string, init: RequestInit = {}, user: Record<string, string> = { "x-harness-user": "alice" }) =>
    fetch(`${h.server.url}${path}`, { ...init, headers: { "content-type": "application/json", ...user, ...init.headers } });
  const error = async (response: Response) => ({ status: response.status, ...(await response.json()).error });
  try {
    let e = await error(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "" }) }));
    assert.equal(e.status, 400);
    assert.equal(e.code, "invalid_request");
    assert.match(e.message, /message/);
    e = await error(await api(`${V1}/execute`, { method: "POST", body: "{not json" }));
    assert.equal(e.status, 400);
    assert.match(e.message, /not valid JSON/);
    e = await error(await api(`${V1}/sessions`, { method: "POST", body: JSON.stringify({ name: 7 }) }));
    assert.match(e.message, /name/);
    e = await error(await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "hi", agent_id: "a" }) }));
    assert.equal(e.status, 501);
    assert.match(e.message, /agent_id/);
    e = await error(await api(`${V1}/sessions?limit=500`));
    assert.match(e.message, /limit/);
    e = await error(await api(`${V1}/sessions`, {}, {}));
    assert.equal(e.status, 400);
    assert.match(e.message, /userId/);
    e = await error(await api("/v1/harnesses/other/sessions"));
    assert.equal(e.status, 404);
    assert.equal(e.code, "harness_not_found");
    e = await error(await api(`${V1}/executions/nope`));
    assert.equal(e.code, "execution_not_found");
    e = await error(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hi", session_id: "missing" }) }));
    assert.equal(e.code, "session_not_found");
    e = await error(await api(`${V1}/sessions`, { headers: { origin: "https://elsewhere.example" } }));
    assert.equal(e.status, 403);
    assert.equal(e.code, "forbidden");
    e = await error(await api(V1, { method: "DELETE" }));
    assert.equal(e.status, 403);
    assert.equal(e.code, "forbidden");
    assert.equal(e.operation, "harnesses.unregister");
    e = await error(await api("/v1/harnesses", { method: "POST", body: "{}" }));
    assert.equal(e.status, 400);
    assert.match(e.message, /id/);
  } finally {
    await h.close();
  }
});

test("with tokens: none is refused in the ErrorResponse shape; a person's token acts as its user, without naming one", async (t) => {
  const h = await startHarness();
  const server = await withAnnsToken(t, h);
  const bearer = { authorization: `Bearer ${ANN_TOKEN}`, "content-type": "application/json" };
  const refused = await fetch(`${server.url}${V1}/sessions`);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).error.code, "unauthorized");

  const created = await fetch(`${server.url}${V1}/sessions`, { method: "POST", headers: bearer, body: "{}" });
  assert.equal(created.status, 201);
  const { session } = await created.json();
  const mine = await fetch(`${server.url}/sessions?userId=ann`, { headers: bearer });
  assert.deepEqual((await mine.json()).map((s: { sessionId: string }) => s.sessionId), [session.id]);

  const other = await fetch(`${server.url}${V1}/sessions`, { headers: { ...bearer, "x-harness-user": "bob" } });
  assert.equal(other.status, 403);
  assert.equal((await other.json()).error.code, "forbidden");
});

test("with tokens: the health check answers without one, saying nothing a token guards; a wrong token is refused", async (t) => {
  const h = await startHarness();
  const server = await withAnnsToken(t, h);
  const health = `${server.url}${V1}/health`;
  const open = await fetch(health);
  assert.equal(open.status, 200);
  const body = await open.json();
  assert.deepEqual(Object.keys(body).sort(), ["checks", "latency_ms", "status", "version"]);
  assert.equal(body.status, "healthy");
  assert.equal(typeof body.latency_ms, "number");
  assert.equal(typeof body.version, "string");
  assert.deepEqual(body.checks, [{ name: "server", status: "pass" }]);
  assert.equal((await fetch(health, { method: "HEAD" })).status, 200);

  const held = await fetch(health, { headers: { authorization: `Bearer ${ANN_TOKEN}` } });
  assert.equal(held.status, 200);
  assert.equal((await held.json()).status, "healthy");

  for (const wrong of [fetch(health, { headers: { authorization: "Bearer not-a-token-0123456789" } }), fetch(`${health}?token=not-a-token-0123456789`)]) {
    const refused = await wrong;
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).error.code, "unauthorized");
  }
  // Only the health check: the harness's description still needs a token.
  assert.equal((await fetch(`${server.url}${V1}`)).status, 401);
});
