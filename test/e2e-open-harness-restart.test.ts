// Executions over the Open Harness API outlive the server: a restarted `harness serve` still
// answers for those that ended, and one that was under way when the server died reads as failed,
// saying so, never running forever.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startHarnessServer, waitFor } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, readSse, V1 } from "./open-harness-support.ts";

test("after a restart, an ended execution keeps its status, result, tool calls and events; one the killed server was running reads as failed", async () => {
  const h = await startHarness();
  const api = apiAs(() => h.server.url);
  try {
    h.fake.push({ text: "Looking.", toolUses: [{ name: "Glob", input: { pattern: "*.md" } }] }, { text: "Nothing there." });
    const first = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "find markdown" }) });
    const doneId = first.headers.get("x-execution-id")!;
    const events = await readSse(first);
    const before = await (await api(`${V1}/executions/${doneId}/result`)).json();
    const toolCallsBefore = await (await api(`${V1}/executions/${doneId}/tool-calls`)).json();

    h.fake.push({ text: ["half an ans"], hold: new Promise(() => {}) });
    const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "long job" }) })).json();
    await executionWhen(api, started.execution_id, (e) => e.status === "running", "ran");
    await h.server.stop("SIGKILL");
    // The runner outlives a killed server; here it dies too (else the restarted one would carry on its run).
    const db = new DatabaseSync(join(h.dataDir, "harness.db"));
    for (const { pid } of db.prepare("SELECT pid FROM runners").all() as { pid: number }[]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    db.close();
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });

    const done = (await (await api(`${V1}/executions/${doneId}`)).json()).execution;
    assert.equal(done.status, "completed");
    assert.ok(done.completed_at);
    assert.deepEqual(await (await api(`${V1}/executions/${doneId}/result`)).json(), before);
    assert.equal(before.result.output, "Looking.\n\nNothing there.");
    assert.deepEqual(await (await api(`${V1}/executions/${doneId}/tool-calls`)).json(), toolCallsBefore);
    assert.deepEqual(await readSse(await api(`${V1}/executions/${doneId}/stream`)), events);

    const cut = (await (await api(`${V1}/executions/${started.execution_id}`)).json()).execution;
    assert.equal(cut.status, "failed");
    assert.ok(cut.completed_at);
    const cutEvents = (await readSse(await api(`${V1}/executions/${started.execution_id}/stream`))).map((e) => e.data);
    assert.deepEqual(cutEvents.slice(-2).map((e) => e.type), ["error", "done"]);
    assert.match(String(cutEvents.at(-2)!.message), /server stopped/);
    const cutResult = await (await api(`${V1}/executions/${started.execution_id}/result`)).json();
    assert.equal(cutResult.result.status, "failed");
    const cancel = await api(`${V1}/executions/${started.execution_id}/cancel`, { method: "POST" });
    assert.equal(cancel.status, 409);

    const listed = await (await api(`${V1}/executions`)).json();
    assert.deepEqual(listed.data.map((e: { id: string; status: string }) => [e.id, e.status]), [[started.execution_id, "failed"], [doneId, "completed"]]);
    assert.equal((await (await api(`${V1}/executions`, { headers: { "x-harness-user": "bob" } })).json()).total, 0);
    assert.equal((await api(`${V1}/executions/${doneId}`, { headers: { "x-harness-user": "bob" } })).status, 404);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.ok(caps.execution.limitations.some((l: string) => /stored/.test(l) && /an hour/.test(l)));
  } finally {
    await h.close();
  }
});

test("an execution under way when the server is stopped (SIGTERM) reads as failed after the restart, saying why", async () => {
  const h = await startHarness();
  const api = apiAs(() => h.server.url);
  try {
    h.fake.push({ text: ["half an ans"], hold: new Promise(() => {}) });
    const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "long job" }) })).json();
    await waitFor(async () => (await (await api(`${V1}/sessions/${started.session_id}/history`)).json()).data[1]?.content === "half an ans", "the run's first words", { timeoutMs: 30_000 });
    await h.server.stop("SIGTERM");
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env });
    const execution = (await (await api(`${V1}/executions/${started.execution_id}`)).json()).execution;
    assert.equal(execution.status, "failed");
    const events = (await readSse(await api(`${V1}/executions/${started.execution_id}/stream`))).map((e) => e.data);
    assert.equal(events[0].type, "text");
    assert.deepEqual(events.slice(-2).map((e) => e.type), ["error", "done"]);
    assert.equal(events.at(-2)!.code, "server_stopped");
    assert.match(String(events.at(-2)!.message), /server stopped/);
  } finally {
    await h.close();
  }
});
