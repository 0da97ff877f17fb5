import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import { KEEP_RUNNING_HEADER, type RunnerEvent } from "@harness/protocol";
import type { ApprovalDecision, BackendContext } from "../backend.ts";
import { RunnerHttpError } from "../client/client.ts";
import { MAX_STREAM_BACKLOG_BYTES } from "./sse-response.ts";
import { collect, fakeBackend, never, post, startRunner, usage, waitFor, waitForAbort } from "../test-support.ts";

type Iter = AsyncIterator<RunnerEvent>;

/** Reads events until one matches; returns everything read. */
async function readUntil(iter: Iter, match: (e: RunnerEvent) => boolean): Promise<RunnerEvent[]> {
  const seen: RunnerEvent[] = [];
  for (;;) {
    const next = await iter.next();
    if (next.done) assert.fail(`the stream ended before the expected event; saw ${seen.map((e) => e.type).join(", ")}`);
    seen.push(next.value);
    if (match(next.value)) return seen;
  }
}

function requestIdOf(events: RunnerEvent[]): string {
  const started = events[0];
  assert.ok(started?.type === "run.started");
  return started.requestId;
}

/** A promise and its resolver. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { open, opened };
}

const strip = (events: RunnerEvent[]) => events.map(({ seq: _seq, ...rest }) => rest);

test("control endpoints validate their bodies naming the field, and unknown runs and calls get 404", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => waitForAbort(ctx));
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "hold", interactive: true }, { signal: never(), keepRunning: true })[Symbol.asyncIterator]();
  const id = requestIdOf(await readUntil(iter, (e) => e.type === "run.started"));
  const run = `${url}/runs/${id}`;

  for (const action of ["approve", "deny", "steer", "cancel", "configure"]) {
    const answer = await post(`${url}/runs/no-such-run/${action}`, { toolUseId: "t", message: "m" });
    assert.equal(answer.status, 404, action);
    assert.match(answer.body.error ?? "", /no run "no-such-run"/);
  }
  const events404 = await fetch(`${url}/runs/no-such-run/events`);
  assert.equal(events404.status, 404);
  assert.match(((await events404.json()) as { error: string }).error, /no run "no-such-run"/);

  const bad: [string, unknown, RegExp][] = [
    ["approve", {}, /^toolUseId: /],
    ["approve", "{not json", /^body is not valid JSON/],
    ["approve", { toolUseId: "" }, /^toolUseId: /],
    ["deny", { toolUseId: 5 }, /^toolUseId: /],
    ["deny", { toolUseId: "t", reason: 3 }, /^reason: /],
    ["steer", {}, /^message: /],
    ["steer", { message: "" }, /^message: /],
    ["steer", { message: "half \ud83d of a pair" }, /^message: must be well-formed Unicode \(it holds a lone surrogate\)$/],
    ["configure", { model: 1 }, /^model: /],
    ["configure", { effort: "extreme" }, /^effort: /],
    ["configure", { bogus: true }, /bogus/],
    ["approve", { toolUseId: "t", behavior: "allow" }, /^body: unknown field "behavior"$/],
    ["deny", { toolUseId: "t", reasons: "no" }, /^body: unknown field "reasons"$/],
    ["steer", { message: "m", mesage: "m" }, /^body: unknown field "mesage"$/],
    ["configure", { maxTurns: -1 }, /^maxTurns: /],
    // As many as a query may ask for, no more.
    ["configure", { maxTurns: 10_001 }, /^maxTurns: Too big: expected number to be <=10000$/],
  ];
  for (const [action, body, message] of bad) {
    const answer = await post(`${run}/${action}`, body);
    assert.equal(answer.status, 400, `${action} ${JSON.stringify(body)}`);
    assert.match(answer.body.error ?? "", message);
  }
  for (const action of ["approve", "deny"]) {
    const answer = await post(`${run}/${action}`, { toolUseId: "toolu_unknown" });
    assert.equal(answer.status, 404);
    assert.match(answer.body.error ?? "", /^toolUseId: no approval is pending for tool call "toolu_unknown"/);
  }
  for (const id of ["abc", "0x1", "1e0", "1.0", "-1"]) {
    const badId = await fetch(`${run}/events`, { headers: { "last-event-id": id } });
    assert.equal(badId.status, 400, id);
    assert.match(((await badId.json()) as { error: string }).error, /^Last-Event-ID: must be an event id/, id);
  }
  const future = await fetch(`${run}/events`, { headers: { "last-event-id": "99" } });
  assert.equal(future.status, 400);
  assert.match(((await future.json()) as { error: string }).error, /after the last event/);
  assert.equal((await fetch(`${run}/approve`)).status, 405, "GET on a POST route");

  assert.deepEqual((await post(`${run}/cancel`, "")).body, { ok: true });
  const rest = await readUntil(iter, (e) => e.type === "run.error");
  assert.deepEqual(rest.at(-1), { type: "run.error", seq: 2, message: "cancelled" });
  await waitFor(async () => !(await client.health()).busy, "the run to end");

  const late = await post(`${run}/steer`, { message: "too late" });
  assert.equal(late.status, 409);
  assert.match(late.body.error ?? "", /already finished/);
  assert.equal((await post(`${run}/configure`, { model: "m" })).status, 409);
  assert.equal((await post(`${run}/cancel`, {})).status, 200, "cancelling a finished run is harmless");
});

test("two approvals pending at once are answered independently; the decisions reach the backend", async (t) => {
  const decisions: ApprovalDecision[] = [];
  const backend = fakeBackend(async (_q, ctx) => {
    assert.ok(ctx.requestApproval, "an interactive run can ask");
    const [a, b] = await Promise.all([
      ctx.requestApproval({ toolUseId: "a", toolName: "Bash", description: "make build", input: { command: "make build" } }),
      ctx.requestApproval({ toolUseId: "b", toolName: "Write", description: "notes.txt" }),
    ]);
    decisions.push(a, b);
    return { ok: true, result: "done", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p", interactive: true }, { signal: never() })[Symbol.asyncIterator]();
  let seen = await readUntil(iter, (e) => e.type === "approval.requested" && e.toolUseId === "b");
  const id = requestIdOf(seen);

  assert.deepEqual((await post(`${url}/runs/${id}/deny`, { toolUseId: "b", reason: "not that file" })).body, { ok: true });
  seen = seen.concat(await readUntil(iter, (e) => e.type === "approval.resolved"));
  assert.equal((await post(`${url}/runs/${id}/deny`, { toolUseId: "b" })).status, 404, "already answered");
  await post(`${url}/runs/${id}/approve`, { toolUseId: "a" });
  seen = seen.concat(await readUntil(iter, (e) => e.type === "run.completed"));

  assert.deepEqual(strip(seen).slice(1, -1), [
    { type: "approval.requested", toolUseId: "a", toolName: "Bash", description: "make build", input: { command: "make build" } },
    { type: "approval.requested", toolUseId: "b", toolName: "Write", description: "notes.txt" },
    { type: "approval.resolved", toolUseId: "b", behavior: "deny", reason: "not that file" },
    { type: "approval.resolved", toolUseId: "a", behavior: "allow" },
  ]);
  assert.deepEqual(decisions, [{ behavior: "allow" }, { behavior: "deny", reason: "not that file" }]);

  // Headless: nobody can be asked.
  await collect(client.query({ prompt: "p" }, { signal: never() })).catch(() => {});
  assert.equal(backend.runs[1].ctx.requestApproval, undefined);
});

test("cancelling a run denies its pending approvals with 'cancelled'", async (t) => {
  let decision: ApprovalDecision | undefined;
  const backend = fakeBackend(async (_q, ctx) => {
    decision = await ctx.requestApproval!({ toolUseId: "a", toolName: "Bash", description: "x" });
    return { ok: false, message: "cancelled" };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p", interactive: true }, { signal: never(), keepRunning: true })[Symbol.asyncIterator]();
  const id = requestIdOf(await readUntil(iter, (e) => e.type === "approval.requested"));
  await post(`${url}/runs/${id}/cancel`, {});
  const rest = await readUntil(iter, (e) => e.type === "run.error");
  assert.deepEqual(strip(rest), [
    { type: "approval.resolved", toolUseId: "a", behavior: "deny", reason: "cancelled" },
    { type: "run.error", message: "cancelled" },
  ]);
  assert.deepEqual(decision, { behavior: "deny", reason: "cancelled" });
});

test("steer messages reach the backend in order, and configure listeners get each body", async (t) => {
  const steered: string[] = [];
  const configs: unknown[] = [];
  const allIn = gate();
  const backend = fakeBackend(async (_q, ctx: BackendContext) => {
    ctx.onConfigure((c) => configs.push(c));
    const take = (m: string) => {
      steered.push(m);
      ctx.emit({ type: "user.message", text: m, steer: true });
      if (steered.length === 3) allIn.open();
    };
    ctx.steering.take().forEach(take);
    const stop = ctx.steering.subscribe(take);
    await allIn.opened;
    stop();
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const id = requestIdOf(await readUntil(iter, (e) => e.type === "run.started"));
  await post(`${url}/runs/${id}/steer`, { message: "one" });
  await post(`${url}/runs/${id}/configure`, { model: "m2", effort: "high" });
  await post(`${url}/runs/${id}/steer`, { message: "two" });
  await post(`${url}/runs/${id}/configure`, { permissionMode: "acceptEdits" });
  await post(`${url}/runs/${id}/steer`, { message: "three" });
  const rest = await readUntil(iter, (e) => e.type === "run.completed");
  assert.deepEqual(steered, ["one", "two", "three"]);
  assert.deepEqual(
    rest.filter((e) => e.type === "user.message").map((e) => (e as { text: string }).text),
    ["one", "two", "three"],
  );
  assert.deepEqual(configs, [{ model: "m2", effort: "high" }, { permissionMode: "acceptEdits" }]);
});

test("a steer message that arrives as the run ends is reported, not silently lost", async (t) => {
  const release = gate();
  const backend = fakeBackend(async () => {
    await release.opened;
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const id = requestIdOf(await readUntil(iter, (e) => e.type === "run.started"));
  await post(`${url}/runs/${id}/steer`, { message: "also do X" });
  release.open();
  const rest = await readUntil(iter, (e) => e.type === "run.completed");
  const notice = rest.find((e) => e.type === "notice");
  assert.ok(notice?.type === "notice" && notice.level === "warning");
  assert.match(notice.message, /did not reach the model: also do X/);
  const end = rest.at(-1);
  assert.deepEqual(end?.type === "run.completed" && end.unreadSteers, ["also do X"], "the run's end names it, for a server that never heard of it");
});

test("keep-running: the run outlives its request, and re-attaching after event 3 gets exactly events 4..n", async (t) => {
  const release = gate();
  const backend = fakeBackend(async (_q, ctx) => {
    ctx.emit({ type: "assistant.delta", text: "a" });
    ctx.emit({ type: "assistant.delta", text: "b" });
    await release.opened;
    ctx.emit({ type: "assistant.delta", text: "c" });
    ctx.emit({ type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "ls" } });
    ctx.emit({ type: "tool.completed", toolUseId: "t1", output: "x", isError: false });
    ctx.emit({ type: "assistant.delta", text: "d" });
    return { ok: true, result: "abcd", usage, transcript: [], sessionId: "backend-session", turns: [usage], model: "m1" };
  });
  const { client } = await startRunner(t, { backend });
  const controller = new AbortController();
  const iter = client.query({ prompt: "p" }, { signal: controller.signal, keepRunning: true })[Symbol.asyncIterator]();
  const first = await readUntil(iter, (e) => e.seq === 3);
  const id = requestIdOf(first);
  controller.abort();
  await assert.rejects(iter.next(), { name: "AbortError" });

  // Two listeners join while the run is still going; the run itself was not cancelled.
  const live = [collect(client.events(id, { afterSeq: 0, signal: never() })), collect(client.events(id, { afterSeq: 2, signal: never() }))];
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(backend.runs[0].ctx.signal.aborted, false);
  assert.equal((await client.health()).busy, true);
  release.open();
  const [fromStart, fromTwo] = await Promise.all(live);
  await waitFor(async () => !(await client.health()).busy, "the run to end");

  const tail = await collect(client.events(id, { afterSeq: 3, signal: never() }));
  assert.deepEqual(
    tail.map((e) => e.seq),
    [4, 5, 6, 7, 8],
  );
  assert.deepEqual(strip(tail), [
    { type: "assistant.delta", text: "c" },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "ls" } },
    { type: "tool.completed", toolUseId: "t1", output: "x", isError: false },
    { type: "assistant.delta", text: "d" },
    { type: "run.completed", result: "abcd", usage, transcript: [], transcriptId: (tail[4] as { transcriptId?: string }).transcriptId, sessionId: "backend-session", turns: [usage], model: "m1" },
  ]);
  assert.match((tail[4] as { transcriptId?: string }).transcriptId ?? "", /^[0-9a-f-]{36}$/);
  assert.deepEqual(fromStart.slice(0, 3), first);
  assert.deepEqual(fromStart.slice(3), tail);
  assert.deepEqual(fromTwo, fromStart.slice(2));
});

test("a reader that stops reading is cut off once far behind rather than buffered for; the run goes on, and re-attaching gets the rest", async (t) => {
  const chunk = "x".repeat(1024 * 1024);
  const count = Math.ceil((3 * MAX_STREAM_BACKLOG_BYTES) / chunk.length);
  const backend = fakeBackend(async (_q, ctx) => {
    for (let i = 0; i < count; i++) {
      ctx.emit({ type: "assistant.delta", text: chunk });
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { ok: true, result: "done", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(`${url}/query`, { method: "POST", headers: { "content-type": "application/json", [KEEP_RUNNING_HEADER]: "1" } }, resolve);
    req.on("error", reject).end(JSON.stringify({ prompt: "p" }));
  });
  res.pause();
  await waitFor(() => backend.runs.length === 1, "the run to start");
  await waitFor(async () => !(await client.health()).busy, "the run to end");

  const text = await new Promise<string>((resolve) => {
    let read = "";
    res.on("data", (data: Buffer) => (read += data.toString()));
    res.on("error", () => {});
    res.on("close", () => resolve(read));
    res.resume();
  });
  const whole = text.split("\n\n").slice(0, -1);
  assert.ok(!whole.some((frame) => frame.includes("event: run.completed")), "the stream was cut before its end");
  const last = whole.length;
  assert.ok(last < count, `${last} of ${count + 2} events reached the reader`);
  assert.match(whole[0], /^id: 1\n/);
  const requestId = (JSON.parse(whole[0].split("data: ")[1]) as { requestId: string }).requestId;
  const rest = await collect(client.events(requestId, { afterSeq: last, signal: never() }));
  assert.deepEqual(
    rest.map((e) => e.seq),
    Array.from({ length: count + 2 - last }, (_, i) => last + 1 + i),
  );
  assert.equal(rest.at(-1)?.type, "run.completed");
});

test("a reader that re-attaches to a run from far back gets its events to the end while it reads, however much is replayed", async (t) => {
  const chunk = "x".repeat(1024 * 1024);
  const count = Math.ceil((1.5 * MAX_STREAM_BACKLOG_BYTES) / chunk.length);
  let attached = () => {};
  const attachedNow = new Promise<void>((resolve) => (attached = resolve));
  const backend = fakeBackend(async (_q, ctx) => {
    for (let i = 0; i < count; i++) ctx.emit({ type: "assistant.delta", text: chunk });
    await attachedNow;
    // The run goes on while the replay is read.
    for (let i = 0; i < 50; i++) {
      ctx.emit({ type: "assistant.delta", text: "y" });
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { ok: true, result: "done", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(`${url}/query`, { method: "POST", headers: { "content-type": "application/json", [KEEP_RUNNING_HEADER]: "1" } }, resolve);
    req.on("error", reject).end(JSON.stringify({ prompt: "p" }));
  });
  const first = await new Promise<string>((resolve) => res.once("data", (data: Buffer) => resolve(data.toString())));
  res.destroy();
  const requestId = (JSON.parse(first.split("data: ")[1].split("\n")[0]) as { requestId: string }).requestId;
  await waitFor(() => backend.runs.length === 1, "the run to start");

  const events = client.events(requestId, { afterSeq: 0, signal: never() });
  attached();
  const seen = await collect(events);
  assert.equal(seen.length, 1 + count + 50 + 1, "run.started, the deltas and the end");
  assert.equal(seen.at(-1)?.type, "run.completed");
});

test("a finished run stays available for a while; runs beyond the kept few are forgotten", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => {
    ctx.emit({ type: "assistant.delta", text: "x" });
    return { ok: true, result: "x", usage, transcript: [] };
  });
  const { client } = await startRunner(t, { backend, retention: { keepMs: 60_000, keepRuns: 2 } });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(requestIdOf(await collect(client.query({ prompt: "p" }, { signal: never() }))));
  await assert.rejects(collect(client.events(ids[0], { afterSeq: 0, signal: never() })), (err: unknown) => err instanceof RunnerHttpError && err.status === 404);
  for (const id of ids.slice(1)) {
    const events = await collect(client.events(id, { afterSeq: 1, signal: never() }));
    assert.deepEqual(
      events.map((e) => e.type),
      ["assistant.delta", "run.completed"],
    );
  }
});

test("re-attaching from before the oldest kept event gets 410 naming what is still kept", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => {
    for (let i = 0; i < 10; i++) ctx.emit({ type: "assistant.delta", text: String(i) });
    return { ok: true, result: "x", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend, eventLimits: { maxEvents: 5, maxBytes: 1e9 } });
  const id = requestIdOf(await collect(client.query({ prompt: "p" }, { signal: never() })));
  const res = await fetch(`${url}/runs/${id}/events`, { headers: { "last-event-id": "2" } });
  assert.equal(res.status, 410);
  assert.match(((await res.json()) as { error: string }).error, /no longer all kept \(the oldest kept is 8\)/);
  const tail = await collect(client.events(id, { afterSeq: 7, signal: never() }));
  assert.deepEqual(
    tail.map((e) => e.seq),
    [8, 9, 10, 11, 12],
  );
});

test("a permission mode sent while calls wait for approval says that those it does not decide still need an answer", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => {
    await ctx.requestApproval!({ toolUseId: "a", toolName: "Bash", description: "make" });
    return { ok: true, result: "done", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p", interactive: true }, { signal: never() })[Symbol.asyncIterator]();
  const seen = await readUntil(iter, (e) => e.type === "approval.requested");
  const id = requestIdOf(seen);
  assert.deepEqual((await post(`${url}/runs/${id}/configure`, { model: "m2" })).body, { ok: true });
  assert.deepEqual((await post(`${url}/runs/${id}/configure`, { permissionMode: "bypassPermissions" })).body, { ok: true });
  const notice = (await readUntil(iter, (e) => e.type === "notice")).at(-1) as { message: string };
  assert.equal(notice.message, "The call already waiting for approval needs an answer still: the new permission mode does not decide it.");
  await post(`${url}/runs/${id}/approve`, { toolUseId: "a" });
  const rest = await readUntil(iter, (e) => e.type === "run.completed");
  assert.equal(rest.filter((e) => e.type === "notice").length, 0, "one notice, for the mode change only");
});

test("an approval request the run answers itself (a new permission mode decided it) is settled and no longer pending", async (t) => {
  let settle: (decision: { behavior: "allow"; reason: string }) => void = () => {};
  const answered = new Promise<{ behavior: "allow"; reason: string }>((resolve) => (settle = resolve));
  const backend = fakeBackend(async (_q, ctx) => {
    const decision = await ctx.requestApproval!({ toolUseId: "a", toolName: "Edit", description: "a.txt", answered });
    return { ok: true, result: decision.behavior, usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p", interactive: true }, { signal: never() })[Symbol.asyncIterator]();
  const id = requestIdOf(await readUntil(iter, (e) => e.type === "approval.requested"));
  settle({ behavior: "allow", reason: "allowed by the permission mode acceptEdits" });
  const rest = await readUntil(iter, (e) => e.type === "run.completed");
  const resolved = rest.find((e) => e.type === "approval.resolved") as { behavior: string; reason?: string } | undefined;
  assert.deepEqual(resolved && [resolved.behavior, resolved.reason], ["allow", "allowed by the permission mode acceptEdits"]);
  assert.equal(rest.filter((e) => e.type === "notice").length, 0);
  assert.equal((rest.at(-1) as { result?: string }).result, "allow");
  assert.equal((await post(`${url}/runs/${id}/approve`, { toolUseId: "a" })).status, 404, "nothing is left to answer");
});

test("ids too long to name anything are refused before any lookup, and ids echoed in errors are cut short", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => waitForAbort(ctx));
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "hold", interactive: true }, { signal: never(), keepRunning: true })[Symbol.asyncIterator]();
  const run = `${url}/runs/${requestIdOf(await readUntil(iter, (e) => e.type === "run.started"))}`;
  const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

  const longRun = "r".repeat(5000);
  for (const [method, action] of [["POST", "cancel"], ["POST", "approve"], ["GET", "events"]]) {
    const res = await fetch(`${url}/runs/${longRun}/${action}`, { method, headers: { "content-type": "application/json" }, ...(method === "POST" && { body: "{}" }) });
    assert.equal(res.status, 400, action);
    assert.equal(await errorOf(res), "run id: must be at most 128 characters (it has 5000)", action);
  }
  const undecodable = await fetch(`${url}/runs/%E0${"x".repeat(5000)}/cancel`, { method: "POST" });
  assert.equal(undecodable.status, 400);
  assert.ok((await errorOf(undecodable)).length < 200, "a run id that cannot be decoded is echoed in part");

  // A toolUseId of a megabyte fits the body, yet names no tool call.
  for (const action of ["approve", "deny"]) {
    const huge = await post(`${run}/${action}`, { toolUseId: "t".repeat(1_000_000) });
    assert.equal(huge.status, 400, action);
    assert.equal(huge.body.error, "toolUseId: must be at most 256 characters (it has 1000000)");
  }
  const unknownCall = await post(`${run}/approve`, { toolUseId: "u".repeat(256) });
  assert.equal(unknownCall.status, 404);
  assert.match(unknownCall.body.error ?? "", /^toolUseId: no approval is pending for tool call "u{40}…" \(256 characters\) in run /);

  const longLastId = await fetch(`${run}/events`, { headers: { "last-event-id": "9".repeat(10_000) } });
  assert.equal(longLastId.status, 400);
  assert.equal(await errorOf(longLastId), `Last-Event-ID: must be an event id (a whole number ≥ 0), got "${"9".repeat(40)}…" (10000 characters)`);

  const longPath = await fetch(`${url}/${"p".repeat(5000)}`);
  assert.equal(longPath.status, 404);
  assert.ok((await errorOf(longPath)).length < 200, "an unknown path is echoed in part");

  assert.deepEqual((await post(`${run}/cancel`, {})).body, { ok: true });
  await readUntil(iter, (e) => e.type === "run.error");
});

test("cancel takes no body or an empty JSON object; anything else is refused, and the run goes on", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => waitForAbort(ctx));
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "hold" }, { signal: never(), keepRunning: true })[Symbol.asyncIterator]();
  const cancel = `${url}/runs/${requestIdOf(await readUntil(iter, (e) => e.type === "run.started"))}/cancel`;
  const send = async (body: string, contentType = "application/json") => {
    const res = await fetch(cancel, { method: "POST", headers: { "content-type": contentType }, body });
    return { status: res.status, error: ((await res.json()) as { error?: string }).error };
  };

  assert.deepEqual(await send('{"reason":"x"}'), { status: 400, error: 'body: unknown field "reason"' });
  assert.deepEqual(await send("[]"), { status: 400, error: "body: Invalid input: expected object, received array" });
  assert.equal((await send("{nope")).status, 400);
  assert.deepEqual(await send("{}", "text/plain"), { status: 415, error: "the body is text/plain: send JSON, with Content-Type: application/json" });
  const large = await send(JSON.stringify({ padding: "x".repeat(100_000) }));
  assert.equal(large.status, 413);
  assert.match(large.error ?? "", /^body is larger than \d+ bytes$/);
  assert.equal((await client.health()).busy, true, "a refused cancel leaves the run going");

  const bare = await fetch(cancel, { method: "POST" });
  assert.deepEqual([bare.status, await bare.json()], [200, { ok: true }]);
  assert.deepEqual((await readUntil(iter, (e) => e.type === "run.error")).at(-1), { type: "run.error", seq: 2, message: "cancelled" });
  assert.equal((await send("{}")).status, 200, "the client's own body");
});

test("stop-agent reaches the backend's listener; a call with no sub-agent running is 404, a bad body 400", async (t) => {
  const stopped = gate<string>();
  const backend = fakeBackend(async (_q, ctx: BackendContext) => {
    const unsubscribe = ctx.onStopAgent!((toolUseId) => {
      if (toolUseId !== "toolu_task") return false;
      stopped.open(toolUseId);
      return true;
    });
    await stopped.opened;
    unsubscribe();
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const id = requestIdOf(await readUntil(iter, (e) => e.type === "run.started"));
  const bad = await post(`${url}/runs/${id}/stop-agent`, {});
  assert.equal(bad.status, 400);
  assert.match(bad.body.error ?? "", /^toolUseId: /);
  const other = await post(`${url}/runs/${id}/stop-agent`, { toolUseId: "toolu_other" });
  assert.equal(other.status, 404);
  assert.match(other.body.error ?? "", /no sub-agent of Task call "toolu_other" is running/);
  await client.control(id, { type: "stop-agent", toolUseId: "toolu_task" });
  assert.equal(await stopped.opened, "toolu_task");
  await readUntil(iter, (e) => e.type === "run.completed");
  const ended = await post(`${url}/runs/${id}/stop-agent`, { toolUseId: "toolu_task" });
  assert.equal(ended.status, 409);
});
