// The Open Harness executions' artifacts: the files of the session's workspace a run wrote or
// edited, listed and downloaded as they are now, never anything outside the workspace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1 } from "./open-harness-support.ts";

/** A webhook receiver on loopback: the bodies it was sent. */
async function receiver() {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, close: () => new Promise((resolve) => server.close(resolve)) };
}

test("an execution's artifacts are the files its run wrote: listed, counted, in its result and webhook, and downloaded as they are now", async () => {
  const h = await startHarness({}, { HARNESS_WEBHOOKS_ALLOW_PRIVATE: "1" });
  const api = apiAs(h.server.url);
  const hook = await receiver();
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  const error = async (response: Response) => ({ status: response.status, ...(await response.json()).error });
  try {
    assert.equal((await api(`${V1}/webhooks`, { method: "POST", body: JSON.stringify({ url: hook.url, events: ["execution.completed"] }) })).status, 201);
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const workspace = h.workspace("alice", session.id);
    const client = await h.connect(session.id);
    client.send({ type: "configure", config: { permissionMode: "acceptEdits" } });
    await client.waitForState((s) => (s as { config?: { permissionMode?: string } }).config?.permissionMode === "acceptEdits", 10_000, "the mode");
    await client.close();

    h.fake.push(
      {
        toolUses: [
          { name: "Write", input: { file_path: "out/report.md", content: "# Report\n" } },
          // Refused (no content): no file, no artifact.
          { name: "Write", input: { file_path: "broken.txt" } },
        ],
      },
      // In a reply of its own: calls of one reply may run together, and their files then come in
      // the order the comparison lists them.
      { toolUses: [{ name: "Write", input: { file_path: join(workspace, "data.json"), content: "{}\n" } }] },
      { toolUses: [{ name: "Edit", input: { file_path: "out/report.md", old_string: "# Report", new_string: "# Final report" } }] },
      { text: "Written." },
    );
    const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "write the report", session_id: session.id }) });
    const id = stream.headers.get("x-execution-id")!;
    const events = (await readSse(stream)).map((e) => e.data);
    assert.equal(events.at(-1)!.type, "done");

    const { artifacts } = await (await api(`${V1}/executions/${id}/artifacts`)).json();
    assert.deepEqual(artifacts, [
      { id: "1", name: "out/report.md", mime_type: "text/markdown", size_bytes: "# Final report\n".length },
      { id: "2", name: "data.json", mime_type: "application/json", size_bytes: 3 },
    ]);
    assert.equal((await (await api(`${V1}/executions/${id}`)).json()).execution.artifacts_count, 2);
    assert.deepEqual((await (await api(`${V1}/executions/${id}/result`)).json()).result.artifacts, artifacts);
    assert.equal((await (await api(`${V1}/executions`)).json()).data[0].artifacts_count, 2);
    await waitFor(() => hook.bodies.length > 0, "the webhook of the execution's end");
    assert.deepEqual(hook.bodies.map((b) => [b.execution_id, b.artifacts]), [[id, artifacts]]);

    const report = await api(`${V1}/executions/${id}/artifacts/1`);
    assert.equal(report.status, 200);
    assert.equal(report.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.match(report.headers.get("content-disposition") ?? "", /^attachment; filename="report.md"/);
    assert.equal(await report.text(), "# Final report\n");

    // As they are now: a file deleted since is gone; one swapped for a link out of the workspace is
    // never read through it.
    await writeFile(join(outside, "secret.txt"), "not yours\n");
    assert.equal((await api(`${V1}/files/data.json?session_id=${session.id}`, { method: "DELETE" })).status, 204);
    await rm(join(workspace, "out", "report.md"));
    await symlink(join(outside, "secret.txt"), join(workspace, "out", "report.md"));
    assert.deepEqual((await (await api(`${V1}/executions/${id}/artifacts`)).json()).artifacts, []);
    assert.equal((await (await api(`${V1}/executions/${id}`)).json()).execution.artifacts_count, 0);
    for (const artifact of ["1", "2"]) {
      const e = await error(await api(`${V1}/executions/${id}/artifacts/${artifact}`));
      assert.equal(e.status, 404);
      assert.equal(e.code, "artifact_not_found");
      assert.match(e.message, /no longer a file in the session's workspace/);
      assert.doesNotMatch(e.message, /secret|harness-outside/);
    }

    // A run that writes nothing has none, though its session's earlier run had some.
    h.fake.push({ text: "Nothing to write." });
    const quiet = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "just say", session_id: session.id }) });
    const quietId = quiet.headers.get("x-execution-id")!;
    await readSse(quiet);
    await writeFile(join(workspace, "data.json"), "{}\n");
    assert.deepEqual((await (await api(`${V1}/executions/${quietId}/artifacts`)).json()).artifacts, []);
    assert.equal((await api(`${V1}/executions/${id}/artifacts/2`)).status, 200, "the file is back where the run wrote it");

    // Bad input and others' executions.
    let e = await error(await api(`${V1}/executions/${id}/artifacts/3`));
    assert.equal(e.status, 404);
    assert.equal(e.code, "artifact_not_found");
    e = await error(await api(`${V1}/executions/${id}/artifacts/report.md`));
    assert.equal(e.status, 400);
    assert.match(e.message, /^artifactId: /);
    e = await error(await api(`${V1}/executions/nope/artifacts`));
    assert.equal(e.code, "execution_not_found");
    const bob = apiAs(h.server.url, "bob");
    assert.equal((await error(await bob(`${V1}/executions/${id}/artifacts`))).code, "execution_not_found");
    assert.equal((await error(await bob(`${V1}/executions/${id}/artifacts/1`))).code, "execution_not_found");

    // Once its session is deleted, the execution has no artifacts (its workspace went with it).
    assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);
    assert.deepEqual((await (await api(`${V1}/executions/${id}/artifacts`)).json()).artifacts, []);

    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities.execution;
    assert.ok(caps.operations.includes("execution.listArtifacts") && caps.operations.includes("execution.downloadArtifact"));
  } finally {
    await h.close();
    await hook.close();
    await rm(outside, { recursive: true, force: true });
  }
});
