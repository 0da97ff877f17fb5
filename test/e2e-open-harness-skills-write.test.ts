// The Open Harness skills domain, written: a session's skills registered (SKILL.md and the files it
// brings), changed, downloaded, uninstalled and validated as the folders of .claude/skills in its
// workspace, which its next run reads (the model is offered them); the user's skills stay read only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

async function modelSees(h: Harness, api: Api, sessionId: string, prompt: string): Promise<string> {
  h.fake.push({ text: "Done." });
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: prompt, session_id: sessionId }) }));
  return JSON.stringify(h.fake.requests.at(-1)!.body);
}

const SKILL = "---\nname: deploy\ndescription: Deploys the app to staging\n---\nRun scripts/deploy.sh.\n";

/** A form of `files` (path → text) and other fields. */
function formOf(files: Record<string, string>, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const [path, text] of Object.entries(files)) form.append("files", new Blob([text]), path);
  return form;
}

test("a skill registered over the API is the workspace's .claude/skills folder, which the next run offers the model; changed, downloaded and uninstalled likewise", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const post = (path: string, form: FormData, method = "POST") => fetch(`${h.server.url}${V1}${path}${q}`, { method, body: form, headers: { "x-harness-user": "alice" } });
    const registered = await post("/skills", formOf({ "deploy/SKILL.md": SKILL, "deploy/scripts/deploy.sh": "echo deploying\n" }, { metadata: JSON.stringify({ display_title: "Deploy", category: "user" }) }));
    assert.equal(registered.status, 201, await registered.clone().text());
    const { skill } = await registered.json();
    assert.deepEqual([skill.id, skill.description, skill.category, skill.scope], ["deploy", "Deploys the app to staging", "user", "project"]);
    const folder = join(h.workspace("alice", session.id), ".claude", "skills");
    assert.deepEqual(await readdir(folder), ["deploy"]);
    assert.equal(await readFile(join(folder, "deploy", "SKILL.md"), "utf8"), SKILL);
    assert.equal(await readFile(join(folder, "deploy", "scripts", "deploy.sh"), "utf8"), "echo deploying\n");
    assert.match(await modelSees(h, api, session.id, "one"), /deploy.{0,20}Deploys the app to staging/);

    const again = await post("/skills", formOf({ "SKILL.md": SKILL }));
    assert.equal(again.status, 409);
    assert.match((await again.json()).error.message, /"deploy" is there already \(scope project\)/);

    const changed = await api(`${V1}/skills/deploy${q}`, { method: "PATCH", body: JSON.stringify({ description: "Deploys to production" }) });
    assert.equal(changed.status, 200);
    assert.equal((await changed.json()).skill.description, "Deploys to production");
    assert.equal(await readFile(join(folder, "deploy", "SKILL.md"), "utf8"), "---\nname: deploy\ndescription: Deploys to production\n---\nRun scripts/deploy.sh.\n");
    assert.match(await modelSees(h, api, session.id, "two"), /Deploys to production/);

    const download = await api(`${V1}/skills/deploy/download${q}`);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get("content-disposition"), 'attachment; filename="deploy.zip"');
    const zip = Buffer.from(await download.arrayBuffer());
    for (const name of ["deploy/SKILL.md", "deploy/scripts/deploy.sh"]) assert.ok(zip.includes(Buffer.from(name)), name);

    assert.equal((await api(`${V1}/skills/deploy${q}`, { method: "DELETE" })).status, 204);
    assert.deepEqual(await readdir(folder), []);
    assert.doesNotMatch(await modelSees(h, api, session.id, "three"), /Deploys to production/);
    assert.equal((await api(`${V1}/skills/deploy${q}`, { method: "DELETE" })).status, 404);

    // SKILL.md at the bundle's root is named by its frontmatter.
    const rooted = await post("/skills", formOf({ "SKILL.md": SKILL.replace("deploy", "ship") }));
    assert.equal(rooted.status, 201);
    assert.deepEqual(await readdir(folder), ["ship"]);
  } finally {
    await h.close();
  }
});

test("a bundle is validated as the runs load it; bad bundles, the user's skills and a .claude leading out are refused, naming why", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude", "skills", "mine"), { recursive: true });
    await writeFile(join(home, ".claude", "skills", "mine", "SKILL.md"), "---\ndescription: The user's\n---\nMine.");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const post = (path: string, form: FormData) => fetch(`${h.server.url}${V1}${path}${q}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });

    const validate = async (files: Record<string, string>) => (await post("/skills/validate", formOf(files))).json();
    assert.deepEqual(await validate({ "deploy/SKILL.md": SKILL }), { valid: true, errors: [], warnings: [] });
    const noDescription = await validate({ "deploy/SKILL.md": "---\nname: deploy\n---\nBody." });
    assert.equal(noDescription.valid, false);
    assert.equal(noDescription.errors[0].code, "invalid_description");
    assert.match(noDescription.errors[0].message, /has no description/);
    const mismatch = await validate({ "ship/SKILL.md": SKILL });
    assert.deepEqual(mismatch.errors.map((e: { code: string }) => e.code), ["name_mismatch"]);
    assert.deepEqual((await validate({ "notes.txt": "x" })).errors.map((e: { code: string }) => e.code), ["missing_skill_md"]);
    const warned = await validate({ "deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys\ncontext: elsewhere\n---\nGo." });
    assert.deepEqual([warned.valid, warned.warnings[0]?.code], [true, "invalid_context"]);

    const refused = async (response: Response, status: number, message: RegExp) => {
      const text = await response.text();
      assert.equal(response.status, status, text);
      assert.match(JSON.parse(text).error.message, message);
    };
    await refused(await post("/skills", formOf({ "deploy/SKILL.md": "---\nname: deploy\n---\nBody." })), 400, /would not load as the runs load it: SKILL\.md: .*no description/);
    await refused(await post("/skills", formOf({ "../x/SKILL.md": SKILL })), 400, /\.\./);
    await refused(await post("/skills", formOf({ "SKILL.md": SKILL.replace("name: deploy", "name: ../../evil") })), 400, /name: "\.\.\/\.\.\/evil"/);
    await refused(await post("/skills", formOf({ "mine/SKILL.md": "---\ndescription: Mine too\n---\nMine." })), 409, /scope user/);
    await refused(await post("/skills", formOf({ "deploy/SKILL.md": SKILL }, { metadata: JSON.stringify({ category: "plugin" }) })), 400, /category: must be user/);
    await refused(await api(`${V1}/skills/mine${q}`, { method: "DELETE" }), 403, /scope user.*~\/\.claude\/skills/);
    await refused(await api(`${V1}/skills/mine${q}`, { method: "PATCH", body: JSON.stringify({ description: "x" }) }), 403, /scope user/);
    await refused(await api(`${V1}/skills/mine/download${q}`), 403, /scope user/);
    assert.equal(await readFile(join(home, ".claude", "skills", "mine", "SKILL.md"), "utf8"), "---\ndescription: The user's\n---\nMine.");
    assert.equal((await fetch(`${h.server.url}${V1}/skills${q}`, { method: "POST", body: formOf({ "deploy/SKILL.md": SKILL }), headers: { "x-harness-user": "bob" } })).status, 404);

    const workspace = h.workspace("alice", session.id);
    await mkdir(workspace, { recursive: true });
    await symlink(outside, join(workspace, ".claude"));
    await refused(await post("/skills", formOf({ "deploy/SKILL.md": SKILL })), 400, /symbolic link that leads outside the session's workspace/);
    assert.deepEqual(await readdir(outside), []);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual(caps.skills.operations, ["skills.list", "skills.get", "skills.register", "skills.update", "skills.uninstall", "skills.download", "skills.validate", "skills.listVersions", "skills.rollback", "skills.upgrade", "skills.discover"]);
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});
