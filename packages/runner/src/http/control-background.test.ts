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
