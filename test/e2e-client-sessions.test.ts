// The SDK's sessions API against the real server process (with a token): list, create, rename,
// delete and fork, and what a program is told when the server refuses a call.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarnessClient, createSessionsApi } from "@harness/client";
import { startFakeAnthropic, startHarnessServer, type FakeAnthropic, type HarnessProcess } from "@harness/test-utils";

const TOKEN = "the-token";
let dataDir: string;
let fake: FakeAnthropic;
let server: HarnessProcess;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "harness-sdk-sessions-"));
  fake = await startFakeAnthropic();
  server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_TOKEN: TOKEN } });
});

after(async () => {
  await server?.stop();
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The rejection of `promise`, which must be an Error. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error, String(error));
    return error;
  }
  assert.fail("the call succeeded");
}

test("a program lists, creates, renames and deletes its sessions through the SDK", async () => {
  const sessions = createSessionsApi({ url: server.url, userId: "carol", token: TOKEN });
  assert.deepEqual(await sessions.list(), []);

  const made = await sessions.create({ title: "first one" });
  assert.match(made.sessionId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(await sessions.create({ sessionId: "named" }), { sessionId: "named" });
  const listed = await sessions.list();
  assert.deepEqual(listed.map((s) => [s.sessionId, s.title, s.status, s.messageCount]).sort(), [
    ["named", null, "idle", 0],
    [made.sessionId, "first one", "idle", 0],
  ].sort());
  for (const s of listed) assert.ok(!Number.isNaN(Date.parse(s.createdAt)) && !Number.isNaN(Date.parse(s.updatedAt)), JSON.stringify(s));

  assert.deepEqual(await sessions.rename("named", "  renamed  "), { sessionId: "named", title: "renamed" });
  assert.equal((await sessions.list()).find((s) => s.sessionId === "named")?.title, "renamed");

  assert.deepEqual(await sessions.remove(made.sessionId), { sessionId: made.sessionId, deleted: true });
  assert.deepEqual((await sessions.list()).map((s) => s.sessionId), ["named"]);

  // Another user sees none of them.
  assert.deepEqual(await createSessionsApi({ url: server.url, userId: "dave", token: TOKEN }).list(), []);

  const taken = await failure(sessions.create({ sessionId: "named" }));
  assert.equal(taken.message, `POST /sessions answered 409: session "named" already exists`);
  assert.equal((taken as Error & { status: number }).status, 409);
});

test("a fork at a user message answers its prompt, for the input; a fork of the whole keeps everything", async () => {
  fake.push({ text: "Hi." });
  const client = createHarnessClient({ url: server.url, userId: "carol", sessionId: "talk", token: TOKEN });
  const sessions = createSessionsApi({ url: server.url.replace(/^http:/, "ws:"), userId: "carol", token: TOKEN });
  try {
    await client.connect();
    client.submit("hello");
    const state = await client.waitFor((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000);
    const [hello] = state.messages;

    assert.deepEqual(await sessions.fork("talk", { messageId: hello.id, sessionId: "again" }), { sessionId: "again", prompt: "hello" });
    const whole = await sessions.fork("talk", { title: "a copy" });
    assert.equal(whole.prompt, undefined);
    assert.equal(whole.warning, undefined);
    const listed = await sessions.list();
    assert.deepEqual(listed.find((s) => s.sessionId === "again")?.messageCount, 0);
    assert.deepEqual(listed.find((s) => s.sessionId === whole.sessionId)?.title, "a copy");
    assert.deepEqual(listed.find((s) => s.sessionId === whole.sessionId)?.messageCount, 2);

    const unknownMessage = await failure(sessions.fork("talk", { messageId: "no-such-message" }));
    assert.match(unknownMessage.message, /^POST \/sessions\/talk\/fork answered 400: messageId: /);
  } finally {
    client.close();
  }
});

test("a wrong token is refused with an Error naming 401 and what the server said", async () => {
  const sessions = createSessionsApi({ url: server.url, userId: "carol", token: "not-the-token" });
  const refused = await failure(sessions.list());
  assert.equal(refused.message, "GET /sessions answered 401: missing or wrong token: send Authorization: Bearer <token> or ?token=<token>");
  assert.doesNotMatch(refused.message, /not-the-token/);
  const none = await failure(createSessionsApi({ url: server.url, userId: "carol" }).create());
  assert.match(none.message, /^POST \/sessions answered 401: /);
});

test("a session that is not there, or an id the server refuses, gets the server's message", async () => {
  const sessions = createSessionsApi({ url: server.url, userId: "carol", token: TOKEN });
  assert.equal((await failure(sessions.rename("nowhere", "x"))).message, `PATCH /sessions/nowhere answered 404: no session "nowhere"`);
  assert.equal((await failure(sessions.remove("nowhere"))).message, `DELETE /sessions/nowhere answered 404: no session "nowhere"`);
  assert.equal((await failure(sessions.fork("nowhere"))).message, `POST /sessions/nowhere/fork answered 404: no session "nowhere"`);
  const badId = await failure(sessions.rename("no spaces here", "x"));
  assert.match(badId.message, /^PATCH \/sessions\/no%20spaces%20here answered 400: sessionId: must be 1 to 128 letters/);
  const badTitle = await failure(sessions.create({ title: "   " }));
  assert.match(badTitle.message, /^POST \/sessions answered 400: title: must not be empty/);
});

test("a server that is not there is named in the Error", async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const sessions = createSessionsApi({ url: `ws://127.0.0.1:${port}/base`, userId: "carol" });
  const unreachable = await failure(sessions.list());
  assert.equal(unreachable.message, `GET /sessions: cannot reach http://127.0.0.1:${port}/base/sessions?userId=carol: fetch failed (ECONNREFUSED)`);
});

test("get() reads a conversation over HTTP, without a socket, while it is live and once it is stored", async () => {
  fake.push({ text: "read me" });
  const sessions = createSessionsApi({ url: server.url, userId: "reader", token: TOKEN });
  const { sessionId } = await sessions.create({ title: "to read" });
  assert.deepEqual(await sessions.get(sessionId), { sessionId, state: { status: "idle", messages: [] } });
  const client = createHarnessClient({ url: server.url, userId: "reader", sessionId, token: TOKEN });
  await client.connect();
  await client.run("hello", { timeoutMs: 30_000 });
  const read = await sessions.get(sessionId);
  assert.deepEqual(read.state.messages.map((m) => m.content), ["hello", "read me"]);
  assert.equal(read.state.status, "idle");
  client.close();
  const error = await failure(createSessionsApi({ url: server.url, userId: "someone-else", token: TOKEN }).get(sessionId));
  assert.equal(error.message, `GET /sessions/${sessionId} answered 404: no session "${sessionId}"`);
});
