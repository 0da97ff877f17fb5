// The Open Harness hooks domain, listed: the hooks a session's runs would have, read from the
// settings files as the runs read them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

test("a session's hooks are listed from the user's and the workspace's settings, in the spec's events, filtered by event", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo checked" }] }] } }));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    assert.deepEqual((await (await api(`${V1}/hooks${q}`)).json()).hooks.map((hook: { event: string }) => hook.event), ["pre_tool"]);
    const project = { hooks: { Stop: [{ hooks: [{ type: "http", url: "https://hooks.example/stop" }] }], SessionStart: [{ hooks: [{ type: "command", command: "echo hello" }] }] } };
    await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify(project) });

    const { hooks } = await (await api(`${V1}/hooks${q}`)).json();
    assert.deepEqual(
      hooks.map((hook: { event: string; handler: unknown; enabled: boolean; harness_event: string; scope: string; matcher?: string }) => [hook.event, hook.harness_event, hook.scope, hook.matcher, hook.handler, hook.enabled]),
      [
        ["pre_tool", "PreToolUse", "user", "Bash", { type: "command", command: "echo checked" }, true],
        ["stop", "Stop", "project", undefined, { type: "webhook", url: "https://hooks.example/stop" }, true],
        ["custom", "SessionStart", "project", undefined, { type: "command", command: "echo hello" }, true],
      ],
    );
    const ids = hooks.map((hook: { id: string }) => hook.id);
    assert.equal(new Set(ids).size, 3);
    assert.deepEqual((await (await api(`${V1}/hooks/${encodeURIComponent(ids[1])}${q}`)).json()).hook, hooks[1]);
    assert.deepEqual((await (await api(`${V1}/hooks${q}&event=stop`)).json()).hooks, [hooks[1]]);
    const bad = await api(`${V1}/hooks${q}&event=before`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /event/);
    const missing = await api(`${V1}/hooks/nope${q}`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "hook_not_found");
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual(caps.hooks.operations, ["hooks.list", "hooks.get", "hooks.register", "hooks.update", "hooks.unregister", "hooks.listEvents", "hooks.streamEvents", "webhooks.register", "webhooks.list", "webhooks.delete"]);
  } finally {
    await h.close();
  }
});

test("a hook's secrets are not shown: the settings' env values, bearer tokens and a URL's password read as ***", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    const settings = {
      env: { DEPLOY_TOKEN: "dt-0123456789abcdef" },
      hooks: {
        PostToolUse: [{ hooks: [{ type: "command", command: "curl -H 'Authorization: Bearer sk-live-9f8e7d6c5b4a' https://ci.example/notify" }] }],
        Stop: [{ hooks: [{ type: "command", command: "notify --with dt-0123456789abcdef" }, { type: "http", url: "https://bot:hunter2pass@hooks.example/stop" }] }],
      },
    };
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify(settings));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const text = await (await api(`${V1}/hooks?session_id=${session.id}`)).text();
    for (const secret of ["sk-live-9f8e7d6c5b4a", "dt-0123456789abcdef", "hunter2pass"]) assert.ok(!text.includes(secret), `${secret} is not shown`);
    const hooks = JSON.parse(text).hooks as { handler: { command?: string; url?: string } }[];
    assert.deepEqual(hooks.map((hook) => hook.handler.command ?? hook.handler.url), [
      "curl -H 'Authorization: Bearer ***' https://ci.example/notify",
      "notify --with ***",
      hooks[2].handler.url,
    ]);
    assert.match(hooks[2].handler.url!, /^https:\/\/bot:\*+@hooks\.example\/stop$|^https:\/\/\*+@hooks\.example\/stop$/);
  } finally {
    await h.close();
  }
});
