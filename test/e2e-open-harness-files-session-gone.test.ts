// The Open Harness files of a session deleted while they are written: the deletion removes its
// workspace, and a write that comes after it never makes that workspace again (404, as any other
// request for the session).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

test("a batch upload whose session is deleted meanwhile stops with 404 and leaves no workspace behind", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const workspace = h.workspace("alice", session.id);
    assert.ok(!existsSync(workspace), "no workspace before anything is written");
    const form = new FormData();
    form.append("session_id", session.id);
    for (let i = 0; i < 500; i++) form.append("files", new Blob([Buffer.alloc(64 * 1024, 97)]), `f${i}.txt`);
    const uploading = fetch(`${h.server.url}${V1}/files/upload-batch`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
    // Once its files are being written: the first made the workspace.
    while (!existsSync(workspace)) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);
    const uploaded = await uploading;
    const body = await uploaded.json();
    assert.equal(uploaded.status, 404, `the upload ends when its session is gone: ${JSON.stringify(body).slice(0, 300)}`);
    assert.equal(body.error.code, "session_not_found");
    assert.ok(!existsSync(workspace), "the deleted session's workspace is not made again");

    // A file written, or a folder made, for the session gone is refused alike, and makes nothing.
    const put = await api(`${V1}/files/late.txt?session_id=${session.id}`, { method: "PUT", body: "late" });
    assert.equal(put.status, 404);
    const mkdir = await api(`${V1}/files/mkdir`, { method: "POST", body: JSON.stringify({ session_id: session.id, path: "late" }) });
    assert.equal(mkdir.status, 404);
    assert.ok(!existsSync(workspace));
  } finally {
    await h.close();
  }
});
