// The spec's interactive session channel (sessions.connect): a WebSocket speaking the spec's
// messages, each `message` an execution of the session, its events coming back under its id.
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startHarness } from "./e2e-commands-support.ts";
import { ANN_TOKEN, apiAs, executionWhen, V1, withAnnsToken } from "./open-harness-support.ts";

type Incoming = { type: string; id: string; execution_id?: string; [field: string]: unknown };

/** A socket of the channel, with every message it got and a way to wait for one. */
async function connect(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; got: Incoming[]; next(match: (m: Incoming) => boolean, what: string): Promise<Incoming>; closed: Promise<number> }> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}${path}`, { headers });
  const got: Incoming[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data) => {
    got.push(JSON.parse(String(data)));
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    ws.once("error", reject);
  });
  let seen = 0;
  async function next(match: (m: Incoming) => boolean, what: string): Promise<Incoming> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      while (seen < got.length) {
        const message = got[seen++];
        if (match(message)) return message;
      }
      if (Date.now() > deadline) throw new Error(`never got ${what}; got ${JSON.stringify(got)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }
  return { ws, got, next, closed };
}

/** The HTTP status a handshake at `path` is refused with. */
function refusal(url: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}${path}`, { headers });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("open", () => reject(new Error(`${path} was opened`)));
    ws.once("error", () => {});
  });
}

test("a session's connect channel runs each message as an execution and sends its text, tool calls, approval prompts and end under the message's id", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const path = `${V1}/sessions/${session.id}/connect?userId=alice`;
    const channel = await connect(h.server.url, path);
    const watcher = await h.connect(session.id);

    h.fake.push({ text: ["Hel", "lo."] });
    channel.ws.send(JSON.stringify({ type: "message", id: "m1", content: "hello" }));
    const done = await channel.next((m) => m.type === "done", "done");
    const mine = channel.got.filter((m) => m.id === "m1");
    assert.equal(mine.filter((m) => m.type === "text").map((m) => m.content).join(""), "Hello.");
    assert.deepEqual(done.usage && Object.keys(done.usage as object).sort(), ["input_tokens", "output_tokens", "total_tokens"]);
    const executionId = done.execution_id!;
    assert.ok(mine.every((m) => m.execution_id === executionId));
    const execution = (await (await api(`${V1}/executions/${executionId}`)).json()).execution;
    assert.deepEqual([execution.status, execution.session_id], ["completed", session.id]);
    await watcher.waitForState((s) => s.messages.some((m) => m.role === "assistant" && m.content === "Hello."), 10_000, "the session's other client saw the reply");

    // A call that needs approval: a prompt, answered with stdin.
    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo yes > approved.txt", description: "write approved.txt" } }] }, { text: "Written." });
    channel.ws.send(JSON.stringify({ type: "message", id: "m2", content: "write it" }));
    const call = await channel.next((m) => m.type === "tool_call", "the tool call");
    assert.deepEqual([call.id, call.tool, (call.input as { command: string }).command], ["m2", "Bash", "echo yes > approved.txt"]);
    const prompt = await channel.next((m) => m.type === "prompt", "the prompt");
    assert.equal(prompt.id, "m2");
    assert.match(String(prompt.prompt), /Bash: .*approved\.txt.*yes or no/);
    channel.ws.send(JSON.stringify({ type: "stdin", id: "m2", data: "maybe" }));
    assert.equal((await channel.next((m) => m.type === "error", "the refusal of maybe")).code, "invalid_input");
    channel.ws.send(JSON.stringify({ type: "stdin", id: "m2", data: "yes" }));
    const second = await channel.next((m) => m.type === "done", "the second done");
    assert.equal(second.id, "m2");
    assert.ok(channel.got.some((m) => m.id === "m2" && m.type === "text" && m.content === "Written."));
    // The file the command wrote, announced as it appeared (before the end).
    const artifacts = channel.got.filter((m) => m.type === "artifact");
    assert.deepEqual(artifacts, [{ type: "artifact", id: "m2", execution_id: second.execution_id, name: "approved.txt", mime_type: "text/plain", artifact_id: "1", size_bytes: 4 }]);
    assert.ok(channel.got.indexOf(artifacts[0]) < channel.got.indexOf(second));

    // Cancelled by the message's id while it runs.
    h.fake.push({ text: ["slow ", "reply ", "that ", "goes ", "on"], delayMs: 400 });
    channel.ws.send(JSON.stringify({ type: "message", id: "m3", content: "take your time" }));
    const first = await channel.next((m) => m.id === "m3" && m.type === "text", "the slow reply's start");
    channel.ws.send(JSON.stringify({ type: "cancel", execution_id: "m3" }));
    assert.equal((await channel.next((m) => m.type === "done", "the cancelled run's done")).id, "m3");
    assert.equal((await executionWhen(api, first.execution_id!, (e) => e.status !== "running", "ended")).status, "cancelled");

    // What is wrong with a message is said, and the channel stays.
    for (const [frame, pattern] of [
      ["not json", /not JSON/],
      [JSON.stringify({ type: "shout", id: "x" }), /type/],
      [JSON.stringify({ type: "message", id: "m4" }), /content/],
      [JSON.stringify({ type: "stdin", id: "nope", data: "yes" }), /no message "nope"/],
      [JSON.stringify({ type: "cancel", execution_id: "nope" }), /no execution "nope"/],
      [JSON.stringify({ type: "stdin", id: "m1", data: "yes" }), /already ended/],
    ] as const) {
      channel.ws.send(frame);
      assert.match(String((await channel.next((m) => m.type === "error", frame)).message), pattern, frame);
    }
    await watcher.close();

    // The channel closes once its session is deleted.
    assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);
    channel.ws.send(JSON.stringify({ type: "message", id: "m5", content: "still there?" }));
    assert.equal((await channel.next((m) => m.type === "error", "the refusal")).code, "session_not_found");
    assert.equal(await channel.closed, 4404);
  } finally {
    await h.close();
  }
});

test("a connect handshake is refused with a status saying why; a plain GET is told to upgrade; a person's token opens their own sessions only", async (t) => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  let handedOver = false;
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    assert.equal(await refusal(h.server.url, `${V1}/sessions/nope/connect?userId=alice`), 404);
    assert.equal(await refusal(h.server.url, `${V1}/sessions/${session.id}/connect?userId=bob`), 404, "another user's session is not found");
    assert.equal(await refusal(h.server.url, `/v1/harnesses/other/sessions/${session.id}/connect?userId=alice`), 404);
    assert.equal(await refusal(h.server.url, `${V1}/sessions/${session.id}/connect`), 400, "no user named");
    assert.equal(await refusal(h.server.url, `${V1}/sessions/${session.id}/connect?userId=a%20b`), 400);
    const plain = await api(`${V1}/sessions/${session.id}/connect`);
    assert.equal(plain.status, 426);
    assert.equal((await plain.json()).error.operation, "sessions.connect");
    const capabilities = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.ok(capabilities.sessions.operations.includes("sessions.connect"));

    handedOver = true;
    const server = await withAnnsToken(t, h);
    const anns = { authorization: `Bearer ${ANN_TOKEN}` };
    const created = await fetch(`${server.url}${V1}/sessions`, { method: "POST", headers: { ...anns, "content-type": "application/json" }, body: "{}" });
    const annsSession = (await created.json()).session.id;
    assert.equal(await refusal(server.url, `${V1}/sessions/${annsSession}/connect`), 401, "no token");
    assert.equal(await refusal(server.url, `${V1}/sessions/${session.id}/connect?userId=alice`, anns), 403, "not ann's to act for");
    const opened = await connect(server.url, `${V1}/sessions/${annsSession}/connect`, anns);
    assert.equal(opened.ws.readyState, WebSocket.OPEN, "ann's own session, as the token's user");
    opened.ws.close();
    await opened.closed;
  } finally {
    if (!handedOver) await h.close();
  }
});
