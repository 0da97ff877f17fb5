// The Open Harness sessions' resume and fork: a fork is a new session with the conversation and the
// workspace's files (whole, or from a message), that goes on by itself; a resume answers the
// session (never paused) and the WebSocket it goes on over.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness, userTexts } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

type Message = { id: string; role: string; content: string };

test("a session is forked over REST, whole or from a message, with its files; the fork goes on by itself, its source unchanged", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const json = (path: string, body: unknown) => api(path, { method: "POST", body: JSON.stringify(body) });
  const history = async (id: string) => ((await (await api(`${V1}/sessions/${id}/history`)).json()).data as Message[]).map((m) => `${m.role}: ${m.content}`);
  try {
    const { session: source } = await (await json(`${V1}/sessions`, { name: "Original" })).json();
    await api(`${V1}/files/notes.md?session_id=${source.id}`, { method: "PUT", body: "kept\n" });
    h.fake.push({ text: "Hi." }, { text: "Done." });
    assert.equal((await json(`${V1}/sessions/${source.id}/message`, { content: "hello" })).status, 200);
    assert.equal((await json(`${V1}/sessions/${source.id}/message`, { content: "do it" })).status, 200);

    const whole = await json(`${V1}/sessions/${source.id}/fork`, { new_name: "Experiment" });
    assert.equal(whole.status, 201);
    const forked = await whole.json();
    assert.equal(forked.forked_from, source.id);
    assert.equal(forked.message_count, 4);
    assert.notEqual(forked.session.id, source.id);
    assert.deepEqual({ ...forked.session, id: undefined, created_at: undefined, updated_at: undefined }, {
      id: undefined,
      harness_id: "harness",
      name: "Experiment",
      status: "active",
      message_count: 4,
      created_at: undefined,
      updated_at: undefined,
    });
    assert.deepEqual(await history(forked.session.id), ["user: hello", "assistant: Hi.", "user: do it", "assistant: Done."]);
    assert.equal(await readFile(join(h.workspace("alice", forked.session.id), "notes.md"), "utf8"), "kept\n");
    const listed = (await (await api(`${V1}/sessions`)).json()).data.map((s: { id: string; name?: string }) => [s.id, s.name]);
    assert.deepEqual(listed.sort(), [[forked.session.id, "Experiment"], [source.id, "Original"]].sort());

    // The fork goes on with the conversation it has; its source does not see it.
    h.fake.push({ text: "Forked reply." });
    const reply = await (await json(`${V1}/sessions/${forked.session.id}/message`, { content: "and then?" })).json();
    assert.equal(reply.response.content, "Forked reply.");
    assert.match(userTexts(h.fake.requests.at(-1)!.body as never), /hello[\s\S]*do it[\s\S]*and then\?/);
    assert.equal((await history(source.id)).length, 4);

    // From a user message: the conversation before it, its prompt handed back; from a reply: up to it.
    const [hello, hi, doIt] = (await (await api(`${V1}/sessions/${source.id}/history`)).json()).data as Message[];
    const atPrompt = await (await json(`${V1}/sessions/${source.id}/fork`, { from_message_id: doIt.id })).json();
    assert.equal(atPrompt.message_count, 2);
    assert.equal(atPrompt.prompt, "do it");
    assert.equal(atPrompt.session.name, "Original", "without a new name, the source's");
    assert.deepEqual(await history(atPrompt.session.id), ["user: hello", "assistant: Hi."]);
    const atReply = await (await json(`${V1}/sessions/${source.id}/fork`, { from_message_id: hi.id })).json();
    assert.equal(atReply.message_count, 2);
    assert.equal(atReply.prompt, undefined);
    const atFirst = await (await json(`${V1}/sessions/${source.id}/fork`, { from_message_id: hello.id })).json();
    assert.equal(atFirst.message_count, 0);
  } finally {
    await h.close();
  }
});

test("a session is resumed over REST: it answers active with its connect_url, and goes on with its conversation", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const json = (path: string, body: unknown) => api(path, { method: "POST", body: JSON.stringify(body) });
  try {
    const created = await (await json(`${V1}/sessions`, {})).json();
    const id = created.session.id;
    h.fake.push({ text: "First." }, { text: "Second." });
    await json(`${V1}/sessions/${id}/message`, { content: "one" });

    for (const body of [undefined, "{}"]) {
      const resumed = await api(`${V1}/sessions/${id}/resume`, { method: "POST", body });
      assert.equal(resumed.status, 200);
      const answer = await resumed.json();
      assert.equal(answer.connect_url, created.connect_url);
      assert.equal(answer.session.id, id);
      assert.equal(answer.session.status, "active");
      assert.equal(answer.session.message_count, 2);
    }
    const client = await h.connect(id);
    assert.deepEqual(client.state!.messages.map((m) => m.content), ["one", "First."]);
    await client.close();
    const next = await (await json(`${V1}/sessions/${id}/message`, { content: "two" })).json();
    assert.equal(next.response.content, "Second.");
    assert.match(userTexts(h.fake.requests.at(-1)!.body as never), /one[\s\S]*two/);
  } finally {
    await h.close();
  }
});

test("resume and fork: unknown sessions, another user's and bad bodies are refused naming the problem, and nothing is made", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const error = async (response: Response) => ({ status: response.status, ...(await response.json()).error });
  const post = (path: string, body: unknown, user = "alice") => apiAs(h.server.url, user)(path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
  try {
    const { session } = await (await post(`${V1}/sessions`, {})).json();
    for (const op of ["fork", "resume"]) {
      let e = await error(await post(`${V1}/sessions/missing/${op}`, {}));
      assert.equal(e.status, 404, op);
      assert.equal(e.code, "session_not_found", op);
      e = await error(await post(`${V1}/sessions/${session.id}/${op}`, {}, "bob"));
      assert.equal(e.status, 404, `${op}: another user's session`);
      e = await error(await post(`${V1}/sessions/${session.id}/${op}`, "{nope"));
      assert.equal(e.status, 400);
      assert.match(e.message, /not valid JSON/);
      e = await error(await post(`${V1}/sessions/${session.id}/${op}`, { prompt: "x" }));
      assert.equal(e.status, 400);
      assert.match(e.message, /unknown field "prompt"/);
      e = await error(await post(`/v1/harnesses/other/sessions/${session.id}/${op}`, {}));
      assert.equal(e.code, "harness_not_found");
    }
    let e = await error(await post(`${V1}/sessions/${session.id}/fork`, { new_name: "" }));
    assert.equal(e.status, 400);
    assert.match(e.message, /new_name: must not be empty/);
    e = await error(await post(`${V1}/sessions/${session.id}/fork`, { new_name: "a\u0007b" }));
    assert.equal(e.status, 400);
    assert.match(e.message, /^new_name: .*control characters/);
    e = await error(await post(`${V1}/sessions/${session.id}/fork`, { from_message_id: "no-such-message" }));
    assert.equal(e.status, 400);
    assert.match(e.message, /^from_message_id: .*no-such-message/);
    e = await error(await post(`${V1}/sessions/${session.id}/fork`, { from_message_id: 3 }));
    assert.match(e.message, /from_message_id: must be a string/);
    // Bob has no session, and Alice only the one she made.
    assert.equal((await (await apiAs(h.server.url, "bob")(`${V1}/sessions`)).json()).total, 0);
    assert.equal((await (await api(`${V1}/sessions`)).json()).total, 1);
    assert.equal(existsSync(join(h.dataDir, "workspaces", "bob")), false);

    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities.sessions;
    assert.ok(caps.operations.includes("sessions.resume") && caps.operations.includes("sessions.fork"));
  } finally {
    await h.close();
  }
});
