// Kept transcripts: a query names the transcript the last run left instead of sending it, and the
// query's own stream brings back only the messages the run added.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser, type RunnerEvent, type RunnerQuery, type TranscriptMessage } from "@harness/protocol";
import { createRunnerClient, workspaceUrl } from "../client/client.ts";
import { createRunnerHost } from "../host.ts";
import { collect, fakeBackend, listen, never, post, startRunner, tempDir, usage } from "../test-support.ts";
import { createTranscriptMemory } from "./transcripts.ts";
import { createServer } from "node:http";
import type { Backend } from "../backend.ts";

const user = (text: string): TranscriptMessage => ({ role: "user", content: text });
const reply = (text: string): TranscriptMessage => ({ role: "assistant", content: [{ type: "text", text }] });

/** A backend that answers "ok" and leaves the history it was given plus the prompt and its reply. */
function echoBackend(): Backend & { runs: { query: RunnerQuery }[] } {
  return fakeBackend(async (query) => ({
    ok: true,
    result: "ok",
    usage,
    transcript: [...(query.history ?? []), user(query.prompt), reply(`re: ${query.prompt}`)],
  }));
}

/** POSTs a query and returns the status and the events exactly as the runner sent them. */
async function rawQuery(url: string, body: unknown): Promise<{ status: number; events: RunnerEvent[]; error?: string }> {
  const res = await fetch(`${url}/query`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, events: [], error: (JSON.parse(text) as { error: string }).error };
  const events: RunnerEvent[] = [];
  createSseParser((m) => events.push(JSON.parse(m.data) as RunnerEvent)).push(text);
  return { status: res.status, events };
}

const lastOf = (events: RunnerEvent[]) => events.at(-1) as Extract<RunnerEvent, { type: "run.completed" }>;

test("the memory keeps each slot's last transcript, within one budget shared by all, the least recently used going first", () => {
  const memory = createTranscriptMemory(100);
  const a = memory.slot();
  const b = memory.slot();
  const first = [user("a1")];
  const idA1 = a.keep(first, 40);
  assert.deepEqual(a.get(idA1), { transcript: first, bytes: 40 });
  const idA2 = a.keep([user("a2")], 40);
  assert.equal(a.get(idA1), undefined, "a slot keeps only its last");
  assert.equal(memory.bytes, 40);
  const idB = b.keep([user("b")], 50);
  assert.equal(b.get(idA2), undefined, "one slot's id means nothing to another");
  assert.equal(memory.bytes, 90);
  // a was used after b: b goes when the budget is exceeded.
  assert.ok(a.get(idA2));
  const c = memory.slot();
  const idC = c.keep([user("c")], 30);
  assert.equal(b.get(idB), undefined);
  assert.ok(a.get(idA2));
  assert.ok(c.get(idC));
  assert.equal(memory.bytes, 70);
  // The newest stays even when it alone is over the budget.
  const idBig = b.keep([user("big")], 500);
  assert.ok(b.get(idBig));
  assert.equal(a.get(idA2), undefined);
  assert.equal(c.get(idC), undefined);
  assert.equal(memory.bytes, 500);
  b.clear();
  assert.equal(b.get(idBig), undefined);
  assert.equal(memory.bytes, 0);
});

test("a query that asks for it gets only the added messages on its stream; the client hands them over whole", async (t) => {
  const backend = echoBackend();
  const { url, client } = await startRunner(t, { backend });
  const history = [user("one"), reply("re: one")];

  const raw = await rawQuery(url, { prompt: "two", history, transcriptAdded: true });
  assert.equal(raw.status, 200);
  const end = lastOf(raw.events);
  assert.equal(end.type, "run.completed");
  assert.equal(end.transcriptFrom, 2);
  assert.deepEqual(end.transcript, [user("two"), reply("re: two")]);

  // The client asks for the short form itself and puts the history back in front.
  const events = await collect(client.query({ prompt: "three", history }, { signal: never() }));
  const whole = lastOf(events);
  assert.equal(whole.transcriptFrom, undefined);
  assert.deepEqual(whole.transcript, [...history, user("three"), reply("re: three")]);
  assert.equal(backend.runs[1].query.transcriptAdded, true);

  // Re-attaching reads the last event whole.
  const requestId = (events[0] as { requestId: string }).requestId;
  const again = lastOf(await collect(client.events(requestId, { afterSeq: 0, signal: never() })));
  assert.equal(again.transcriptFrom, undefined);
  assert.deepEqual(again.transcript, whole.transcript);
  assert.equal(again.transcriptId, whole.transcriptId);
});

test("a query that names the kept transcript runs on it without carrying it; a stale id is refused with 412 and the client sends the history", async (t) => {
  const backend = echoBackend();
  const { url, client } = await startRunner(t, { backend });
  const first = lastOf(await collect(client.query({ prompt: "one", history: [] }, { signal: never() })));
  assert.ok(first.transcriptId);

  const second = lastOf(await collect(client.query({ prompt: "two", history: first.transcript, historyId: first.transcriptId }, { signal: never() })));
  // The runner used what it kept: the very messages its last run left, not a copy sent over.
  const kept = backend.runs[1].query;
  assert.equal(kept.historyId, undefined);
  assert.deepEqual(kept.history, first.transcript);
  assert.deepEqual(second.transcript, [user("one"), reply("re: one"), user("two"), reply("re: two")]);
  assert.notEqual(second.transcriptId, first.transcriptId);

  const stale = await rawQuery(url, { prompt: "three", historyId: first.transcriptId });
  assert.equal(stale.status, 412);
  assert.match(stale.error ?? "", new RegExp(`does not keep transcript ${first.transcriptId}.*send the history`));
  assert.equal(backend.runs.length, 2, "a refused query runs nothing");

  const third = lastOf(await collect(client.query({ prompt: "three", history: second.transcript, historyId: first.transcriptId }, { signal: never() })));
  assert.equal(backend.runs.length, 3);
  assert.deepEqual(backend.runs[2].query.history, second.transcript);
  assert.equal(third.transcript?.length, 6);

  const both = await post(`${url}/query`, { prompt: "x", history: [], historyId: "abc" });
  assert.equal(both.status, 400);
  assert.match(String(both.body.error), /historyId: send history or historyId, not both/);
  const long = await post(`${url}/query`, { prompt: "x", historyId: "x".repeat(129) });
  assert.equal(long.status, 400);
  assert.match(String(long.body.error), /^historyId: /);
});

test("a backend whose transcript does not begin with the history's own messages sends it whole", async (t) => {
  const backend = fakeBackend(async (query) => ({
    ok: true,
    result: "ok",
    usage,
    // Rebuilt messages (as a backend with a conversation of its own might): equal, but not the same.
    transcript: [...structuredClone(query.history ?? []), user(query.prompt)],
  }));
  const { url } = await startRunner(t, { backend });
  const end = lastOf((await rawQuery(url, { prompt: "two", history: [user("one")], transcriptAdded: true })).events);
  assert.equal(end.transcriptFrom, undefined);
  assert.deepEqual(end.transcript, [user("one"), user("two")]);
});

test("a run that fails keeps its transcript too, and a workspace cannot use another's", async (t) => {
  const backend = fakeBackend(async (query) => ({ ok: false, message: "model overloaded", usage, transcript: [...(query.history ?? []), user(query.prompt)] }));
  const host = createRunnerHost({ workspace: tempDir(t), backend });
  const server = createServer(host.handle);
  const base = await listen(server);
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  for (const id of ["w1", "w2"]) {
    const res = await fetch(`${base}/workspaces/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ workspace: tempDir(t) }) });
    assert.equal(res.status, 200);
  }
  const w1 = createRunnerClient(workspaceUrl(base, "w1"));
  const failed = lastOf(await collect(w1.query({ prompt: "one", history: [] }, { signal: never() }))) as unknown as Extract<RunnerEvent, { type: "run.error" }>;
  assert.equal(failed.type, "run.error");
  assert.ok(failed.transcriptId);
  const other = await rawQuery(workspaceUrl(base, "w2"), { prompt: "two", historyId: failed.transcriptId });
  assert.equal(other.status, 412);
  assert.equal((await rawQuery(workspaceUrl(base, "w1"), { prompt: "two", historyId: failed.transcriptId })).status, 200);
});

test("a runner that says the transcript starts past the history the query sent, or sent none, is refused naming both", async (t) => {
  const end = 'id: 1\nevent: run.completed\ndata: {"type":"run.completed","seq":1,"transcript":[{"role":"user","content":"x"}],"transcriptFrom":5}\n\n';
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(end);
  });
  const url = await listen(server);
  t.after(() => server.close());
  const client = createRunnerClient(url);
  await assert.rejects(
    collect(client.query({ prompt: "p", history: [user("one")] }, { signal: never() })),
    /runner sent a run\.completed whose transcript starts after message 5, but the query sent 1 messages of history/,
  );
  await assert.rejects(collect(client.query({ prompt: "p" }, { signal: never() })), /starts after message 5, but the query sent no history/);
});
