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

    // A workspace that is the runs' home has the user's .claude, which stays read only.
    await rm(workspace, { recursive: true });
    await symlink(home, workspace);
    await refused("/agents", json("POST", { ...base, name: "ok" }), 403, /server's home directory: its \.claude is the user's/);
    await refused(`/agents/mine`, { method: "DELETE" }, 403, /\.claude is the user's|scope/);
    assert.deepEqual(await readdir(join(home, ".claude", "agents")), ["mine.md"]);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});

test("an agent is cloned into the workspace, exported as a ZIP holding AGENTS.md, imported from one, and created from the spec's form", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude", "agents"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "dt-0123456789abcdef" } }));
    await writeFile(join(home, ".claude", "agents", "mine.md"), "---\nname: mine\ndescription: The user's\nmodel: haiku\n---\nDeploy with dt-0123456789abcdef.");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const agents = join(h.workspace("alice", session.id), ".claude", "agents");

    const cloned = await api(`${V1}/agents/mine/clone${q}`, json("POST", { new_name: "ours" }));
    assert.equal(cloned.status, 201);
    assert.deepEqual((await cloned.json()).agent.scope, "project");
    // What came from the server's home is shown, and copied as its file is, with its secrets hidden.
    assert.equal(await readFile(join(agents, "ours.md"), "utf8"), "---\nname: ours\ndescription: The user's\nmodel: haiku\n---\nDeploy with ***.");
    assert.equal((await api(`${V1}/agents/mine/clone${q}`, json("POST", { new_name: "ours" }))).status, 409);
    const explore = await api(`${V1}/agents/Explore/clone${q}`, json("POST", { new_name: "explorer" }));
    assert.equal(explore.status, 201);
    assert.match(await modelSees(h, api, session.id, "one"), /- explorer: .*\(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch\)/);

    const exported = await api(`${V1}/agents/ours/export${q}`);
    assert.equal(exported.status, 200);
    assert.equal(exported.headers.get("content-type"), "application/zip");
    assert.equal(exported.headers.get("content-disposition"), 'attachment; filename="ours.zip"');
    const zip = Buffer.from(await exported.arrayBuffer());
    assert.ok(zip.includes(Buffer.from("AGENTS.md")));

    const form = (fields: Record<string, string | Blob>, name = "bundle.zip") => {
      const data = new FormData();
      for (const [key, value] of Object.entries(fields)) typeof value === "string" ? data.append(key, value) : data.append(key, value, name);
      return data;
    };
    const upload = (path: string, data: FormData) => fetch(`${h.server.url}${V1}${path}${q}`, { method: "POST", body: data, headers: { "x-harness-user": "alice" } });
    const taken = await upload("/agents/import", form({ bundle: new Blob([zip]) }));
    assert.equal(taken.status, 409);
    const imported = await upload("/agents/import", form({ bundle: new Blob([zip]), rename_to: "theirs" }));
    assert.equal(imported.status, 201, await imported.clone().text());
    assert.deepEqual((await imported.json()).agent.config, { model: "haiku", system_prompt: "Deploy with ***." });
    assert.equal(await readFile(join(agents, "theirs.md"), "utf8"), "---\nname: theirs\ndescription: The user's\nmodel: haiku\n---\nDeploy with ***.");
    const notZip = await upload("/agents/import", form({ bundle: new Blob(["hello"]) }));
    assert.equal(notZip.status, 400);
    assert.match((await notZip.json()).error.message, /^bundle: not a ZIP archive/);

    const spec = new FormData();
    spec.append("metadata", JSON.stringify({ name: "writer", description: "Writes docs" }));
    spec.append("files", new Blob(["Write the docs."]), "AGENTS.md");
    const made = await upload("/agents", spec);
    assert.equal(made.status, 201, await made.clone().text());
    assert.equal(await readFile(join(agents, "writer.md"), "utf8"), "---\nname: writer\ndescription: Writes docs\n---\n\nWrite the docs.\n");
    const bad = new FormData();
    bad.append("metadata", JSON.stringify({ name: "broken", description: "Breaks" }));
    bad.append("files", new Blob(["---\nname: broken\ndescription: Breaks\nmaxTurns: lots\n---\nBreak."]), "AGENTS.md");
    const broken = await upload("/agents", bad);
    assert.equal(broken.status, 400);
    assert.match((await broken.json()).error.message, /would not load as written: maxTurns must be a whole number/);
    assert.deepEqual((await readdir(agents)).sort(), ["explorer.md", "ours.md", "theirs.md", "writer.md"]);
  } finally {
    await h.close();
  }
});

test("an agent whose prompt holds a secret, read through the API and sent back with its ***, is refused, its file kept", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, ".claude", "agents"), { recursive: true });
    await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "tok-8c1d7e2f9a" } }));
    const original = "---\nname: deployer\ndescription: Deploys\n---\n\nDeploy with tok-8c1d7e2f9a.\n";
    await writeFile(join(workspace, ".claude", "agents", "deployer.md"), original);
    const shown = (await (await api(`${V1}/agents/deployer${q}`)).json()).agent.config.system_prompt as string;
    assert.match(shown, /Deploy with \*\*\*\./);
    const echoed = await api(`${V1}/agents/deployer${q}`, json("PATCH", { config: { system_prompt: `${shown} Then tag it.` } }));
    assert.equal(echoed.status, 409);
    assert.match((await echoed.json()).error.message, /secret values, which this API shows as \*\*\*/);
    assert.equal(await readFile(join(workspace, ".claude", "agents", "deployer.md"), "utf8"), original);
    assert.equal((await api(`${V1}/agents/deployer${q}`, json("PATCH", { description: "Deploys and tags" }))).status, 200);
  } finally {
    await h.close();
  }
});
