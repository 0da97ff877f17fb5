// The versions of a session's skills over the Open Harness API: each folder the API writes
// (register, update, upgrade) is kept, and one changed by hand since is kept as a version of its own
// when next seen; a rollback puts one back (the next run's model is offered it), a download can
// serve one; the oldest go beyond 20; a fork keeps its source's, a deleted session's go with it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";
import { readZip } from "../packages/server/src/open-harness/zip-reader.ts";

const SKILL = (description: string) => `---\nname: deploy\ndescription: ${description}\n---\nRun scripts/deploy.sh.\n`;

async function modelSees(h: Harness, api: Api, sessionId: string, prompt: string): Promise<string> {
  h.fake.push({ text: "Done." });
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: prompt, session_id: sessionId }) }));
  return JSON.stringify(h.fake.requests.at(-1)!.body);
}

function formOf(files: Record<string, string>, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const [path, text] of Object.entries(files)) form.append("files", new Blob([text]), path);
  return form;
}

type Versions = { skill_id: string; current_version: string; versions: { version: string; created_at: string; changelog?: string; hash: string }[] };

async function setUp(h: Harness) {
  const api = apiAs(h.server.url);
  const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  const sessionId: string = session.id;
  const q = `?session_id=${sessionId}`;
  const form = (path: string, body: FormData) => fetch(`${h.server.url}${V1}${path}${q}`, { method: "POST", body, headers: { "x-harness-user": "alice" } });
  const versions = async (id = sessionId): Promise<Versions> => {
    const response = await api(`${V1}/skills/deploy/versions?session_id=${id}`);
    assert.equal(response.status, 200, await response.clone().text());
    return response.json();
  };
  const describe = (description: string) => api(`${V1}/skills/deploy${q}`, { method: "PATCH", body: JSON.stringify({ description }) });
  const rollback = (version: unknown) => api(`${V1}/skills/deploy/rollback${q}`, { method: "POST", body: JSON.stringify({ version }) });
  const skillMd = join(h.workspace("alice", sessionId), ".claude", "skills", "deploy", "SKILL.md");
  return { api, sessionId, q, form, versions, describe, rollback, skillMd };
}

test("register and update keep versions; a rollback puts one back, which the next run offers the model; a download serves a kept one", async () => {
  const h = await startHarness();
  try {
    const { api, sessionId, q, form, versions, describe, rollback, skillMd } = await setUp(h);
    const registered = await form("/skills", formOf({ "deploy/SKILL.md": SKILL("Deploys to staging"), "deploy/scripts/deploy.sh": "echo staging\n" }));
    assert.equal(registered.status, 201);
    assert.equal((await registered.json()).skill.version, "1");
    const changed = await describe("Deploys to production");
    assert.equal((await changed.json()).skill.version, "2");
    assert.equal((await (await describe("Deploys to production")).json()).skill.version, "2", "the same description is no new version");

    const listed = await versions();
    assert.equal(listed.skill_id, "deploy");
    assert.equal(listed.current_version, "2");
    assert.deepEqual(listed.versions.map((v) => [v.version, v.changelog]), [["2", "description changed"], ["1", "registered"]]);
    assert.match(listed.versions[0].hash, /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(listed.versions[0].hash, listed.versions[1].hash);
    assert.ok(!Number.isNaN(Date.parse(listed.versions[0].created_at)));
    assert.match(await modelSees(h, api, sessionId, "one"), /Deploys to production/);

    const back = await rollback("1");
    assert.equal(back.status, 200, await back.clone().text());
    const answer = await back.json();
    assert.equal(answer.previous_version, "2");
    assert.deepEqual([answer.skill.description, answer.skill.version], ["Deploys to staging", "1"]);
    assert.equal(await readFile(skillMd, "utf8"), SKILL("Deploys to staging"));
    assert.equal(await readFile(join(skillMd, "..", "scripts", "deploy.sh"), "utf8"), "echo staging\n");
    const seen = await modelSees(h, api, sessionId, "two");
    assert.match(seen, /Deploys to staging/);
    assert.doesNotMatch(seen, /Deploys to production/);
    // A rollback adds no version: the one put back is the current one.
    const after = await versions();
    assert.equal(after.current_version, "1");
    assert.deepEqual(after.versions.map((v) => v.version), ["2", "1"]);

    const download = await api(`${V1}/skills/deploy/download${q}&version=2`);
    assert.equal(download.status, 200);
    const files = readZip(Buffer.from(await download.arrayBuffer()), "zip", 10, 1 << 20, "test");
    assert.deepEqual(files.map((f) => [f.name, f.data.toString()]).sort(), [["deploy/SKILL.md", SKILL("Deploys to production")], ["deploy/scripts/deploy.sh", "echo staging\n"]]);

    // An upgrade takes a new bundle for the skill, kept as its newest version with its changelog.
    const upgraded = await form("/skills/deploy/upgrade", formOf({ "deploy/SKILL.md": SKILL("Deploys with blue-green"), "deploy/scripts/deploy.sh": "echo bg\n" }, { changelog: "blue-green deploys" }));
    assert.equal(upgraded.status, 200, await upgraded.clone().text());
    const up = await upgraded.json();
    assert.deepEqual([up.previous_version, up.skill.version, up.skill.description], ["1", "3", "Deploys with blue-green"]);
    const newest = (await versions()).versions[0];
    assert.deepEqual([newest.version, newest.changelog], ["3", "blue-green deploys"]);
    assert.match(await modelSees(h, api, sessionId, "three"), /Deploys with blue-green/);
  } finally {
    await h.close();
  }
});

test("a skill changed by hand since the API wrote it is kept as a version of its own, so a rollback loses nothing", async () => {
  const h = await startHarness();
  try {
    const { api, q, form, versions, rollback, skillMd } = await setUp(h);
    assert.equal((await form("/skills", formOf({ "deploy/SKILL.md": SKILL("Deploys to staging") }))).status, 201);
    await writeFile(skillMd, SKILL("Edited by hand"));
    const listed = await versions();
    assert.equal(listed.current_version, "2");
    assert.deepEqual(listed.versions.map((v) => [v.version, v.changelog]), [["2", "changed since version 1, not by this session's API calls (by hand, by a run)"], ["1", "registered"]]);
    // Seen again unchanged, it is no new version.
    assert.equal((await versions()).versions.length, 2);

    // Changed by hand again and rolled back straight away: the edit is kept before it is replaced.
    await writeFile(skillMd, SKILL("Edited by hand again"));
    const back = await rollback("1");
    assert.equal(back.status, 200);
    assert.equal((await back.json()).previous_version, "3");
    assert.equal(await readFile(skillMd, "utf8"), SKILL("Deploys to staging"));
    assert.equal((await rollback("3")).status, 200);
    assert.equal(await readFile(skillMd, "utf8"), SKILL("Edited by hand again"));

    // A hand edit the runs would not load is kept, and not put back.
    await writeFile(skillMd, "---\nname: deploy\n---\nno description\n");
    assert.equal((await rollback("1")).status, 200);
    const broken = await rollback("4");
    assert.equal(broken.status, 400);
    assert.match((await broken.json()).error.message, /would not load as the runs load it: .*no description/);
    assert.equal(await readFile(skillMd, "utf8"), SKILL("Deploys to staging"));

    // Uninstalled, its versions stay: one rolled back to puts it back.
    assert.equal((await api(`${V1}/skills/deploy${q}`, { method: "DELETE" })).status, 204);
    const uninstalled = await versions();
    assert.deepEqual([uninstalled.current_version, uninstalled.versions.length], ["", 4]);
    const restored = await rollback("3");
    assert.equal(restored.status, 200);
    assert.deepEqual([(await restored.json()).previous_version], [""]);
    assert.equal(await readFile(skillMd, "utf8"), SKILL("Edited by hand again"));

    // A skill put in the workspace by hand has its first version when first seen.
    const other = join(skillMd, "..", "..", "lint");
    await mkdir(other);
    await writeFile(join(other, "SKILL.md"), SKILL("Lints").replace("deploy", "lint"));
    const found = await (await api(`${V1}/skills/lint/versions${q}`)).json();
    assert.deepEqual([found.current_version, found.versions.map((v: { changelog: string }) => v.changelog)], ["1", ["as first found"]]);
  } finally {
    await h.close();
  }
});

test("at most 20 versions are kept, the oldest going first; unknown skills and versions are 404, bad input 400 naming the field", async () => {
  const h = await startHarness();
  try {
    const { api, q, sessionId, form, versions, describe, rollback } = await setUp(h);
    assert.equal((await form("/skills", formOf({ "deploy/SKILL.md": SKILL("Version 1") }))).status, 201);
    for (let i = 2; i <= 22; i++) assert.equal((await describe(`Version ${i}`)).status, 200);
    const listed = await versions();
    assert.equal(listed.versions.length, 20);
    assert.deepEqual([listed.versions[0].version, listed.versions.at(-1)!.version, listed.current_version], ["22", "3", "22"]);
    const gone = await rollback("2");
    assert.equal(gone.status, 404);
    const error = (await gone.json()).error;
    assert.equal(error.code, "skill_version_not_found");
    assert.match(error.message, /no version "2" \(those kept are 3, 4/);
    assert.equal((await api(`${V1}/skills/deploy/download${q}&version=1`)).status, 404);
    assert.equal((await rollback("3")).status, 200);

    // Grown by hand past what a version keeps: listed with a warning, and not replaced (it would be lost).
    const folder = join(h.workspace("alice", sessionId), ".claude", "skills", "deploy");
    for (let i = 0; i < 200; i++) await writeFile(join(folder, `note-${i}.txt`), "x");
    const large = await versions();
    assert.equal(large.current_version, "");
    assert.match((large as Versions & { warning: string }).warning, /more than a version keeps \(200 files/);
    const kept = await rollback("4");
    assert.equal(kept.status, 409);
    assert.match((await kept.json()).error.message, /changed outside this API and it holds more than a version keeps/);
    assert.equal((await describe("Changed")).status, 409);
    await rm(join(folder, "note-0.txt"));
    assert.equal((await rollback("4")).status, 200);

    const refused = async (response: Response, status: number, message: RegExp) => {
      const text = await response.text();
      assert.equal(response.status, status, text);
      assert.match(JSON.parse(text).error.message, message);
    };
    await refused(await api(`${V1}/skills/nope/versions${q}`), 404, /no skill "nope"/);
    await refused(await api(`${V1}/skills/nope/rollback${q}`, { method: "POST", body: JSON.stringify({ version: "1" }) }), 404, /no skill "nope"/);
    await refused(await rollback(3), 400, /version: must be a string/);
    await refused(await rollback("v3"), 400, /version: must be a version's number/);
    await refused(await api(`${V1}/skills/deploy/rollback${q}`, { method: "POST", body: JSON.stringify({ version: "3", force: true }) }), 400, /force/);
    await refused(await api(`${V1}/skills/deploy/rollback${q}`, { method: "POST", body: "{}" }), 400, /version/);
    await refused(await api(`${V1}/skills/deploy/download${q}&version=latest`), 400, /version/);
    await refused(await api(`${V1}/skills/deploy/versions`), 400, /session_id/);
    await refused(await form("/skills/nope/upgrade", formOf({ "nope/SKILL.md": SKILL("x").replace("deploy", "nope") })), 404, /no skill "nope"/);
    await refused(await form("/skills/deploy/upgrade", formOf({ "ship/SKILL.md": SKILL("x").replace("deploy", "ship") })), 400, /the skill "ship", not "deploy"/);
    await refused(await form("/skills/deploy/upgrade", formOf({ "deploy/SKILL.md": SKILL("x") }, { changelog: "x".repeat(1001) })), 400, /changelog: must be at most 1000/);
    await refused(await form("/skills/deploy/upgrade", formOf({ "deploy/SKILL.md": "---\nname: deploy\n---\nx" })), 400, /no description/);

    const home = join(h.dataDir, "home", ".claude", "skills", "mine");
    await mkdir(home, { recursive: true });
    await writeFile(join(home, "SKILL.md"), "---\ndescription: The user's\n---\nMine.");
    await refused(await api(`${V1}/skills/mine/versions${q}`), 403, /scope user/);
    await refused(await form("/skills/mine/upgrade", formOf({ "mine/SKILL.md": "---\ndescription: Changed\n---\nMine." })), 403, /scope user/);
    assert.equal((await apiAs(h.server.url, "bob")(`${V1}/skills/deploy/versions${q}`)).status, 404);

    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    for (const operation of ["skills.listVersions", "skills.rollback", "skills.upgrade", "skills.discover"]) assert.ok(caps.skills.operations.includes(operation), operation);
  } finally {
    await h.close();
  }
});

test("a fork keeps its source's versions; a deleted session's versions go with it", async () => {
  const h = await startHarness();
  try {
    const { api, sessionId, form, versions, describe } = await setUp(h);
    assert.equal((await form("/skills", formOf({ "deploy/SKILL.md": SKILL("Deploys to staging") }))).status, 201);
    assert.equal((await describe("Deploys to production")).status, 200);
    await modelSees(h, api, sessionId, "one");
    const fork = await api(`${V1}/sessions/${sessionId}/fork`, { method: "POST", body: "{}" });
    assert.equal(fork.status, 201, await fork.clone().text());
    const forkId: string = (await fork.json()).session.id;
    assert.deepEqual((await versions(forkId)).versions.map((v) => v.version), ["2", "1"]);
    const back = await api(`${V1}/skills/deploy/rollback?session_id=${forkId}`, { method: "POST", body: JSON.stringify({ version: "1" }) });
    assert.equal(back.status, 200);
    assert.equal((await versions()).current_version, "2", "the source's own are not changed");

    const kept = join(h.dataDir, "state", "alice", sessionId, "skill-versions");
    await access(kept);
    assert.equal((await api(`${V1}/sessions/${sessionId}`, { method: "DELETE" })).status, 204);
    await assert.rejects(access(kept), { code: "ENOENT" });
    assert.equal((await versions(forkId)).versions.length, 2);
  } finally {
    await h.close();
  }
});
