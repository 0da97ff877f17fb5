// The Open Harness hooks domain, written: hooks registered, changed and removed over the API land in
// the workspace's .claude/settings.json, and the session's next run has them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

type Body = { messages: { content: unknown }[] };

/** The text of the last tool result the model was sent. */
function lastToolResult(body: Body): string {
  const content = body.messages.at(-1)!.content as { type: string; content?: unknown }[];
  const result = content.find((block) => block.type === "tool_result")!;
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

async function run(api: Api, sessionId: string, message: string): Promise<void> {
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message, session_id: sessionId }) }));
}

test("a hook registered over the API runs on the next run's tool call; changed, it blocks the call; removed, it is gone; the settings file keeps its other keys", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const workspace = h.workspace("alice", session.id);
    const before = { env: { GREETING: "hello" }, hooks: { SessionStart: [{ hooks: [{ type: "command", command: "true", timeout: 5 }] }] }, permissions: { allow: ["Read"] } };
    await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(before) });
    await api(`${V1}/files/notes.txt${q}`, { method: "PUT", body: "the notes" });
    const log = join(workspace, "hook.log");

    const registered = await api(`${V1}/hooks${q}`, { method: "POST", body: JSON.stringify({ event: "pre_tool", matcher: "Read", handler: { type: "command", command: `cat >> '${log}'` } }) });
    assert.equal(registered.status, 201);
    const { hook } = await registered.json();
    assert.deepEqual(hook, { id: "project.PreToolUse.0.0", event: "pre_tool", handler: { type: "command", command: `cat >> '${log}'` }, enabled: true, harness_event: "PreToolUse", scope: "project", matcher: "Read" });
    assert.deepEqual((await (await api(`${V1}/hooks/${hook.id}${q}`)).json()).hook, hook);
    const written = JSON.parse(await readFile(join(workspace, ".claude", "settings.json"), "utf8"));
    assert.deepEqual(written, { ...before, hooks: { ...before.hooks, PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `cat >> '${log}'` }] }] } });

    h.fake.push({ toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Read it." });
    await run(api, session.id, "read the notes");
    const input = JSON.parse(await readFile(log, "utf8"));
    assert.equal(input.hook_event_name, "PreToolUse");
    assert.equal(input.tool_name, "Read");
    assert.match(lastToolResult(h.fake.requests.at(-1)!.body as Body), /the notes/);

    const blocking = { type: "command", command: "echo 'no reading today' >&2; exit 2" };
    const changed = await api(`${V1}/hooks/${hook.id}${q}`, { method: "PATCH", body: JSON.stringify({ handler: blocking }) });
    assert.equal(changed.status, 200);
    assert.deepEqual((await changed.json()).hook, { ...hook, handler: blocking });
    h.fake.push({ toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Blocked." });
    await run(api, session.id, "read the notes again");
    assert.match(lastToolResult(h.fake.requests.at(-1)!.body as Body), /no reading today/);

    assert.equal((await api(`${V1}/hooks/${hook.id}${q}`, { method: "DELETE" })).status, 204);
    assert.equal((await api(`${V1}/hooks/${hook.id}${q}`)).status, 404);
    assert.deepEqual(JSON.parse(await readFile(join(workspace, ".claude", "settings.json"), "utf8")), before);
    h.fake.push({ toolUses: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "Read it." });
    await run(api, session.id, "and once more");
    assert.match(lastToolResult(h.fake.requests.at(-1)!.body as Body), /the notes/);

    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.ok(["hooks.register", "hooks.update", "hooks.unregister"].every((operation) => caps.hooks.operations.includes(operation)));
  } finally {
    await h.close();
  }
});

test("hooks the API does not write, or that the runs would not load, are refused with what is wrong, and the files are left as they are", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "echo user" }] }] } }));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const refused = async (response: Response, status: number, pattern: RegExp) => {
      const { error } = await response.json();
      assert.equal(response.status, status, error.message);
      assert.match(error.message, pattern);
    };
    const post = (body: unknown, query = q) => api(`${V1}/hooks${query}`, { method: "POST", body: JSON.stringify(body) });
    const command = { type: "command", command: "echo hi" };

    await refused(await api(`${V1}/hooks/user.PreToolUse.0.0${q}`, { method: "PATCH", body: JSON.stringify({ handler: command }) }), 403, /user's settings/);
    await refused(await api(`${V1}/hooks/user.PreToolUse.0.0${q}`, { method: "DELETE" }), 403, /user's settings/);
    await refused(await post({ event: "pre_tool", handler: command, scope: "user" }), 403, /user's settings/);
    await refused(await post({ event: "custom", handler: command }), 400, /harness_event/);
    await refused(await post({ event: "stop", harness_event: "PreToolUse", handler: command }), 400, /PreToolUse is the event pre_tool/);
    await refused(await post({ event: "custom", harness_event: "SessionBegin", handler: command }), 400, /unknown hook event "SessionBegin"/);
    await refused(await post({ event: "stop", handler: { type: "webhook", url: "ftp://hooks.example" } }), 400, /url/);
    await refused(await post({ event: "custom", harness_event: "SessionStart", handler: { type: "prompt", prompt: "Is it fine?" } }), 400, /prompt hooks/);
    await refused(await post({ event: "pre_tool", matcher: "(", handler: command }), 400, /matcher/);
    await refused(await post({ event: "pre_tool" }), 400, /handler/);
    await refused(await post({ event: "pre_tool", handler: command, enabled: false }), 501, /enabled/);
    await refused(await post({ event: "pre_tool", handler: command }, ""), 400, /session_id/);
    await refused(await api(`${V1}/hooks/project.PreToolUse.0.0${q}`, { method: "DELETE" }), 404, /no hook/);
    assert.equal(existsSync(join(h.workspace("alice", session.id), ".claude", "settings.json")), false);

    await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: '{ "hooks": { ' });
    await refused(await post({ event: "pre_tool", handler: command }), 409, /\.claude\/settings\.json is not valid JSON/);
    assert.equal(await readFile(join(h.workspace("alice", session.id), ".claude", "settings.json"), "utf8"), '{ "hooks": { ');

    const outside = join(h.dataDir, "outside.json");
    await writeFile(outside, "{}");
    await api(`${V1}/files/.claude/settings.json${q}`, { method: "DELETE" });
    await symlink(outside, join(h.workspace("alice", session.id), ".claude", "settings.json"));
    await refused(await post({ event: "pre_tool", handler: command }), 400, /outside the session's workspace/);
    assert.equal(await readFile(outside, "utf8"), "{}");

    const local = await post({ event: "stop", handler: { type: "webhook", url: "https://hooks.example/stop" }, scope: "local" });
    assert.equal(local.status, 201);
    assert.equal((await local.json()).hook.id, "local.Stop.0.0");
  } finally {
    await h.close();
  }
});

test("a hook whose command holds a secret, read through the API and sent back with its ***, is refused, its file kept", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const file = join(h.workspace("alice", session.id), ".claude", "settings.json");
    const original = JSON.stringify({ env: { DEPLOY_TOKEN: "tok-8c1d7e2f9a" }, hooks: { Stop: [{ hooks: [{ type: "command", command: "curl -H 'Token: tok-8c1d7e2f9a' https://ci.example/done" }] }] } });
    await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: original });
    const { hook } = await (await api(`${V1}/hooks/project.Stop.0.0${q}`)).json();
    assert.equal(hook.handler.command, "curl -H 'Token: ***' https://ci.example/done");
    const echoed = await api(`${V1}/hooks/${hook.id}${q}`, { method: "PATCH", body: JSON.stringify({ handler: { type: "command", command: hook.handler.command.replace("done", "finished") } }) });
    assert.equal(echoed.status, 409);
    assert.match((await echoed.json()).error.message, /secret values, which this API shows as \*\*\*/);
    assert.equal(await readFile(file, "utf8"), original);
    const changed = await api(`${V1}/hooks/${hook.id}${q}`, { method: "PATCH", body: JSON.stringify({ handler: { type: "command", command: "curl -H 'Token: tok-8c1d7e2f9a' https://ci.example/finished" } }) });
    assert.equal(changed.status, 200);
  } finally {
    await h.close();
  }
});
