// The Open Harness agents domain, written: a session's sub-agents created, changed, removed, cloned,
// exported and imported as the .md files of .claude/agents in its workspace, which its next run
// reads (the model's request shows them); other scopes stay read only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

/** The tools and system prompt of the model's request of a run of `prompt` in the session. */
async function modelSees(h: Harness, api: Api, sessionId: string, prompt: string): Promise<string> {
  h.fake.push({ text: "Done." });
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: prompt, session_id: sessionId }) }));
  const request = h.fake.requests.at(-1)!;
  return JSON.stringify([request.body.system, request.body.tools]);
}

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

test("an agent created over the API is its workspace's .claude/agents file, which the next run offers the model; changed and deleted likewise", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const body = { name: "reviewer", description: "Reviews diffs: before a commit", config: { model: "haiku", system_prompt: "Review the change." }, tools: ["Read", "Grep"], skills: [{ skill_id: "lint", required: true }] };
    const created = await api(`${V1}/agents${q}`, json("POST", body));
    assert.equal(created.status, 201);
    const { agent } = await created.json();
    assert.deepEqual([agent.id, agent.description, agent.scope, agent.config, agent.skills], ["reviewer", "Reviews diffs: before a commit", "project", { model: "haiku", system_prompt: "Review the change." }, [{ skill_id: "lint", required: true }]]);
    const file = join(h.workspace("alice", session.id), ".claude", "agents", "reviewer.md");
    assert.equal(await readFile(file, "utf8"), '---\nname: reviewer\ndescription: "Reviews diffs: before a commit"\ntools: ["Read", "Grep"]\nmodel: haiku\nskills: ["lint"]\n---\n\nReview the change.\n');
    assert.match(await modelSees(h, api, session.id, "one"), /- reviewer: Reviews diffs: before a commit \(Tools: Read, Grep\)/);

    const again = await api(`${V1}/agents${q}`, json("POST", body));
    assert.equal(again.status, 409);
    assert.match((await again.json()).error.message, /"reviewer" is there already \(scope project\)/);

    const changed = await api(`${V1}/agents/reviewer${q}`, json("PATCH", { description: "Reviews changes", config: { system_prompt: "Be strict." } }));
    assert.equal(changed.status, 200);
    assert.deepEqual((await changed.json()).agent.config, { model: "haiku", system_prompt: "Be strict." });
    assert.match(await readFile(file, "utf8"), /^---\nname: reviewer\ndescription: Reviews changes\ntools: \["Read", "Grep"\]\nmodel: haiku\nskills: \["lint"\]\n---\n\nBe strict.\n$/);
    assert.match(await modelSees(h, api, session.id, "two"), /- reviewer: Reviews changes \(/);

    const renamed = await api(`${V1}/agents/reviewer${q}`, json("PATCH", { name: "critic" }));
    assert.equal(renamed.status, 200);
    assert.equal((await renamed.json()).agent.id, "critic");
    assert.deepEqual(await readdir(join(h.workspace("alice", session.id), ".claude", "agents")), ["critic.md"]);

    assert.equal((await api(`${V1}/agents/critic${q}`, { method: "DELETE" })).status, 204);
    assert.deepEqual(await readdir(join(h.workspace("alice", session.id), ".claude", "agents")), []);
    assert.equal((await api(`${V1}/agents/critic${q}`)).status, 404);
    assert.doesNotMatch(await modelSees(h, api, session.id, "three"), /- critic:/);
    assert.equal((await api(`${V1}/agents/critic${q}`, { method: "DELETE" })).status, 404);
  } finally {
    await h.close();
  }
});

test("bad bodies, other scopes' agents and a .claude leading out of the workspace are refused, naming why", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude", "agents"), { recursive: true });
    await writeFile(join(home, ".claude", "agents", "mine.md"), "---\nname: mine\ndescription: The user's\n---\nHelp.");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const refused = async (path: string, init: RequestInit, status: number, message: RegExp) => {
      const response = await api(`${V1}${path}${q}`, init);
      const text = await response.text();
      assert.equal(response.status, status, text);
      assert.match(JSON.parse(text).error.message, message);
    };
    const base = { description: "Does things", config: { system_prompt: "Do." } };
    for (const name of ["", "../evil", "a/b", "a\\b", ".hidden", "x".repeat(65), "kit:helper", "two words"]) {
      await refused("/agents", json("POST", { ...base, name }), 400, /^name: /);
    }
    await refused("/agents", json("POST", { name: "ok" }), 400, /description/);
    await refused("/agents", json("POST", { name: "ok", description: "Does" }), 400, /config\.system_prompt: required/);
    await refused("/agents", json("POST", { ...base, name: "ok", config: { system_prompt: "Do.", temperature: 0.2 } }), 501, /temperature/);
    await refused("/agents", json("POST", { ...base, name: "ok", colour: "red" }), 400, /colour/);
    await refused("/agents", json("POST", { ...base, name: "mine" }), 409, /scope user/);
    await refused("/agents", json("POST", { ...base, name: "Explore" }), 409, /scope built-in/);
    await refused("/agents/mine", json("PATCH", { description: "Mine now" }), 403, /scope user.*~\/\.claude\/agents/);
    await refused("/agents/mine", { method: "DELETE" }, 403, /scope user/);
    await refused("/agents/general-purpose", { method: "DELETE" }, 403, /scope built-in/);
    await refused("/agents/nobody", json("PATCH", { description: "x" }), 404, /no agent "nobody"/);
    assert.equal(await readFile(join(home, ".claude", "agents", "mine.md"), "utf8"), "---\nname: mine\ndescription: The user's\n---\nHelp.");
    const bob = apiAs(h.server.url, "bob");
    assert.equal((await bob(`${V1}/agents${q}`, json("POST", { ...base, name: "ok" }))).status, 404);

    const workspace = h.workspace("alice", session.id);
    await mkdir(workspace, { recursive: true });
    await symlink(outside, join(workspace, ".claude"));
    await refused("/agents", json("POST", { ...base, name: "ok" }), 400, /symbolic link that leads outside the session's workspace/);
    assert.deepEqual(await readdir(outside), []);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});
