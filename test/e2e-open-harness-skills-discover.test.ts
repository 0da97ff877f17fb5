// skills.discover over the Open Harness API: the skills a session's runs find (registered by being
// where the runs read them), and the skill folders of the workspace's search paths, registered or not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const SKILL = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\nDo it.\n`;

test("discover lists the skills the runs find, registered, and the skill folders of the workspace's search paths", async () => {
  const h = await startHarness();
  try {
    const api = apiAs(h.server.url);
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const sessionId: string = session.id;
    const q = `?session_id=${sessionId}`;
    const body = new FormData();
    body.append("files", new Blob([SKILL("deploy")]), "deploy/SKILL.md");
    assert.equal((await fetch(`${h.server.url}${V1}/skills${q}`, { method: "POST", body, headers: { "x-harness-user": "alice" } })).status, 201);
    const workspace = h.workspace("alice", sessionId);
    for (const name of ["lint", "deploy"]) {
      await mkdir(join(workspace, "vendor", "skills", name), { recursive: true });
      await writeFile(join(workspace, "vendor", "skills", name, "SKILL.md"), SKILL(name));
    }
    await mkdir(join(workspace, "vendor", "skills", "notes"), { recursive: true });
    const home = join(h.dataDir, "home", ".claude", "skills", "mine");
    await mkdir(home, { recursive: true });
    await writeFile(join(home, "SKILL.md"), "---\ndescription: The user's\n---\nMine.");
    const discover = (body: unknown) => api(`${V1}/skills/discover${q}`, { method: "POST", body: JSON.stringify(body) });
    const found = await discover({ search_paths: ["/vendor/skills"] });
    assert.equal(found.status, 200, await found.clone().text());
    const { discovered } = await found.json();
    const rows = discovered.map((d: Record<string, unknown>) => [d.name, d.path, d.category, d.already_registered]).sort();
    assert.deepEqual(rows, [
      ["deploy", ".claude/skills/deploy", "user", true],
      ["deploy", "vendor/skills/deploy", "user", true],
      ["lint", "vendor/skills/lint", "user", false],
      ["mine", "~/.claude/skills/mine", "user", true],
    ]);
    assert.equal((await (await discover({})).json()).discovered.length, 2);
    const refused = async (response: Response, status: number, message: RegExp) => {
      const text = await response.text();
      assert.equal(response.status, status, text);
      assert.match(JSON.parse(text).error.message, message);
    };
    await refused(await discover({ search_paths: ["../elsewhere"] }), 400, /search_paths/);
    await refused(await discover({ search_paths: "vendor" }), 400, /search_paths: must be an array/);
    await refused(await discover({ search_paths: ["missing"] }), 404, /search_paths: no file "missing"/);
    await refused(await discover({ paths: [] }), 400, /paths/);
  } finally {
    await h.close();
  }
});
