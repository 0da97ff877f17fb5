// Tools a program registers over the Open Harness API: the session's next runs offer them to the
// model with their schemas, a call's input is POSTed to the program's endpoint and its answer is the
// result the model reads; the endpoint's failures are error results; permission rules name them;
// unregistered they are gone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, readSse, V1, type Api } from "./open-harness-support.ts";

type Received = { path: string; body: { tool: string; tool_use_id: string; input: Record<string, unknown> } };

/** The program's endpoint: /order answers JSON, /text plain text, /broken HTTP 500, /hang never. */
async function startEndpoint(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const hanging = new Set<IncomingMessage>();
  const server: Server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    received.push({ path: req.url!, body: JSON.parse(text) });
    if (req.url === "/order") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ content: `order ${JSON.parse(text).input.id}: shipped` }));
    if (req.url === "/text") return res.writeHead(200, { "content-type": "text/plain" }).end("plain answer");
    if (req.url === "/broken") return res.writeHead(500).end("database down");
    hanging.add(req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const ENV = { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1", HARNESS_TOOL_ENDPOINT_TIMEOUT_MS: "1500" };
const SCHEMA = { type: "object", properties: { id: { type: "string", description: "The order's id" } }, required: ["id"] };

function register(api: Api, sessionId: string, body: Record<string, unknown>): Promise<Response> {
  return api(`${V1}/tools?session_id=${sessionId}`, { method: "POST", body: JSON.stringify(body) });
}

/** Runs `message` in the session, the model's replies scripted; the model requests it made. */
async function run(h: Harness, api: Api, sessionId: string, message: string, replies: Parameters<Harness["fake"]["push"]>[0][]) {
  const from = h.fake.requests.length;
  for (const reply of replies) h.fake.push(reply);
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message, session_id: sessionId }) }));
  return h.fake.requests.slice(from).map((request) => request.body as { tools: { name: string; description: string; input_schema: unknown }[]; messages: { role: string; content: unknown }[] });
}

/** The tool_result blocks of a model request's last message. */
function resultsIn(body: { messages: { role: string; content: unknown }[] }): { tool_use_id: string; content: unknown; is_error?: boolean }[] {
  const content = body.messages.at(-1)!.content;
  return Array.isArray(content) ? content.filter((block) => block.type === "tool_result") : [];
}

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

test("a registered tool is offered to the session's next runs with its schema, its calls go to the program's endpoint and the answers come back to the model; unregistered it is gone", async () => {
  const h = await startHarness({}, ENV);
  const endpoint = await startEndpoint();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify({ permissions: { allow: ["lookup_order", "say-text", "broken_tool", "slow_tool"] } }) })).status, 201);

    const registered = await register(api, session.id, { name: "lookup_order", description: "Looks an order up by its id.", input_schema: SCHEMA, handler: { type: "webhook", url: `${endpoint.url}/order` } });
    assert.equal(registered.status, 201);
    const { tool } = await registered.json();
    assert.deepEqual(tool, { id: "lookup_order", name: "lookup_order", description: "Looks an order up by its id.", source: "custom", input_schema: SCHEMA, handler: { type: "webhook", url: `${endpoint.url}/order` } });
    const listed = await (await api(`${V1}/tools${q}&source=custom`)).json();
    assert.deepEqual(listed.data.map((t: { id: string }) => t.id), ["lookup_order"]);
    assert.equal((await (await api(`${V1}/tools/lookup_order${q}`)).json()).tool.source, "custom");

    const requests = await run(h, api, session.id, "where is order 42?", [{ toolUses: [{ id: "toolu_order", name: "lookup_order", input: { id: "42" } }] }, { text: "It has shipped." }]);
    const { cache_control: _cache, ...offered } = requests[0]!.tools.find((t) => t.name === "lookup_order") as Record<string, unknown>;
    assert.deepEqual(offered, { name: "lookup_order", description: "Looks an order up by its id.", input_schema: SCHEMA });
    assert.deepEqual(endpoint.received, [{ path: "/order", body: { tool: "lookup_order", tool_use_id: "toolu_order", input: { id: "42" } } }]);
    const [result] = resultsIn(requests[1]!);
    assert.equal(result!.tool_use_id, "toolu_order");
    assert.match(textOf(result!.content), /order 42: shipped/);
    assert.notEqual(result!.is_error, true);
    // After the run, the listing still has it, as it is registered.
    assert.ok((await (await api(`${V1}/tools${q}&limit=100`)).json()).data.some((t: { id: string; source: string }) => t.id === "lookup_order" && t.source === "custom"));

    // An endpoint that fails or hangs gives the model an error result; one that answers text gives it the text.
    for (const [name, path] of [["say-text", "/text"], ["broken_tool", "/broken"], ["slow_tool", "/hang"]]) {
      assert.equal((await register(api, session.id, { name, description: `The ${name} tool.`, input_schema: { type: "object" }, handler: { type: "webhook", url: `${endpoint.url}${path}` } })).status, 201);
    }
    const failing = await run(h, api, session.id, "try them", [
      { toolUses: [{ id: "toolu_text", name: "say-text", input: {} }, { id: "toolu_broken", name: "broken_tool", input: {} }, { id: "toolu_slow", name: "slow_tool", input: {} }] },
      { text: "Two failed." },
    ]);
    const results = new Map(resultsIn(failing[1]!).map((r) => [r.tool_use_id, r]));
    assert.match(textOf(results.get("toolu_text")!.content), /plain answer/);
    assert.notEqual(results.get("toolu_text")!.is_error, true);
    assert.equal(results.get("toolu_broken")!.is_error, true);
    assert.match(textOf(results.get("toolu_broken")!.content), /HTTP 500: database down/);
    assert.equal(results.get("toolu_slow")!.is_error, true);
    assert.match(textOf(results.get("toolu_slow")!.content), /did not answer within 1.5 s/);

    assert.equal((await api(`${V1}/tools/lookup_order${q}`, { method: "DELETE" })).status, 204);
    const gone = await api(`${V1}/tools/lookup_order${q}`, { method: "DELETE" });
    assert.equal(gone.status, 404);
    assert.match((await gone.json()).error.message, /no tool "lookup_order" registered/);
    assert.equal((await api(`${V1}/tools/Read${q}`, { method: "DELETE" })).status, 404);
    assert.ok(!(await (await api(`${V1}/tools${q}&limit=100`)).json()).data.some((t: { id: string }) => t.id === "lookup_order"));
    const after = await run(h, api, session.id, "again", [{ text: "Ready." }]);
    const names = after[0]!.tools.map((t) => t.name);
    assert.ok(!names.includes("lookup_order"), names.join(" "));
    assert.ok(names.includes("say-text"));
  } finally {
    await endpoint.close();
    await h.close();
  }
});

test("permission rules name a registered tool: a deny rule withholds it, and without an allow rule a call of it waits for approval (refused, the endpoint is never called)", async () => {
  const h = await startHarness({}, ENV);
  const endpoint = await startEndpoint();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    for (const name of ["lookup_order", "ask_first"]) {
      assert.equal((await register(api, session.id, { name, description: "Looks an order up.", input_schema: SCHEMA, handler: { type: "webhook", url: `${endpoint.url}/order` } })).status, 201);
    }
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify({ permissions: { deny: ["lookup_order"] } }) })).status, 201);
    const listed = (await (await api(`${V1}/tools${q}&source=custom`)).json()).data.map((t: { id: string }) => t.id);
    assert.deepEqual(listed, ["ask_first"], "the listing leaves out what a deny rule withholds");
    const from = h.fake.requests.length;
    h.fake.push({ toolUses: [{ id: "toolu_ask", name: "ask_first", input: { id: "7" } }] }, { text: "Refused." });
    const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "order 7?", session_id: session.id }) })).json();
    const asked = (await executionWhen(api, started.execution_id, (e) => Boolean(e.pending_input), "waited for input")).pending_input as { tool_name: string };
    assert.equal(asked.tool_name, "ask_first");
    assert.equal((await api(`${V1}/executions/${started.execution_id}/input`, { method: "POST", body: JSON.stringify({ data: "no" }) })).status, 200);
    const events = (await readSse(await api(`${V1}/executions/${started.execution_id}/stream`))).map((e) => e.data);
    assert.equal(events.find((e) => e.type === "tool_result")!.success, false);
    const names = (h.fake.requests[from]!.body as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(!names.includes("lookup_order"), names.join(" "));
    assert.ok(names.includes("ask_first"));
    assert.deepEqual(endpoint.received, [], "the endpoint was never called");
  } finally {
    await endpoint.close();
    await h.close();
  }
});

test("registrations the runs could not use are refused, naming what is wrong", async () => {
  const h = await startHarness({}, ENV);
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const good = { name: "lookup_order", description: "Looks an order up.", input_schema: SCHEMA, handler: { type: "webhook", url: "https://tools.example.com/order" } };
    const refused = async (body: Record<string, unknown>, status: number, pattern: RegExp, sessionId = session.id) => {
      const response = await register(api, sessionId, body);
      const { error } = await response.json();
      assert.equal(response.status, status, error.message);
      assert.match(error.message, pattern);
    };
    await refused({ ...good, name: "look up" }, 400, /name.*letters, digits/);
    await refused({ ...good, name: "mcp__x__y" }, 400, /mcp__/);
    await refused({ ...good, description: "" }, 400, /description/);
    await refused({ ...good, input_schema: { type: "string" } }, 400, /input_schema must have "type": "object"/);
    await refused({ ...good, input_schema: "{}" }, 400, /input_schema/);
    await refused({ ...good, input_schema: { type: "object", properties: { big: { description: "x".repeat(70_000) } } } }, 400, /at most 65536 bytes/);
    await refused({ ...good, handler: { type: "webhook", url: "ftp://tools.example.com" } }, 400, /handler.url must be an https URL/);
    await refused({ ...good, handler: { type: "command", command: "lookup" } }, 501, /command/);
    await refused({ ...good, handler: { type: "grpc" } }, 400, /handler/);
    await refused({ ...good, name: "Read" }, 409, /built-in tool/);
    await refused({ ...good, name: "bash" }, 409, /built-in tool/);
    await refused(good, 404, /session/, "no-such-session");
    assert.equal((await register(api, session.id, good)).status, 201);
    await refused(good, 409, /already/);
    for (let i = 1; i < 50; i++) assert.equal((await register(api, session.id, { ...good, name: `tool_${i}` })).status, 201);
    await refused({ ...good, name: "one_more" }, 409, /50 registered tools/);
  } finally {
    await h.close();
  }
});

test("a fork of a session has the tools registered for its source, and its runs offer them; an endpoint on this machine is refused unless the server allows it", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const local = await register(api, session.id, { name: "lookup_order", description: "Looks an order up.", input_schema: SCHEMA, handler: { type: "webhook", url: "http://127.0.0.1:9/order" } });
    assert.equal(local.status, 400);
    assert.match((await local.json()).error.message, /handler.url .*HARNESS_WEBHOOKS_ALLOW_PRIVATE=1/);
    assert.equal((await register(api, session.id, { name: "lookup_order", description: "Looks an order up.", input_schema: SCHEMA, handler: { type: "webhook", url: "https://tools.example.com/order" } })).status, 201);
    const forked = await api(`/sessions/${session.id}/fork`, { method: "POST", body: JSON.stringify({ userId: "alice" }) });
    assert.equal(forked.status, 201);
    const { sessionId } = await forked.json();
    assert.equal((await (await api(`${V1}/tools/lookup_order?session_id=${sessionId}`)).json()).tool.source, "custom");
    const [request] = await run(h, api, sessionId, "in the fork", [{ text: "Ready." }]);
    assert.ok(request!.tools.some((t) => t.name === "lookup_order"));
    // Unregistered in the source, it stays the fork's.
    assert.equal((await api(`${V1}/tools/lookup_order?session_id=${session.id}`, { method: "DELETE" })).status, 204);
    assert.equal((await api(`${V1}/tools/lookup_order?session_id=${sessionId}`)).status, 200);
  } finally {
    await h.close();
  }
});

test("with the claude-code backend, registering a tool is 501: its runs offer Claude Code's own tools only", async () => {
  const h = await startHarness({}, { ...ENV, HARNESS_BACKEND: "claude-code" });
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const response = await register(api, session.id, { name: "lookup_order", description: "Looks an order up.", input_schema: SCHEMA, handler: { type: "webhook", url: "https://tools.example.com/order" } });
    assert.equal(response.status, 501);
    assert.match((await response.json()).error.message, /builtin backend/);
  } finally {
    await h.close();
  }
});
