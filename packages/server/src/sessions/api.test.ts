// Sessions over HTTP, with hand-driven runners: list, create, rename, delete, fork; another user's
// session is never found; bad input is answered 400 naming the field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { workspaceTmpDir } from "@harness/agent/sandbox-tmp-dir";
import { bashModePrompt } from "@harness/protocol";
import { MinimalClient } from "@harness/test-utils";
import type { HarnessServer } from "../server.ts";
import { call, frameRecorder, withFakeServer, waitFor, type fakeRunners } from "../test-helpers.ts";
import { titleFromPrompt } from "../sqlite/catalog.ts";

type Runners = ReturnType<typeof fakeRunners>;

/** A conversation of two finished runs in session `sessionId` of `userId`, through a real socket. */
async function converse(server: HarnessServer, runners: Runners, userId: string, sessionId: string, prompts = ["first prompt", "second prompt"]) {
  const client = await MinimalClient.connect(server.url, { userId, sessionId });
  await client.waitForState(() => true);
  for (const [i, prompt] of prompts.entries()) {
    client.send({ type: "submit", prompt });
    const run = await runners.runners.get(`${userId}/${sessionId}`)!.nextRun();
    const transcript = [...(run.body.history ?? []), { role: "user" as const, content: prompt }, { role: "assistant" as const, content: `answer ${i}` }];
    run.emit({ type: "run.started", requestId: `r${i}` }, { type: "assistant.delta", text: `answer ${i}` }, { type: "run.completed", transcript });
    await client.waitForState((s) => s.status === "idle" && s.messages.length === 2 * (i + 1) && s.messages.at(-1)!.status === "complete");
  }
  return client;
}

test("create, list, rename: titles default to the first prompt; newest first; ids and bodies are checked", async () => {
  await withFakeServer({}, async (server, runners) => {
    assert.deepEqual(await call(server, "POST", "/sessions", { userId: "alice", sessionId: "named", title: "Refactor" }), { status: 201, body: { sessionId: "named" } });
    const made = await call(server, "POST", "/sessions", {}, { "x-harness-user": "alice" });
    assert.equal(made.status, 201);
    assert.match(made.body.sessionId, /^[0-9a-f-]{36}$/);
    assert.equal((await call(server, "POST", "/sessions", { userId: "alice", sessionId: "named" })).status, 409);

    const client = await converse(server, runners, "alice", "talk", ["  Explain\nthe difference between a mutex and a semaphore, with examples in C please"]);
    await client.close();
    await waitFor(async () => (await call(server, "GET", "/sessions?userId=alice")).body.length === 3, "the conversation to be stored");
    const list = await call(server, "GET", "/sessions?userId=alice");
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.map((s: { sessionId: string }) => s.sessionId), ["talk", made.body.sessionId, "named"]);
    const talk = list.body[0];
    assert.equal(talk.title, "Explain the difference between a mutex and a semaphore, with");
    assert.equal(talk.title.length, 60);
    assert.equal(talk.messageCount, 2);
    assert.equal(talk.status, "idle");
    assert.ok(Date.parse(talk.createdAt) <= Date.parse(talk.updatedAt));
    assert.equal(list.body[2].title, "Refactor");

    assert.deepEqual(await call(server, "PATCH", "/sessions/talk", { userId: "alice", title: "Locks" }), { status: 200, body: { sessionId: "talk", title: "Locks" } });
    assert.equal((await call(server, "GET", "/sessions", undefined, { "x-harness-user": "alice" })).body[0].title, "Locks");
    assert.deepEqual((await call(server, "GET", "/sessions?userId=bob")).body, []);

    // Open on a socket, never used: not listed, yet it can be named, and then it is.
    const opened = await MinimalClient.connect(server.url, { userId: "alice", sessionId: "opened" });
    await opened.waitForState(() => true);
    assert.ok(!(await call(server, "GET", "/sessions?userId=alice")).body.some((s: { sessionId: string }) => s.sessionId === "opened"));
    assert.equal((await call(server, "POST", "/sessions", { userId: "alice", sessionId: "opened" })).status, 409);
    assert.deepEqual(await call(server, "PATCH", "/sessions/opened", { userId: "alice", title: "Later" }), { status: 200, body: { sessionId: "opened", title: "Later" } });
    assert.equal((await call(server, "GET", "/sessions?userId=alice")).body.find((s: { sessionId: string }) => s.sessionId === "opened")?.title, "Later");
    assert.equal((await call(server, "PATCH", "/sessions/never", { userId: "alice", title: "x" })).status, 404);
    await opened.close();
  });
});

test("bad input is answered 400 naming what is wrong", async () => {
  await withFakeServer({}, async (server) => {
    const cases: [string, string, unknown, Record<string, string>, RegExp][] = [
      ["POST", "/sessions", { sessionId: "x" }, {}, /userId: is required/],
      ["POST", "/sessions", { userId: "a/b" }, {}, /userId: must be 1 to 128 letters/],
      ["POST", "/sessions", { userId: "a", sessionId: ".." }, {}, /sessionId: must not be/],
      ["POST", "/sessions", { userId: "a", title: "" }, {}, /title: must not be empty/],
      ["POST", "/sessions", { userId: "a", colour: "red" }, {}, /colour/],
      ["POST", "/sessions", "{nope", {}, /not valid JSON/],
      ["POST", "/sessions", { userId: "a" }, { "x-harness-user": "b" }, /^userId: the x-harness-user header and the body name different users$/],
      ["POST", "/sessions?userId=b", { userId: "a" }, {}, /^userId: the query and the body name different users$/],
      ["DELETE", "/sessions/s?userId=b", { userId: "a" }, {}, /^userId: the query and the body name different users$/],
      ["GET", "/sessions?userId=a&userId=b", undefined, {}, /^userId: is given 2 times in the query$/],
      ["POST", "/sessions", { userId: "a", title: "red\u001b[31m" }, {}, /^title: must not contain control characters$/],
      ["POST", "/sessions", { userId: "a", title: "a\u202eb" }, {}, /^title: must not contain control characters$/],
      ["POST", "/sessions/s/fork", { userId: "a", messageId: "m".repeat(201) }, {}, /^messageId: must be at most 200 characters$/],
      ["POST", "/sessions", {}, { "x-harness-user": "../etc" }, /x-harness-user: must be 1 to 128/],
      ["GET", "/sessions", undefined, {}, /userId: is required/],
      ["GET", "/sessions?userId=a%20b", undefined, {}, /userId: must be/],
      ["PATCH", "/sessions/s", { userId: "a" }, {}, /title/],
      ["PATCH", "/sessions/s", { userId: "a", title: 5 }, {}, /title/],
      ["PATCH", "/sessions/s", '{"userId":"a","title":"a\\ud800b"}', {}, /^title: must not contain unpaired surrogates$/],
      ["PATCH", "/sessions/s", { userId: "a", title: "  \t " }, {}, /^title: must not be empty$/],
      ["PATCH", "/sessions/s", { userId: "a", title: "t".repeat(201) }, {}, /^title: must be at most 200 characters$/],
      ["PATCH", "/sessions/s", { userId: "a", title: "two\nlines" }, {}, /^title: must not contain control characters$/],
      ["DELETE", "/sessions/s", undefined, {}, /userId: is required/],
      ["POST", "/sessions/s/fork", { userId: "a", messageId: 3 }, {}, /messageId/],
      ["POST", "/sessions", null, {}, /^body: Invalid input: expected object, received null$/],
      ["POST", "/sessions", [1], {}, /^body: /],
    ];
    for (const [method, path, body, headers, message] of cases) {
      const answer = await call(server, method, path, body, headers);
      assert.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.match(answer.body.error, message, `${method} ${path}`);
    }
    const big = { userId: "a", title: "t".repeat(70 * 1024) };
    assert.deepEqual(await call(server, "POST", "/sessions", big), { status: 413, body: { error: "body is larger than 65536 bytes" } });
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/sessions`, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      for (let i = 0; i < 20; i++) req.write("x".repeat(8 * 1024));
      req.end();
    });
    assert.equal(chunked, 413, "a body without a length is cut off at the limit too");
    const notUtf8 = await fetch(`${server.url}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.concat([Buffer.from('{"userId":"a","title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    });
    assert.equal(notUtf8.status, 400);
    assert.deepEqual(await notUtf8.json(), { error: "body is not valid UTF-8" });
    assert.equal((await call(server, "GET", "/sessions?userId=a")).status, 200, "and the server goes on");

    // A known path asked with a method it does not take: 405 and what it takes.
    for (const [method, path, allow] of [
      ["PUT", "/sessions/s1", "GET, PATCH, DELETE, HEAD"],
      ["POST", "/health", "GET, HEAD"],
      ["DELETE", "/sessions", "GET, POST, HEAD"],
      ["GET", "/sessions/s1/fork", "POST"],
    ]) {
      const res = await fetch(server.url + path, { method });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), allow, `${method} ${path}`);
      assert.match(((await res.json()) as { error: string }).error, new RegExp(`^${method} is not allowed on ${path}: use ${allow}$`));
    }
    assert.equal((await fetch(`${server.url}/nowhere`)).status, 404);
    // Routes have no trailing slash: such a path is unknown, not a known one refusing the method.
    assert.equal((await fetch(`${server.url}/sessions/?userId=a`)).status, 404);

    // A body that is not JSON by its type or encoding: 415, saying what to send.
    for (const [headers, message] of [
      [{ "content-type": "application/x-www-form-urlencoded" }, /^the body is application\/x-www-form-urlencoded: send JSON, with Content-Type: application\/json$/],
      [{ "content-type": "application/json", "content-encoding": "gzip" }, /^Content-Encoding gzip is not supported/],
    ] as const) {
      const res = await fetch(`${server.url}/sessions`, { method: "POST", headers, body: JSON.stringify({ userId: "a" }) });
      assert.equal(res.status, 415);
      assert.match(((await res.json()) as { error: string }).error, message);
    }
    assert.equal((await call(server, "POST", "/sessions?userId=q", {})).status, 201, "the user may be named in the query");
  });
});

test("deletes of one session at once: one deletes it, the others find it gone", async () => {
  await withFakeServer({}, async (server, runners) => {
    await converse(server, runners, "u", "doomed");
    const answers = await Promise.all(Array.from({ length: 8 }, () => call(server, "DELETE", "/sessions/doomed?userId=u")));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 404, 404, 404, 404, 404, 404, 404]);
    assert.deepEqual((await call(server, "GET", "/sessions?userId=u")).body, []);
  });
});

test("another user's session is not found, whatever is asked of it", async () => {
  await withFakeServer({}, async (server, runners) => {
    const client = await converse(server, runners, "alice", "private");
    const asBob = { "x-harness-user": "bob" };
    assert.equal((await call(server, "PATCH", "/sessions/private", { title: "mine now" }, asBob)).status, 404);
    assert.equal((await call(server, "DELETE", "/sessions/private", undefined, asBob)).status, 404);
    assert.equal((await call(server, "POST", "/sessions/private/fork", {}, asBob)).status, 404);
    assert.equal((await call(server, "DELETE", "/sessions/private?userId=bob")).status, 404);
    assert.equal((await call(server, "PATCH", "/sessions/nothing", { userId: "alice", title: "x" })).status, 404);
    assert.deepEqual((await call(server, "GET", "/sessions?userId=bob")).body, []);
    // And resume cannot reach it either.
    const bob = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "mine" });
    bob.send({ type: "resume", sessionId: "private", prompt: "tell me" });
    await bob.waitForErrors(1);
    assert.equal(bob.errors[0].code, "not_found");
    assert.equal(client.state!.messages.length, 4, "untouched");
    await Promise.all([client.close(), bob.close()]);
  });
});

test("with a token, a rename needs it as the other session routes do; the title is kept trimmed", async () => {
  await withFakeServer({ token: "s3cret" }, async (server) => {
    const auth = { authorization: "Bearer s3cret" };
    assert.equal((await call(server, "POST", "/sessions", { userId: "alice", sessionId: "guarded" }, auth)).status, 201);
    const refused = await call(server, "PATCH", "/sessions/guarded", { userId: "alice", title: "Taken over" });
    assert.equal(refused.status, 401);
    assert.match(refused.body.error, /token/);
    assert.equal((await call(server, "PATCH", "/sessions/guarded", { userId: "alice", title: "x" }, { authorization: "Bearer wrong" })).status, 401);
    assert.deepEqual(await call(server, "PATCH", "/sessions/guarded", { userId: "alice", title: "  Locks  " }, auth), { status: 200, body: { sessionId: "guarded", title: "Locks" } });
    assert.deepEqual((await call(server, "GET", "/sessions?userId=alice", undefined, auth)).body.map((s: { title: string }) => s.title), ["Locks"]);
  });
});

test("the list shows a live session's status as it is now", async () => {
  await withFakeServer({}, async (server, runners) => {
    const client = await MinimalClient.connect(server.url, { userId: "u", sessionId: "busy" });
    client.send({ type: "submit", prompt: "work" });
    const run = await runners.runners.get("u/busy")!.nextRun();
    await waitFor(async () => (await call(server, "GET", "/sessions?userId=u")).body.length === 1, "the session to be stored");
    const [summary] = (await call(server, "GET", "/sessions?userId=u")).body;
    assert.deepEqual([summary.status, summary.messageCount, summary.title], ["running", 2, "work"]);
    run.emit({ type: "run.completed" });
    await client.waitForState((s) => s.status === "idle");
    await client.close();
  });
});

test("delete disconnects the session's clients with an error frame, stops its runner and removes its files", async () => {
  await withFakeServer({}, async (server, runners, dataDir) => {
    const client = await converse(server, runners, "u", "doomed");
    const workspace = join(dataDir, "workspaces", "u", "doomed");
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, "notes.txt"), "x");
    // What its sandboxed commands left in their temporary directory, outside the workspace.
    const tmp = workspaceTmpDir(workspace);
    await mkdir(tmp, { recursive: true });
    await writeFile(join(tmp, "scratch"), "y");
    const runner = runners.runners.get("u/doomed")!;

    assert.deepEqual(await call(server, "DELETE", "/sessions/doomed?userId=u"), { status: 200, body: { sessionId: "doomed", deleted: true } });
    await client.waitFor((c) => c.closed, 5000, "the socket to close");
    assert.equal(client.errors.at(-1)?.code, "session_deleted");
    assert.match(client.errors.at(-1)!.message, /deleted/);
    assert.equal(runner.stops, 1);
    assert.equal(existsSync(workspace), false);
    assert.equal(existsSync(tmp), false, "the sandbox's temporary directory goes too");
    assert.deepEqual((await call(server, "GET", "/sessions?userId=u")).body, []);
    assert.equal((await call(server, "DELETE", "/sessions/doomed?userId=u")).status, 404);

    // A client that was away at the time comes back to the same answer, not to a new empty session.
    for (const since of [client.seq, 0]) {
      const late = await MinimalClient.connect(server.url, { userId: "u", sessionId: "doomed", since });
      await late.waitFor((c) => c.closed, 5000, "the late client to be turned away");
      assert.deepEqual([late.errors.at(-1)?.code, late.closeCode, late.state], ["session_deleted", 4404, undefined]);
    }
    assert.deepEqual((await call(server, "GET", "/sessions?userId=u")).body, [], "nothing was made of the late clients");

    const again = await MinimalClient.connect(server.url, { userId: "u", sessionId: "doomed" });
    await again.waitForState(() => true);
    assert.deepEqual(again.state!.messages, [], "the id starts over empty");
    // Once a session of that id is made again, a client of the old one is sent its state.
    const old = await MinimalClient.connect(server.url, { userId: "u", sessionId: "doomed", since: client.seq });
    await old.waitForState(() => true);
    assert.deepEqual(old.state!.messages, []);
    await Promise.all([old.close(), again.close()]);
  });
});

test("deleting a session never touches another's files, even one named after its state directory", async () => {
  await withFakeServer({}, async (server, runners, dataDir) => {
    const neighbour = await converse(server, runners, "u", "proj.harness-state", ["keep my files"]);
    const theirs = join(dataDir, "workspaces", "u", "proj.harness-state");
    await mkdir(theirs, { recursive: true });
    await writeFile(join(theirs, "precious.txt"), "mine");
    await writeFile(join(theirs, "checkpoints.jsonl"), "{}\n");
    const client = await converse(server, runners, "u", "proj", ["go"]);
    const state = join(dataDir, "state", "u", "proj");
    await mkdir(join(state, "checkpoints.git"), { recursive: true });

    assert.equal((await call(server, "DELETE", "/sessions/proj?userId=u")).status, 200);
    await client.waitFor((c) => c.closed, 5000, "the socket to close");
    assert.equal(existsSync(state), false, "its own state is gone");
    assert.equal(await readFile(join(theirs, "precious.txt"), "utf8"), "mine");
    assert.deepEqual(((await call(server, "GET", "/sessions?userId=u")).body as { sessionId: string }[]).map((s) => s.sessionId), ["proj.harness-state"]);
    await neighbour.close();
  });
});

test("a client of a deleted session that reconnects with since is told it was deleted, then gets a new session of that id whole, never its batches as if they followed", async () => {
  await withFakeServer({}, async (server, runners) => {
    const old = await converse(server, runners, "u", "again");
    const held = old.seq;
    assert.ok(held > 0);
    assert.equal((await call(server, "DELETE", "/sessions/again?userId=u")).status, 200);
    await old.waitFor((c) => c.closed, 5000, "the socket to close");

    // Not made again: the session is gone, as its clients were told.
    const early = await MinimalClient.connect(server.url, { userId: "u", sessionId: "again", initial: { state: old.state!, seq: held } });
    await early.waitFor((c) => c.closed, 5000, "the client to be turned away");
    assert.deepEqual([early.errors.at(-1)?.code, early.closeCode], ["session_deleted", 4404]);

    // Made again, not yet used: a state frame, the new (empty) session.
    const empty = await MinimalClient.connect(server.url, { userId: "u", sessionId: "again" });
    await empty.waitForState(() => true);
    const recreated = await MinimalClient.connect(server.url, { userId: "u", sessionId: "again", initial: { state: old.state!, seq: held } });
    await recreated.waitForState((s) => s.messages.length === 0);
    assert.equal(recreated.frames[0].type, "state");
    assert.ok(recreated.seq > held, "the new session numbers past the old one");
    await Promise.all([empty.close(), recreated.close()]);

    // Used past the old seq: still a state frame, with the new conversation only.
    const fresh = await converse(server, runners, "u", "again", ["new first", "new second"]);
    assert.ok(fresh.seq > held);
    const late = await MinimalClient.connect(server.url, { userId: "u", sessionId: "again", initial: { state: old.state!, seq: held } });
    await late.waitForState((s) => s.messages.length === 4 && s.messages[0].content === "new first");
    assert.equal(late.frames[0].type, "state");
    assert.deepEqual(late.state, fresh.state);
    await Promise.all([fresh.close(), late.close()]);
  });
});

test("a session created or forked under a deleted id numbers its batches past the deleted one's", async () => {
  await withFakeServer({}, async (server, runners) => {
    for (const [id, make] of [
      ["made", () => call(server, "POST", "/sessions", { userId: "u", sessionId: "made" })],
      ["forked", () => call(server, "POST", "/sessions/source/fork", { userId: "u", sessionId: "forked" })],
    ] as const) {
      if (id === "forked") await (await converse(server, runners, "u", "source", ["s"])).close();
      const old = await converse(server, runners, "u", id);
      const held = old.seq;
      assert.equal((await call(server, "DELETE", `/sessions/${id}?userId=u`)).status, 200);
      await old.waitFor((c) => c.closed, 5000, "the socket to close");
      assert.equal((await make()).status, 201, id);
      const back = await MinimalClient.connect(server.url, { userId: "u", sessionId: id, initial: { state: old.state!, seq: held } });
      await back.waitForState(() => true);
      assert.equal(back.frames[0].type, "state", id);
      assert.ok(back.seq > held, id);
      await back.close();
    }
  });
});

test("fork copies the conversation (all of it, or up to a message) and the files into a new session that goes on from there", async () => {
  await withFakeServer({}, async (server, runners, dataDir) => {
    const client = await converse(server, runners, "u", "source");
    const [firstPrompt, firstAnswer] = client.state!.messages;
    const workspace = join(dataDir, "workspaces", "u", "source");
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, "code.ts"), "let x = 1;\n");
    // The source's checkpoints, with a git at work on them as the fork copies them.
    const shadow = join(dataDir, "state", "u", "source", "checkpoints.git");
    await mkdir(shadow, { recursive: true });
    await writeFile(join(shadow, "index"), "the shadow index");
    await writeFile(join(shadow, "index.lock"), "");

    const all = await call(server, "POST", "/sessions/source/fork", { userId: "u", sessionId: "copy", title: "A copy" });
    assert.deepEqual(all, { status: 201, body: { sessionId: "copy" } });
    assert.equal(await readFile(join(dataDir, "workspaces", "u", "copy", "code.ts"), "utf8"), "let x = 1;\n");
    assert.deepEqual(await readdir(join(dataDir, "state", "u", "copy", "checkpoints.git")), ["index"], "the copy's checkpoints are not left locked");
    const copy = await MinimalClient.connect(server.url, { userId: "u", sessionId: "copy" });
    await copy.waitForState(() => true);
    assert.deepEqual(copy.state!.messages, client.state!.messages);
    assert.equal(copy.state!.status, "idle");

    const early = await call(server, "POST", "/sessions/source/fork", { userId: "u", messageId: firstAnswer.id, sessionId: "early" });
    assert.equal(early.status, 201);
    // These runners took no checkpoints: the files cannot be put back as they were, and the answer says so.
    assert.equal(early.body.warning, `the fork's files are the source's as they are now: there is no checkpoint of the files before message "${client.state!.messages[2].id}" (any more)`);
    assert.equal(await readFile(join(dataDir, "workspaces", "u", "early", "code.ts"), "utf8"), "let x = 1;\n");
    const branch = await MinimalClient.connect(server.url, { userId: "u", sessionId: "early" });
    await branch.waitForState(() => true);
    assert.deepEqual(branch.state!.messages.map((m) => m.content), [firstPrompt.content, firstAnswer.content]);
    branch.send({ type: "submit", prompt: "another way" });
    const run = await runners.runners.get("u/early")!.nextRun();
    assert.deepEqual(run.body.history, [{ role: "user", content: "first prompt" }, { role: "assistant", content: "answer 0" }]);
    run.emit({ type: "run.completed" });
    await branch.waitForState((s) => s.status === "idle" && s.messages.length === 4);

    const list = (await call(server, "GET", "/sessions?userId=u")).body as { sessionId: string; title: string }[];
    assert.equal(list.find((s) => s.sessionId === "copy")?.title, "A copy");
    assert.equal(list.find((s) => s.sessionId === "early")?.title, "first prompt");
    assert.equal((await call(server, "POST", "/sessions/source/fork", { userId: "u", sessionId: "copy" })).status, 409);
    await Promise.all([client.close(), copy.close(), branch.close()]);
  });
});

test("a fork made without a title has its source's given title, whether the source holds messages or none", async () => {
  await withFakeServer({}, async (server, runners) => {
    assert.equal((await call(server, "POST", "/sessions", { userId: "u", sessionId: "empty" })).status, 201);
    assert.equal((await call(server, "PATCH", "/sessions/empty", { userId: "u", title: "Plans" })).status, 200);
    await (await converse(server, runners, "u", "talk", ["first prompt"])).close();
    assert.equal((await call(server, "PATCH", "/sessions/talk", { userId: "u", title: "Locks" })).status, 200);
    await (await converse(server, runners, "u", "unnamed", ["just asking"])).close();
    for (const [source, sessionId] of [["empty", "empty-copy"], ["talk", "talk-copy"], ["unnamed", "unnamed-copy"]]) {
      assert.equal((await call(server, "POST", `/sessions/${source}/fork`, { userId: "u", sessionId })).status, 201, source);
    }
    assert.equal((await call(server, "POST", "/sessions/talk/fork", { userId: "u", sessionId: "own", title: "Mine" })).status, 201);
    const titles = Object.fromEntries((await call(server, "GET", "/sessions?userId=u")).body.map((s: { sessionId: string; title: string | null }) => [s.sessionId, s.title]));
    assert.deepEqual([titles["empty-copy"], titles["talk-copy"], titles["unnamed-copy"], titles.own], ["Plans", "Locks", "just asking", "Mine"]);
    // The copy's title is its own from then on.
    assert.equal((await call(server, "PATCH", "/sessions/empty", { userId: "u", title: "Plans, later" })).status, 200);
    assert.equal((await call(server, "GET", "/sessions?userId=u")).body.find((s: { sessionId: string }) => s.sessionId === "empty-copy")?.title, "Plans");
  });
});

test("fork copies a workspace that holds a socket or a named pipe (a daemon's, git fsmonitor's), leaving those out", async () => {
  await withFakeServer({}, async (server, _runners, dataDir) => {
    assert.equal((await call(server, "POST", "/sessions", { userId: "u", sessionId: "source" })).status, 201);
    const workspace = join(dataDir, "workspaces", "u", "source");
    await mkdir(join(workspace, ".git"), { recursive: true });
    await writeFile(join(workspace, "code.ts"), "let x = 1;\n");
    const daemon = createNetServer();
    await new Promise<void>((resolve) => daemon.listen(join(workspace, ".git", "fsmonitor--daemon.ipc"), resolve));
    try {
      execFileSync("mkfifo", [join(workspace, "pipe")]);
      const fork = await call(server, "POST", "/sessions/source/fork", { userId: "u", sessionId: "copy" });
      assert.deepEqual(fork, { status: 201, body: { sessionId: "copy" } });
      const copy = join(dataDir, "workspaces", "u", "copy");
      assert.equal(await readFile(join(copy, "code.ts"), "utf8"), "let x = 1;\n");
      assert.deepEqual((await readdir(copy)).sort(), [".git", "code.ts"]);
      assert.deepEqual(await readdir(join(copy, ".git")), []);
    } finally {
      await new Promise((resolve) => daemon.close(resolve));
    }
  });
});

test("forks racing for one id: one wins, the others get 409 and copy nothing into it", async () => {
  await withFakeServer({}, async (server, runners, dataDir) => {
    for (const source of ["a", "b"]) {
      await (await converse(server, runners, "u", source, ["p"])).close();
      const workspace = join(dataDir, "workspaces", "u", source);
      await mkdir(workspace, { recursive: true });
      for (let i = 0; i < 200; i++) await writeFile(join(workspace, `${source}${i}.txt`), source);
    }
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(server, "POST", `/sessions/${i % 2 ? "b" : "a"}/fork`, { userId: "u", sessionId: "y" })),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    const winner = answers.findIndex((a) => a.status === 201) % 2 ? "b" : "a";
    const files = await readdir(join(dataDir, "workspaces", "u", "y"));
    assert.equal(files.length, 200);
    assert.ok(files.every((name) => name.startsWith(winner)), "only the winner's files");
    assert.ok(answers.every((a) => !JSON.stringify(a.body).includes(dataDir)), "no server path in an answer");
  });
});

test("fork refuses a point inside a run or an unknown message with 400", async () => {
  await withFakeServer({}, async (server, runners) => {
    const client = await MinimalClient.connect(server.url, { userId: "u", sessionId: "steered" });
    client.send({ type: "submit", prompt: "go" });
    const run = await runners.runners.get("u/steered")!.nextRun();
    run.emit({ type: "run.started", requestId: "r" }, { type: "assistant.delta", text: "part one" }, { type: "user.message", text: "also this", steer: true }, { type: "run.completed" });
    await client.waitForState((s) => s.status === "idle" && s.messages.length === 4);
    const [, partOne, steer] = client.state!.messages;
    for (const messageId of [partOne.id, steer.id, "no-such-message"]) {
      const answer = await call(server, "POST", "/sessions/steered/fork", { userId: "u", messageId });
      assert.equal(answer.status, 400, messageId);
      assert.match(answer.body.error, /^messageId: /);
    }
    await client.close();
  });
});

test("a title is taken from the first prompt that reached the model, not from a command answered without it", async () => {
  await withFakeServer({}, async (server, runners) => {
    await (await converse(server, runners, "u", "help-first", ["/help", "  /cost ", "/compact keep the plan", bashModePrompt("ls"), "fix the build"])).close();
    await (await converse(server, runners, "u", "only-reports", ["/status", "/context"])).close();
    await (await converse(server, runners, "u", "own-command", ["/review the parser"])).close();
    const stored = async () => (await call(server, "GET", "/sessions?userId=u")).body.map((s: { messageCount: number }) => s.messageCount).sort((a: number, b: number) => a - b);
    await waitFor(async () => JSON.stringify(await stored()) === "[2,4,10]", "the conversations to be stored");
    const titles = async () => Object.fromEntries((await call(server, "GET", "/sessions?userId=u")).body.map((s: { sessionId: string; title: string | null }) => [s.sessionId, s.title]));
    assert.deepEqual(await titles(), { "help-first": "!ls", "only-reports": null, "own-command": "/review the parser" });
    assert.equal((await call(server, "PATCH", "/sessions/only-reports", { userId: "u", title: "Checks" })).status, 200);
    assert.equal((await titles())["only-reports"], "Checks");
  });
});

test("a title made from the first prompt is one line of whole characters without controls", () => {
  assert.equal(titleFromPrompt(`${"a".repeat(59)}😀 and more`), `${"a".repeat(59)}😀`);
  assert.equal(titleFromPrompt("  red\u001b[31m text\u202e\n\nnext\u0000line "), "red [31m text next line");
});

test("a session whose stored state is damaged is listed as damaged; the others are listed as ever", async () => {
  await withFakeServer({}, async (server, _runners, dataDir) => {
    for (const sessionId of ["good", "bad"]) assert.equal((await call(server, "POST", "/sessions", { userId: "carol", sessionId, title: sessionId })).status, 201);
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(join(dataDir, "harness.db"));
    db.prepare("UPDATE sessions SET state = '{not json' WHERE user_id = 'carol' AND session_id = 'bad'").run();
    db.close();
    const list = await call(server, "GET", "/sessions?userId=carol");
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const byId = Object.fromEntries(list.body.map((s: { sessionId: string; status: string }) => [s.sessionId, s.status]));
    assert.deepEqual(byId, { good: "idle", bad: "damaged" });
    // Opening it says why it cannot be opened, in a frame a client reads.
    const opened = await frameRecorder(`${server.url}/ws?userId=carol&sessionId=bad`);
    await waitFor(async () => opened.frames.length > 0, "the error frame");
    assert.equal(opened.frames[0].type, "error");
    assert.match((opened.frames[0] as { message: string }).message, /^cannot open session carol\/bad: .*JSON/);
    await opened.close();
    assert.equal((await call(server, "DELETE", "/sessions/bad?userId=carol")).status, 200, "and it can be deleted");
  });
});

test("GET /sessions/:id answers the session's state, live or stored, for a program that reads a conversation without a socket", async () => {
  await withFakeServer({}, async (server, runners) => {
    const client = await converse(server, runners, "alice", "talk");
    const live = await call(server, "GET", "/sessions/talk?userId=alice");
    assert.equal(live.status, 200);
    assert.equal(live.body.sessionId, "talk");
    assert.equal(live.body.state.status, "idle");
    assert.deepEqual(live.body.state.messages.map((m: { content: string }) => m.content), ["first prompt", "answer 0", "second prompt", "answer 1"]);
    await client.close();
    const made = await call(server, "POST", "/sessions", { userId: "alice", sessionId: "empty" });
    assert.equal(made.status, 201);
    assert.deepEqual(await call(server, "GET", "/sessions/empty", undefined, { "x-harness-user": "alice" }), { status: 200, body: { sessionId: "empty", state: { status: "idle", messages: [] } } });
    assert.equal((await call(server, "GET", "/sessions/talk?userId=bob")).status, 404);
    assert.deepEqual(await call(server, "GET", "/sessions/nope?userId=alice"), { status: 404, body: { error: 'no session "nope"' } });
    assert.equal((await call(server, "GET", "/sessions/talk")).status, 400);
  });
});
