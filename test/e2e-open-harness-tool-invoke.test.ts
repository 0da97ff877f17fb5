// tools.invoke and tools.invokeStream through a real server and its real runner: a session's tool
// called with the model's input, run as a run would run it (in its workspace, by its settings'
// permission rules and hooks), its output streamed, refusals answered with their reasons, and a
// call stopped when its request closes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, readSse, V1, type Api } from "./open-harness-support.ts";

let h: Harness;
let api: Api;
let sessionId: string;
let q: string;

before(async () => {
  h = await startHarness();
  api = apiAs(h.server.url);
  sessionId = (await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json()).session.id;
  q = `?session_id=${sessionId}`;
  const settings = {
    permissions: { allow: ["Bash", "Edit"], deny: ["Bash(rm:*)"] },
    hooks: { PreToolUse: [{ matcher: "Grep", hooks: [{ type: "command", command: "echo 'searching is off here' >&2; exit 2" }] }] },
  };
  assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(settings) })).status, 201);
  assert.equal((await api(`${V1}/files/notes.txt${q}`, { method: "PUT", body: "first line\n" })).status, 201);
});

after(() => h.close());

const invoke = (tool: string, body: unknown, path = "invoke", init: RequestInit = {}) =>
  api(`${V1}/tools/${tool}/${path}${q}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), ...init });

test("a Bash call runs in the session's workspace, and its output is the result", async () => {
  const res = await invoke("Bash", { input: { command: "cat notes.txt; echo done" } });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.success, true);
  assert.deepEqual(body.output, { content: "first line\ndone" });
  assert.ok(Number.isInteger(body.duration_ms) && body.duration_ms >= 0);
  assert.equal(body.error, undefined);

  const failed = await (await invoke("Bash", { input: { command: "echo oops >&2; exit 3" } })).json();
  assert.equal(failed.success, false);
  assert.match(failed.error, /oops[\s\S]*Exit code 3/);

  const env = await (await invoke("Bash", { input: { command: "env" } })).json();
  assert.equal(env.success, true);
  assert.ok(!env.output.content.includes("test-key"), "the server's model key is not in the command's environment");
});

test("a call a deny rule names is 403 naming the rule, and does not run; one that would ask is 403 approval_required", async () => {
  const denied = await invoke("Bash", { input: { command: "rm notes.txt" } });
  assert.equal(denied.status, 403);
  const { error } = await denied.json();
  assert.equal(error.code, "permission_denied");
  assert.match(error.message, /Bash\(rm:\*\)/);
  assert.equal(await readFile(join(h.workspace("alice", sessionId), "notes.txt"), "utf8"), "first line\n");

  const asked = await invoke("WebFetch", { input: { url: "https://example.com/", prompt: "What is it?" } }, "invoke/stream");
  assert.equal(asked.status, 403);
  const refusal = (await asked.json()).error;
  assert.equal(refusal.code, "approval_required");
  assert.equal(refusal.operation, "tools.invokeStream");
  assert.match(refusal.message, /WebFetch needs approval/);
});

test("a PreToolUse hook of the settings that blocks the call makes it 403 with the hook's reason", async () => {
  const res = await invoke("Grep", { input: { pattern: "line" } });
  assert.equal(res.status, 403);
  const { error } = await res.json();
  assert.equal(error.code, "permission_denied");
  assert.match(error.message, /searching is off here/);
});

test("calls share the conversation's file state: an Edit of a file not read fails, after a Read it is made", async () => {
  const file = join(h.workspace("alice", sessionId), "edit-me.txt");
  assert.equal((await api(`${V1}/files/edit-me.txt${q}`, { method: "PUT", body: "alpha\nbeta\n" })).status, 201);
  const edit = { input: { file_path: file, old_string: "beta", new_string: "BETA" } };
  const unread = await (await invoke("Edit", edit)).json();
  assert.equal(unread.success, false);
  assert.match(unread.error, /read/i);
  const read = await (await invoke("Read", { input: { file_path: file } })).json();
  assert.equal(read.success, true);
  assert.match(read.output.content, /alpha/);
  const edited = await (await invoke("Edit", edit)).json();
  assert.equal(edited.success, true, JSON.stringify(edited));
  assert.equal(await readFile(file, "utf8"), "alpha\nBETA\n");
});

test("bad input is 400 naming the field; an unknown tool or session is 404", async () => {
  const bad = await invoke("Bash", { input: { command: 5 } });
  assert.equal(bad.status, 400);
  const { error } = await bad.json();
  assert.equal(error.code, "invalid_input");
  assert.match(error.message, /"command" must be a string/);
  for (const body of [{}, { input: "ls" }, { input: {}, extra: 1 }, "not json"]) {
    const res = await invoke("Bash", body);
    assert.equal(res.status, 400, JSON.stringify(body));
  }
  const unknown = await invoke("Nope", { input: {} });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).error.code, "tool_not_found");
  const long = await invoke("T".repeat(300), { input: {} });
  assert.equal(long.status, 404);
  assert.match((await long.json()).error.message, /no tool "T+" for the session's runs/);
  const other = await api(`${V1}/tools/Bash/invoke?session_id=nobody`, { method: "POST", body: JSON.stringify({ input: { command: "true" } }) });
  assert.equal(other.status, 404);
  assert.equal((await other.json()).error.code, "session_not_found");
  const bobs = await invoke("Bash", { input: { command: "true" } }, "invoke", { headers: { "x-harness-user": "bob" } });
  assert.equal(bobs.status, 404);
});

test("invokeStream sends a command's output as it prints, then the result and done", async () => {
  const res = await invoke("Bash", { input: { command: "echo one; sleep 0.5; echo two" } }, "invoke/stream");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
  const events = (await readSse(res)).map((e) => e.data);
  const progress = events.filter((e) => e.type === "output" && (e.data as { text?: string }).text !== undefined);
  assert.ok(progress.length >= 1, JSON.stringify(events));
  assert.match((progress[0].data as { text: string }).text, /one/);
  assert.deepEqual(events.at(-2), { type: "output", data: { content: "one\ntwo" } });
  assert.equal(events.at(-1)!.type, "done");
  assert.equal(events.at(-1)!.success, true);
});

test("closing a stream kills its command; a call meanwhile is refused as busy; the session's runner is free after", async () => {
  const controller = new AbortController();
  const res = await invoke("Bash", { input: { command: "echo pid=$$; sleep 300" } }, "invoke/stream", { signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/pid=\d+\D/.test(text)) {
    const { value, done } = await reader.read();
    assert.ok(!done, "the stream ended before the command printed");
    text += value;
  }
  const busy = await invoke("Bash", { input: { command: "true" } });
  assert.equal(busy.status, 409);
  assert.equal((await busy.json()).error.code, "conflict");
  const pid = Number(/pid=(\d+)/.exec(text)![1]);
  assert.ok(alive(pid));
  controller.abort();
  await reader.cancel().catch(() => undefined);
  await until(() => !alive(pid), "the command's process to be gone");
  let after: Response | undefined;
  await until(async () => (after = await invoke("Bash", { input: { command: "echo free" } })).status === 200, "a call to be taken again");
  assert.deepEqual((await after!.json()).output, { content: "free" });
});

test("a call while a run is under way in the session is 409; a prompt sent during a call fails saying why", async () => {
  // The reply is held until the call has been refused: the run is under way however slow the machine.
  let release!: () => void;
  h.fake.push({ text: ["a", "b", "c", "d", "e", "f"], hold: new Promise<void>((resolve) => (release = resolve)) });
  const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: sessionId }) })).json();
  const during = await invoke("Bash", { input: { command: "true" } });
  release();
  assert.equal(during.status, 409);
  assert.match((await during.json()).error.message, /a run is under way/);
  await executionWhen(api, started.execution_id, (e) => e.status === "completed", "completed");

  const controller = new AbortController();
  const call = await invoke("Bash", { input: { command: "echo waiting; sleep 300" } }, "invoke/stream", { signal: controller.signal });
  const reader = call.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("waiting")) text += (await reader.read()).value ?? "";
  const prompt = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "again", session_id: sessionId }) })).json();
  await executionWhen(api, prompt.execution_id, (e) => e.status === "failed", "failed");
  const { state } = await (await api(`/sessions/${sessionId}?userId=alice`)).json();
  assert.match(state.error, /a tool call made directly is in flight/);
  controller.abort();
  await reader.cancel().catch(() => undefined);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
