// The Open Harness event feed's events beside executions' starts and ends, through a real `harness
// serve`: sessions made (over the Open Harness API, the sessions API, a fork, a WebSocket client's
// new session id) and deleted, skills installed and uninstalled, a hook that ran, a run that failed;
// each on the stream and in the list, resumed after Last-Event-ID across types, filtered, and sent
// to a webhook subscribed to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, takeSse, V1, type Sse } from "./open-harness-support.ts";

/** A receiver on loopback keeping each body it is sent. */
async function receiver(): Promise<{ url: string; bodies: Record<string, unknown>[]; close(): Promise<void> }> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, bodies, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function until<T>(what: string, value: () => T | undefined, ms = 15_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const v = value();
    if (v !== undefined) return v;
  }
  throw new Error(`never: ${what}`);
}

const SKILL = "---\nname: deploy\ndescription: Deploys the app to staging\n---\nRun scripts/deploy.sh.\n";

test("sessions made and deleted, skills installed and uninstalled, a hook that ran and a run that failed are on the feed's stream and list, resumed across types, and sent to webhooks", async () => {
  const h = await startHarness({}, { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1" });
  const api = apiAs(h.server.url);
  const bob = apiAs(h.server.url, "bob");
  const hooked = await receiver();
  const streams = new AbortController();
  try {
    const subscribed = await api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url: hooked.url, events: ["session.created", "hook.triggered", "error"] }) });
    assert.equal(subscribed.status, 201);
    const live = await api(`${V1}/events/stream`, { signal: streams.signal });
    const coming = takeSse(live, 13);

    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    assert.equal((await api("/sessions", { method: "POST", body: JSON.stringify({ sessionId: "made-by-rest" }) })).status, 201);
    const socket = await h.connect("made-by-socket");
    await socket.close();
    // Refused, or opening a session there is already, makes none.
    assert.equal((await api("/sessions", { method: "POST", body: JSON.stringify({ sessionId: "made-by-rest" }) })).status, 409);
    assert.equal((await api(`${V1}/sessions/never-made`, { method: "DELETE" })).status, 404);
    await (await h.connect("made-by-rest")).close();

    // A hook that runs before each Read, its command holding a secret.
    const q = `?session_id=${session.id}`;
    const settings = { hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "DEPLOY_API_KEY=sk-hidden-0123456789 true", timeout: 5 }] }] } };
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(settings) })).status < 300, true);
    await api(`${V1}/files/notes.txt${q}`, { method: "PUT", body: "the notes" });
    h.fake.push({ toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Read it." });
    const first = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "read the notes", session_id: session.id }) });
    const firstId = first.headers.get("x-execution-id");
    await readSse(first);

    const forked = await api(`${V1}/sessions/${session.id}/fork`, { method: "POST", body: "{}" });
    assert.equal(forked.status, 201);
    const fork = (await forked.json()).session;

    const form = new FormData();
    form.append("files", new Blob([SKILL]), "deploy/SKILL.md");
    const installed = await fetch(`${h.server.url}${V1}/skills${q}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
    assert.equal(installed.status, 201, await installed.clone().text());
    assert.equal((await api(`${V1}/skills/deploy${q}`, { method: "DELETE" })).status, 204);

    h.fake.push({ kind: "http-error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" });
    const failing = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "this one fails", session_id: session.id }) });
    const failingId = failing.headers.get("x-execution-id");
    await readSse(failing);

    assert.equal((await api(`${V1}/sessions/${fork.id}`, { method: "DELETE" })).status, 204);

    const streamed = await coming;
    const summary = (events: Sse[]) => events.map((event) => [event.data.type, event.data.session_id, event.data.execution_id ?? event.data.skill_id ?? null]);
    assert.deepEqual(summary(streamed), [
      ["session.created", session.id, null],
      ["session.created", "made-by-rest", null],
      ["session.created", "made-by-socket", null],
      ["execution.started", session.id, firstId],
      ["hook.triggered", session.id, null],
      ["execution.completed", session.id, firstId],
      ["session.created", fork.id, null],
      ["skill.installed", session.id, "deploy"],
      ["skill.uninstalled", session.id, "deploy"],
      ["execution.started", session.id, failingId],
      ["error", session.id, null],
      ["execution.completed", session.id, failingId],
      ["session.ended", fork.id, null],
    ]);
    assert.equal(streamed[6].data.forked_from, session.id);
    assert.equal(streamed[12].data.reason, "deleted");
    const hook = streamed[4].data;
    assert.equal(hook.event, "pre_tool");
    assert.equal(typeof hook.hook_id, "string");
    const ran = hook.data as Record<string, unknown>;
    assert.deepEqual({ ...ran, duration_ms: typeof ran.duration_ms }, {
      harness_event: "PreToolUse",
      matcher: "Read",
      handler: { type: "command", command: "DEPLOY_API_KEY=*** true" },
      outcome: "success",
      duration_ms: "number",
      exit_code: 0,
    });
    assert.equal(streamed[11].data.status, "failed");
    assert.equal(streamed[10].data.code, "run_failed");
    assert.match(String(streamed[10].data.message), /invalid x-api-key/);
    assert.ok(streamed.every((event) => typeof event.data.timestamp === "string"));

    // The list has the same events and ids, the most recent first, and filters by every type.
    const listed = await (await api(`${V1}/events?limit=100`)).json();
    assert.equal(listed.total, 13);
    assert.deepEqual(
      listed.data.map((event: { id: string; type: string }) => [event.id, event.type]),
      streamed.map((event) => [event.id, event.data.type]).reverse(),
    );
    assert.deepEqual(listed.data.find((event: { type: string }) => event.type === "skill.installed").data, { skill_id: "deploy", session_id: session.id });
    for (const type of ["session.created", "session.ended", "skill.installed", "skill.uninstalled", "hook.triggered", "error"]) {
      const only = await (await api(`${V1}/events?type=${type}`)).json();
      assert.equal(only.total, streamed.filter((event) => event.data.type === type).length, type);
      assert.ok(only.data.every((event: { type: string }) => event.type === type), type);
    }

    // Resumed after any event, of any type, the stream goes on with the ones after it.
    for (const at of [0, 4, 5, 10]) {
      const resumed = await api(`${V1}/events/stream`, { signal: streams.signal, headers: { "last-event-id": streamed[at].id! } });
      assert.deepEqual((await takeSse(resumed, 12 - at)).map((event) => event.id), streamed.slice(at + 1).map((event) => event.id), `after event ${at}`);
    }
    const filtered = await api(`${V1}/events/stream?events=skill.installed,error,session.ended`, { signal: streams.signal, headers: { "last-event-id": streamed[3].id! } });
    assert.deepEqual((await takeSse(filtered, 3)).map((event) => event.data.type), ["skill.installed", "error", "session.ended"]);

    // The webhook got the types it subscribed to, and no other.
    await until("the webhook has every event it subscribed to", () => (hooked.bodies.length >= 6 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(hooked.bodies.map((body) => body.event).sort(), ["error", "hook.triggered", "session.created", "session.created", "session.created", "session.created"]);
    const error = hooked.bodies.find((body) => body.event === "error")!;
    assert.equal(error.harness_id, "harness");
    assert.equal(error.event_id, streamed[10].id);
    assert.equal((error.data as Record<string, unknown>).code, "run_failed");
    assert.match(String((error.data as Record<string, unknown>).message), /invalid x-api-key/);

    assert.equal((await (await bob(`${V1}/events`)).json()).total, 0, "bob's feed holds none of alice's");
    for (const [path, init, pattern] of [
      [`${V1}/events/stream?events=session.created,session.paused`, {}, /events\.1: "session\.paused" is no event type: must be one of .*skill\.installed/],
      [`${V1}/events?type=skill.updated`, {}, /type: "skill\.updated" is no event type/],
      [`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url: hooked.url, events: ["session.paused"] }) }, /events\.0: "session\.paused" is no event a webhook takes: must be one of .*hook\.triggered/],
    ] as const) {
      const bad = await api(path, init);
      assert.equal(bad.status, 400, path);
      assert.match((await bad.json()).error.message, pattern);
    }
  } finally {
    streams.abort();
    await hooked.close();
    await h.close();
  }
});
