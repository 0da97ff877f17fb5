// allowedHttpHookUrls and httpHookAllowedEnvVars in whole runs: where http hooks may send the event,
// and which environment variables their headers may carry.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { runInProject, tempProject } from "../../testing/project.ts";

async function hookServer(t: { after(fn: () => unknown): void }): Promise<{ base: string; seen: { url: string; headers: http.IncomingHttpHeaders }[] }> {
  const seen: { url: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    req.resume().on("end", () => {
      seen.push({ url: req.url!, headers: req.headers });
      res.end("");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const notices = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "notice" ? [e.message] : []));

test("allowedHttpHookUrls keeps http hooks from URLs it does not list, and a repository's settings cannot widen it", async (t) => {
  const { base, seen } = await hookServer(t);
  const project = await tempProject(t);
  await project.writeHome("managed-settings.json", JSON.stringify({ allowedHttpHookUrls: [`${base}/allowed/*`] }));
  await project.settings({
    allowedHttpHookUrls: ["*"],
    hooks: { UserPromptSubmit: [{ hooks: [{ type: "http", url: `${base}/allowed/prompt` }, { type: "http", url: `${base.replace("//", "//me:pw@")}/elsewhere?key=k` }] }] },
  });
  const { result, events } = await runInProject(project, [{ text: "Hello." }]);

  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(seen.map((s) => s.url), ["/allowed/prompt"]);
  assert.ok(notices(events).some((m) => m.includes(`${base}/elsewhere?… is left out`) && /allowedHttpHookUrls/.test(m)), "the user is told which hook was left out and why");
  assert.ok(!notices(events).some((m) => /pw@|key=k/.test(m)), "without the URL's credentials or query");
});

test("an empty allowedHttpHookUrls allows no http hook", async (t) => {
  const { base, seen } = await hookServer(t);
  const project = await tempProject(t);
  await project.settings({ allowedHttpHookUrls: [] }, "user");
  await project.settings({ hooks: { Stop: [{ hooks: [{ type: "http", url: `${base}/stop` }] }] } });
  await runInProject(project, [{ text: "Hello." }]);
  assert.deepEqual(seen, []);
});

test("httpHookAllowedEnvVars narrows the variables an http hook's headers may name", async (t) => {
  const { base, seen } = await hookServer(t);
  const project = await tempProject(t);
  await project.writeHome("managed-settings.json", JSON.stringify({ httpHookAllowedEnvVars: ["HOOK_TOKEN"] }));
  await project.settings({
    httpHookAllowedEnvVars: ["CLOUD_SECRET"],
    hooks: { Stop: [{ hooks: [{ type: "http", url: `${base}/stop`, headers: { "x-token": "$HOOK_TOKEN", "x-secret": "${CLOUD_SECRET}" }, allowedEnvVars: ["HOOK_TOKEN", "CLOUD_SECRET"] }] }] },
  });
  await runInProject(project, [{ text: "Hello." }], { env: { HOOK_TOKEN: "tok", CLOUD_SECRET: "do-not-send" } });
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.headers["x-token"], "tok");
  assert.equal(seen[0]!.headers["x-secret"], "");
});

test("a repository's allowedHttpHookUrls holds when neither the user's nor the managed settings set one", async (t) => {
  const { base, seen } = await hookServer(t);
  const project = await tempProject(t);
  await project.settings({
    allowedHttpHookUrls: [`${base}/ours`],
    hooks: { Stop: [{ hooks: [{ type: "http", url: `${base}/ours` }, { type: "http", url: `${base}/theirs` }] }] },
  });
  await runInProject(project, [{ text: "Hello." }]);
  assert.deepEqual(seen.map((s) => s.url), ["/ours"]);
});

test("an agent file's http hooks are held to allowedHttpHookUrls too, and one left out is named with its file", async (t) => {
  const { base, seen } = await hookServer(t);
  const project = await tempProject(t);
  await project.settings({ allowedHttpHookUrls: [`${base}/allowed/*`] }, "user");
  const agentFile = await project.write(
    ".claude/agents/reviewer.md",
    `---\nname: reviewer\ndescription: Reviews changes\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: http\n          url: '${base}/allowed/pre'\n        - type: http\n          url: '${base}/elsewhere'\n---\nYou review changes.\n`,
  );
  const task = { id: "toolu_task", name: "Task", input: { description: "review", prompt: "Review the change", subagent_type: "reviewer" } };
  const { result, events } = await runInProject(project, [{ toolCalls: [task] }, { toolCalls: [{ name: "Glob", input: { pattern: "*" } }] }, { text: "ok" }, { text: "Done." }], { permissionMode: "bypassPermissions" });

  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(seen.map((s) => s.url), ["/allowed/pre"], "only the sub-agent's allowed hook, once");
  assert.ok(notices(events).some((m) => m.includes(agentFile) && m.includes(`${base}/elsewhere is left out`)), notices(events).join("\n"));
});

test("an allowedHttpHookUrls `*` spans the rest of a URL, port and path alike, as in http://localhost:*", async (t) => {
  const { base, seen } = await hookServer(t);
  const project = await tempProject(t);
  await project.settings({ allowedHttpHookUrls: ["http://127.0.0.1:*"] }, "user");
  await project.settings({ hooks: { Stop: [{ hooks: [{ type: "http", url: `${base}/deep/path?run=1` }, { type: "http", url: base.replace("127.0.0.1", "localhost") + "/other" }] }] } });
  const { events } = await runInProject(project, [{ text: "Hello." }]);
  assert.deepEqual(seen.map((s) => s.url), ["/deep/path?run=1"]);
  assert.ok(notices(events).some((m) => m.includes("localhost") && m.includes("is left out")), notices(events).join("\n"));
});
