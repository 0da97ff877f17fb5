// POST /runs/:id/background: a running Bash call moved to the background, through the backend's listener.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RunnerEvent } from "@harness/protocol";
import type { BackendContext } from "../backend.ts";
import { fakeBackend, never, post, startRunner, usage } from "../test-support.ts";

async function readUntil(iter: AsyncIterator<RunnerEvent>, match: (e: RunnerEvent) => boolean): Promise<RunnerEvent[]> {
  const seen: RunnerEvent[] = [];
  for (;;) {
    const next = await iter.next();
    if (next.done) assert.fail(`the stream ended before the expected event; saw ${seen.map((e) => e.type).join(", ")}`);
    seen.push(next.value);
    if (match(next.value)) return seen;
  }
}

test("background reaches the backend's listeners, with the call's id or none; no such call running is 404, a bad body 400, a finished run 409", async (t) => {
  const asked: (string | undefined)[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const backend = fakeBackend(async (_q, ctx: BackendContext) => {
    // One running Bash call, "toolu_bash".
    const unsubscribe = ctx.onBackground!((toolUseId) => {
      if (toolUseId !== undefined && toolUseId !== "toolu_bash") return false;
      asked.push(toolUseId);
      if (asked.length === 2) done();
      return true;
    });
    await finished;
    unsubscribe();
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const started = (await readUntil(iter, (e) => e.type === "run.started"))[0];
  assert.ok(started?.type === "run.started");
  const id = started.requestId;
  for (const body of [{ toolUseId: "" }, { toolUseId: 3 }, { toolUseId: "toolu_bash", extra: true }]) {
    const bad = await post(`${url}/runs/${id}/background`, body);
    assert.equal(bad.status, 400, JSON.stringify(body));
  }
  const other = await post(`${url}/runs/${id}/background`, { toolUseId: "toolu_other" });
  assert.equal(other.status, 404);
  assert.match(other.body.error ?? "", /no Bash call "toolu_other" is running/);
  await client.control(id, { type: "background", toolUseId: "toolu_bash" });
  await client.control(id, { type: "background" });
  assert.deepEqual(asked, ["toolu_bash", undefined]);
  await readUntil(iter, (e) => e.type === "run.completed");
  const ended = await post(`${url}/runs/${id}/background`, {});
  assert.equal(ended.status, 409);
});

test("a request for a Bash call announced but not yet listening is held until it listens; one that never starts is told in a notice", async (t) => {
  let release!: () => void;
  const checked = new Promise<void>((resolve) => (release = resolve));
  const moved: string[] = [];
  const backend = fakeBackend(
    async (_q, ctx: BackendContext) => {
      ctx.emit({ type: "tool.started", toolName: "Bash", toolUseId: "toolu_slow" });
      ctx.emit({ type: "tool.started", toolName: "Bash", toolUseId: "toolu_refused" });
      // The calls' checks (hooks, permission) take a while: the user's request comes meanwhile.
      await checked;
      ctx.emit({ type: "tool.completed", toolUseId: "toolu_refused", output: "refused", isError: true, denied: true });
      const unsubscribe = ctx.onBackground!((toolUseId) => {
        if (toolUseId !== "toolu_slow") return false;
        moved.push(toolUseId);
        return true;
      });
      ctx.emit({ type: "tool.completed", toolUseId: "toolu_slow", output: "Command was manually backgrounded by user with ID: abc123.", isError: false });
      unsubscribe();
      return { ok: true, result: "ok", usage, transcript: [] };
    },
    { movesToBackground: true },
  );
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const seen = await readUntil(iter, (e) => e.type === "tool.started" && e.toolUseId === "toolu_refused");
  const id = (seen[0] as Extract<RunnerEvent, { type: "run.started" }>).requestId;
  await client.control(id, { type: "background", toolUseId: "toolu_slow" });
  await client.control(id, { type: "background", toolUseId: "toolu_refused" });
  const unknown = await post(`${url}/runs/${id}/background`, { toolUseId: "toolu_never" });
  assert.equal(unknown.status, 404);
  release();
  const rest = await readUntil(iter, (e) => e.type === "run.completed");
  assert.deepEqual(moved, ["toolu_slow"]);
  const notices = rest.flatMap((e) => (e.type === "notice" ? [e.message] : []));
  assert.deepEqual(notices, ["The Bash call toolu_refused ended before its command started (it was refused): nothing went to the background."]);
});

test("kill-shell reaches the backend's listener: 200 with what it did, 404 for a shell it does not know, 409 for one not running", async (t) => {
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const backend = fakeBackend(async (_q, ctx: BackendContext) => {
    const unsubscribe = ctx.onKillShell!((shellId) => {
      if (shellId === "ab12cd") return { outcome: "killed", message: "Killed background shell ab12cd: sleep 30" };
      if (shellId === "ef34ab") return { outcome: "not-running", message: "Background shell ef34ab is not running (completed): nothing to kill." };
      return { outcome: "unknown", message: `No background shell "${shellId}".` };
    });
    await finished;
    unsubscribe();
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const started = (await readUntil(iter, (e) => e.type === "run.started"))[0] as Extract<RunnerEvent, { type: "run.started" }>;
  const id = started.requestId;
  assert.equal((await post(`${url}/runs/${id}/kill-shell`, {})).status, 400);
  const killed = await post(`${url}/runs/${id}/kill-shell`, { shellId: "ab12cd" });
  assert.equal(killed.status, 200);
  const ended = await post(`${url}/runs/${id}/kill-shell`, { shellId: "ef34ab" });
  assert.equal(ended.status, 409);
  assert.match(ended.body.error ?? "", /not running \(completed\)/);
  const unknown = await post(`${url}/runs/${id}/kill-shell`, { shellId: "nope" });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error ?? "", /no background shell "nope"/);
  done();
  await readUntil(iter, (e) => e.type === "run.completed");
  assert.equal((await post(`${url}/runs/${id}/kill-shell`, { shellId: "ab12cd" })).status, 409);
});
