// One runner process serving several workspaces under /workspaces/:id.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closeWorkspace, createRunnerClient, openWorkspace, RunnerHttpError } from "./client/client.ts";
import { collect, fakeBackend, never, startRunner, tempDir, usage, waitFor, waitForAbort } from "./test-support.ts";

test("two workspaces of one process run at the same time, each in its own directory, each one run at a time", async (t) => {
  const dir = tempDir(t);
  const held = fakeBackend(async (query, ctx) => {
    ctx.emit({ type: "assistant.delta", text: `in ${ctx.workspace}` });
    if (query.prompt === "hold") return waitForAbort(ctx);
    return { ok: true, result: "done", usage, transcript: [] };
  });
  const { url } = await startRunner(t, { backend: held, workspace: join(dir, "own") });
  const a = createRunnerClient(await openWorkspace(url, "ws-a", { workspace: join(dir, "a") }));
  const b = createRunnerClient(await openWorkspace(url, "ws-b", { workspace: join(dir, "b") }));
  assert.ok(existsSync(join(dir, "a")) && existsSync(join(dir, "b")), "opening creates the workspace");

  // A run held open in a does not make b busy.
  const holding = new AbortController();
  const inA = collect(a.query({ prompt: "hold" }, { signal: holding.signal })).catch(() => []);
  await waitFor(async () => (await a.health()).busy, "workspace a to be busy");
  assert.equal((await b.health()).busy, false);
  assert.equal((await createRunnerClient(url).health()).busy, true, "the process's own /health answers for all its runs");
  const events = await collect(b.query({ prompt: "go" }, { signal: never() }));
  assert.deepEqual(events.find((e) => e.type === "assistant.delta"), { type: "assistant.delta", seq: 2, text: `in ${join(dir, "b")}` });
  assert.equal(events.at(-1)?.type, "run.completed");
  await assert.rejects(collect(a.query({ prompt: "again" }, { signal: never() })), (err: unknown) => err instanceof RunnerHttpError && err.status === 409);
  holding.abort();
  await inA;
  await waitFor(async () => !(await createRunnerClient(url).health()).busy, "the process to have no run");
});

test("opening is idempotent for the same workspace and refused for another; a closed workspace is gone", async (t) => {
  const dir = tempDir(t);
  const backend = fakeBackend(async (_q, ctx) => waitForAbort(ctx));
  const { url } = await startRunner(t, { backend, workspace: join(dir, "own") });
  const first = await openWorkspace(url, "same", { workspace: join(dir, "x") });
  assert.equal(await openWorkspace(url, "same", { workspace: join(dir, "x") }), first);
  assert.equal(await openWorkspace(url, "same", { workspace: `${join(dir, "x")}/` }), first, "the same directory spelt another way");
  await assert.rejects(openWorkspace(url, "same", { workspace: join(dir, "y") }), (err: unknown) => {
    return err instanceof RunnerHttpError && err.status === 409 && /open for .*x, not .*y/.test(err.message);
  });

  // Closing cancels the run in flight.
  const client = createRunnerClient(first);
  const running = collect(client.query({ prompt: "p" }, { signal: never() }));
  await waitFor(() => backend.runs.length === 1, "the run to start");
  assert.equal(await closeWorkspace(url, "same"), true);
  const events = await running;
  assert.deepEqual(events.at(-1), { type: "run.error", seq: events.length, message: "cancelled" });
  assert.equal(await closeWorkspace(url, "same"), false, "closing twice: it is not open any more");
  await assert.rejects(client.health(), (err: unknown) => err instanceof RunnerHttpError && err.status === 404 && /no open workspace same/.test(err.message));
});

test("bad workspace requests get errors naming the problem; the process keeps serving", async (t) => {
  const dir = tempDir(t);
  const { url, client } = await startRunner(t, { backend: fakeBackend(async () => ({ ok: true, result: "", usage, transcript: [] })), workspace: join(dir, "own") });
  const put = (id: string, body: unknown) =>
    fetch(`${url}/workspaces/${id}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const relative = await put("ok-id", { workspace: "not/absolute" });
  assert.equal(relative.status, 400);
  assert.match(((await relative.json()) as { error: string }).error, /workspace.*absolute/);
  const extra = await put("ok-id", { workspace: join(dir, "w"), surprise: 1 });
  assert.equal(extra.status, 400);
  const badId = await put("no%20spaces", { workspace: join(dir, "w") });
  assert.equal(badId.status, 400);
  assert.match(((await badId.json()) as { error: string }).error, /not a workspace id/);
  writeFileSync(join(dir, "a-file"), "x");
  for (const [workspace, status, message] of [
    [join(dir, "a-file"), 400, `workspace: ${join(dir, "a-file")} is not a directory`],
    [join(dir, "a-file", "below"), 400, `workspace: ${join(dir, "a-file", "below")} is not a directory`],
    [`${dir}/w\u0000x`, 400, "workspace: must not hold a NUL character"],
    ["/", 400, "workspace: must not be the root directory"],
    // Node's recursive mkdir never returns for this one.
    ["/proc/harness-nowhere/w", 400, "workspace: /proc/harness-nowhere/w cannot be made there"],
  ] as const) {
    const res = await put("ok-id", { workspace });
    assert.equal(res.status, status, workspace);
    assert.equal(((await res.json()) as { error: string }).error, message);
  }
  const post = await fetch(`${url}/workspaces/ok-id`, { method: "POST" });
  assert.equal(post.status, 405);
  const unknown = await fetch(`${url}/workspaces/never-opened/health`);
  assert.equal(unknown.status, 404);
  assert.equal((await client.health()).ok, true, "the process's own workspace still answers");
});

test("closing a workspace ends its conversation for the reason given (other when none); a reason not known is refused", async (t) => {
  const dir = tempDir(t);
  const ended: (string | undefined)[] = [];
  const backend = fakeBackend(async () => ({ ok: true, result: "done", usage, transcript: [] }), { dispose: async (reason) => void ended.push(reason) });
  const { url } = await startRunner(t, { backend, workspace: join(dir, "own") });
  await openWorkspace(url, "left", { workspace: join(dir, "left") });
  await openWorkspace(url, "plain", { workspace: join(dir, "plain") });
  const refused = await fetch(`${url}/workspaces/left`, { method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ reason: "bored" }) });
  assert.equal(refused.status, 400);
  assert.match(((await refused.json()) as { error: string }).error, /reason/);
  assert.equal(await closeWorkspace(url, "left", { reason: "prompt_input_exit" }), true);
  assert.equal(await closeWorkspace(url, "plain"), true);
  assert.deepEqual(ended, ["prompt_input_exit", undefined]);
});
