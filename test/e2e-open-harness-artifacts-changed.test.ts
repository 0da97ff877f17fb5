// An execution's artifacts are every file of the workspace its run created or changed, whatever tool
// did it (a shell command too), as the run's file checkpoint sees them, each announced on the
// execution's stream as it appears; a file deleted since is not listed, and a run that only reads
// takes no checkpoint and has no artifacts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { apiAs, readSse, V1, type Api, type Sse } from "./open-harness-support.ts";

/** A new session of alice's whose runs ask nobody. */
async function session(h: Harness, api: Api): Promise<string> {
  const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  const client = await h.connect(session.id);
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } });
  await client.waitForState((s) => (s as { config?: { permissionMode?: string } }).config?.permissionMode === "fullAuto", 10_000, "the mode");
  await client.close();
  return session.id;
}

async function execute(api: Api, sessionId: string, message: string, seen?: (event: Sse) => void) {
  const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message, session_id: sessionId }) });
  const id = stream.headers.get("x-execution-id")!;
  const events = (await readSse(stream, seen)).map((e) => e.data);
  return { id, events };
}

test("files a shell command writes are artifacts, announced on the stream as they appear; deleted ones are not listed", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const sessionId = await session(h, api);
    const workspace = h.workspace("alice", sessionId);
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, "notes.md"), "draft\n");
    await writeFile(join(workspace, "old.txt"), "old\n");

    let announceTmp!: () => void;
    const tmpAnnounced = new Promise<void>((resolve) => (announceTmp = resolve));
    h.fake.push(
      { toolUses: [{ name: "Bash", input: { command: "mkdir -p build .git node_modules/x && printf 'hi\\n' > build/out.txt && echo t > tmp.txt && echo g > .git/made && echo n > node_modules/x/made", description: "build" } }] },
      { toolUses: [{ name: "Read", input: { file_path: "notes.md" } }] },
      { toolUses: [{ name: "Edit", input: { file_path: "notes.md", old_string: "draft", new_string: "final" } }] },
      // Only once tmp.txt was announced: a file gone when the server looks at it is not (its id taken).
      { toolUses: [{ name: "Bash", input: { command: "rm tmp.txt old.txt", description: "clean up" } }], hold: Promise.race([tmpAnnounced, sleep(30_000, undefined, { ref: false })]) },
      { text: "Built." },
    );
    const { id, events } = await execute(api, sessionId, "build it", (event) => {
      if (event.data.type === "artifact" && event.data.name === "tmp.txt") announceTmp();
    });
    assert.equal(events.at(-1)!.type, "done");
    assert.equal(events.filter((e) => e.type === "error").length, 0, JSON.stringify(events));

    // Announced as each appeared, after the call that made it and before the run's end.
    const announced = events.filter((e) => e.type === "artifact");
    const out = { type: "artifact", id: "1", name: "build/out.txt", mime_type: "text/plain", size_bytes: 3 };
    const notes = { type: "artifact", id: "3", name: "notes.md", mime_type: "text/markdown", size_bytes: "final\n".length };
    assert.deepEqual(announced, [out, { type: "artifact", id: "2", name: "tmp.txt", mime_type: "text/plain", size_bytes: 2 }, notes]);
    const kinds = events.filter((e) => e.type !== "text").map((e) => String(e.type === "artifact" ? e.name : e.type === "tool_result" ? "result" : e.type));
    assert.deepEqual(kinds.filter((k) => !k.startsWith("tool_call")), ["result", "build/out.txt", "tmp.txt", "result", "result", "notes.md", "result", "done"]);

    // Listed as they are now: the deleted ones are not; .git and node_modules are never artifacts.
    const { artifacts } = await (await api(`${V1}/executions/${id}/artifacts`)).json();
    assert.deepEqual(artifacts, [
      { id: "1", name: "build/out.txt", mime_type: "text/plain", size_bytes: 3 },
      { id: "3", name: "notes.md", mime_type: "text/markdown", size_bytes: 6 },
    ]);
    assert.equal((await (await api(`${V1}/executions/${id}`)).json()).execution.artifacts_count, 2);
    assert.deepEqual((await (await api(`${V1}/executions/${id}/result`)).json()).result.artifacts, artifacts);
    const download = await api(`${V1}/executions/${id}/artifacts/1`);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), "hi\n");
    const gone = await api(`${V1}/executions/${id}/artifacts/2`);
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, "artifact_not_found");

    // A run that only reads takes no checkpoint (in a session of its own, its first run) and has no
    // artifacts, though the workspace's files change meanwhile.
    const readerId = await session(h, api);
    const readerSpace = h.workspace("alice", readerId);
    await mkdir(readerSpace, { recursive: true });
    await writeFile(join(readerSpace, "a.txt"), "a\n");
    h.fake.push({ toolUses: [{ name: "Read", input: { file_path: "a.txt" } }] }, { text: "It says a." });
    const read = await execute(api, readerId, "read a.txt");
    assert.equal(read.events.at(-1)!.type, "done");
    assert.deepEqual(read.events.filter((e) => e.type === "artifact"), []);
    await writeFile(join(readerSpace, "b.txt"), "b\n");
    assert.deepEqual((await (await api(`${V1}/executions/${read.id}/artifacts`)).json()).artifacts, []);
    const trees = join(h.dataDir, "state", "alice", readerId, "checkpoints.git", "refs", "harness", "trees");
    assert.deepEqual(existsSync(trees) ? readdirSync(trees) : [], [], "no snapshot was taken");
  } finally {
    await h.close();
  }
});

test("a sub-agent's files are the execution's artifacts; a run that makes thousands lists a capped number and says so", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const sessionId = await session(h, api);
    h.fake.push(
      { toolUses: [{ id: "toolu_task", name: "Task", input: { description: "write", prompt: "Write sub.txt", subagent_type: "general-purpose" } }] },
      // The sub-agent's turns.
      { toolUses: [{ name: "Bash", input: { command: "echo sub > sub.txt", description: "write sub.txt" } }] },
      { text: "Written." },
      { text: "The helper wrote it." },
    );
    const sub = await execute(api, sessionId, "have it written");
    assert.equal(sub.events.at(-1)!.type, "done");
    assert.deepEqual(sub.events.filter((e) => e.type === "artifact"), [{ type: "artifact", id: "1", name: "sub.txt", mime_type: "text/plain", size_bytes: 4 }]);
    assert.deepEqual((await (await api(`${V1}/executions/${sub.id}/artifacts`)).json()).artifacts.map((a: { name: string }) => a.name), ["sub.txt"]);

    h.fake.push({ toolUses: [{ name: "Bash", input: { command: "mkdir many && cd many && seq 1 1200 | xargs touch", description: "make many" } }] }, { text: "Made." });
    const many = await execute(api, sessionId, "make many");
    assert.equal(many.events.at(-1)!.type, "done");
    assert.equal(many.events.filter((e) => e.type === "artifact").length, 1000);
    const listed = await (await api(`${V1}/executions/${many.id}/artifacts`)).json();
    assert.equal(listed.artifacts.length, 1000);
    assert.equal(listed.truncated, true);
    assert.equal((await (await api(`${V1}/executions/${sub.id}/artifacts`)).json()).truncated, undefined);
  } finally {
    await h.close();
  }
});
