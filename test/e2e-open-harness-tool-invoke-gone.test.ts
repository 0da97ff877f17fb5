// A tool called directly over the Open Harness API whose client goes away, or whose server stops,
// mid-call, through a real server and its real runner: the command stops, and the session is usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, V1 } from "./open-harness-support.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function pidIn(file: string): Promise<number> {
  let pid = 0;
  await until(async () => (pid = Number((await readFile(file, "utf8").catch(() => "")).trim())) > 0, "the command to start");
  return pid;
}

test("a call whose client goes away mid-call (no stream) stops its command; a prompt goes through after", async () => {
  const h = await startHarness();
  try {
    const api = apiAs(h.server.url);
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const settings = { permissions: { allow: ["Bash", "Edit"] } };
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(settings) })).status, 201);
    const controller = new AbortController();
    const call = api(`${V1}/tools/Bash/invoke${q}`, { method: "POST", body: JSON.stringify({ input: { command: "echo $$ > pid.txt; sleep 300" } }), signal: controller.signal });
    call.catch(() => {});
    const pid = await pidIn(join(h.workspace("alice", session.id), "pid.txt"));
    assert.ok(alive(pid));
    controller.abort();
    await until(() => !alive(pid), "the command's process to be gone");
    h.fake.push({ text: "Here." });
    let execution: Record<string, unknown> = {};
    await until(async () => {
      const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "still there?", session_id: session.id }) })).json();
      execution = await executionWhen(api, started.execution_id, (e) => e.status !== "running" && e.status !== "pending", "ended");
      return execution.status === "completed";
    }, "a prompt to go through");
    assert.equal(execution.status, "completed");
  } finally {
    await h.close();
  }
});

test("a server stopped mid-call stops its command and ends the call's stream", async () => {
  const h = await startHarness();
  try {
    const api = apiAs(h.server.url);
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const settings = { permissions: { allow: ["Bash", "Edit"] } };
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(settings) })).status, 201);
    const call = await api(`${V1}/tools/Bash/invoke/stream${q}`, { method: "POST", body: JSON.stringify({ input: { command: "echo $$ > pid.txt; sleep 300" } }) });
    assert.equal(call.status, 200);
    const pid = await pidIn(join(h.workspace("alice", session.id), "pid.txt"));
    const read = call.text().catch((error: Error) => `cut: ${error.message}`);
    const stopping = Date.now();
    await h.server.stop();
    assert.ok(Date.now() - stopping < 15_000, "the server did not wait out the command");
    const events = await read;
    assert.match(events, /"type":"done","success":false/);
    await until(() => !alive(pid), "the command's process to be gone");
  } finally {
    await h.close();
  }
});
