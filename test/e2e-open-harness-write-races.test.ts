// The Open Harness write routes under requests that race: a change racing a removal of the same
// agent, skill or memory block never brings it back once the removal has answered, and two changes
// of one file at once both land (neither is lost).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
const exists = (file: string) => readFile(file).then(() => true, () => false);

test("an agent changed while it is deleted is not brought back, and two changes at once both land", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const file = join(h.workspace("alice", session.id), ".claude", "agents", "racer.md");
    for (let i = 0; i < 5; i++) {
      assert.equal((await api(`${V1}/agents${q}`, json("POST", { name: "racer", description: "Races", config: { system_prompt: "Go." } }))).status, 201);
      const [changed, deleted] = await Promise.all([api(`${V1}/agents/racer${q}`, json("PATCH", { description: `Races ${i}` })), api(`${V1}/agents/racer${q}`, { method: "DELETE" })]);
      assert.equal(deleted.status, 204, await deleted.text());
      // Changed first and then deleted, or found gone.
      assert.ok([200, 404].includes(changed.status), await changed.text());
      assert.equal(await exists(file), false, `round ${i}: the deleted agent is back (its change answered ${changed.status})`);
    }
    assert.equal((await api(`${V1}/agents${q}`, json("POST", { name: "racer", description: "Races", config: { system_prompt: "Go." } }))).status, 201);
    const both = await Promise.all([api(`${V1}/agents/racer${q}`, json("PATCH", { description: "Races fast" })), api(`${V1}/agents/racer${q}`, json("PATCH", { config: { model: "haiku" } }))]);
    assert.deepEqual(both.map((r) => r.status), [200, 200]);
    assert.equal(await readFile(file, "utf8"), "---\nname: racer\ndescription: Races fast\nmodel: haiku\n---\n\nGo.\n");
  } finally {
    await h.close();
  }
});

test("a skill changed while it is uninstalled is not brought back half, and a memory block updated while it is deleted stays deleted", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const workspace = h.workspace("alice", session.id);
    const skills = join(workspace, ".claude", "skills");
    for (let i = 0; i < 5; i++) {
      await mkdir(join(skills, "deploy", "scripts"), { recursive: true });
      await writeFile(join(skills, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploys\n---\nRun scripts/deploy.sh.\n");
      for (let n = 0; n < 20; n++) await writeFile(join(skills, "deploy", "scripts", `step-${n}.sh`), "echo step\n");
      const [changed, removed] = await Promise.all([api(`${V1}/skills/deploy${q}`, json("PATCH", { description: `Deploys ${i}` })), api(`${V1}/skills/deploy${q}`, { method: "DELETE" })]);
      assert.equal(removed.status, 204, await removed.text());
      assert.ok([200, 404].includes(changed.status), await changed.text());
      assert.deepEqual(await readdir(skills), [], `round ${i}: the uninstalled skill is back (its change answered ${changed.status})`);
    }
    const agent = `${V1}/agents/general-purpose/memory/blocks`;
    for (let i = 0; i < 5; i++) {
      assert.equal((await api(`${agent}${q}`, json("POST", { label: "persona", value: "Be brief." }))).status, 201);
      const label = encodeURIComponent(".claude/rules/persona.md");
      const [updated, deleted] = await Promise.all([api(`${agent}/${label}${q}`, json("PUT", { value: `Be brief ${i}.` })), api(`${agent}/${label}${q}`, { method: "DELETE" })]);
      assert.equal(deleted.status, 204, await deleted.text());
      assert.ok([200, 404].includes(updated.status), await updated.text());
      assert.equal(await exists(join(workspace, ".claude", "rules", "persona.md")), false, `round ${i}: the deleted block is back (its update answered ${updated.status})`);
    }
  } finally {
    await h.close();
  }
});

test("a hook removed twice at once, or changed as it is removed, leaves the hook after it alone", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const settings = join(h.workspace("alice", session.id), ".claude", "settings.json");
    const commands = async () => JSON.parse(await readFile(settings, "utf8")).hooks?.PreToolUse?.map((group: { hooks: { command: string }[] }) => group.hooks[0]!.command) ?? [];
    const register = (command: string) => api(`${V1}/hooks${q}`, json("POST", { event: "pre_tool", matcher: "Read", handler: { type: "command", command } }));
    const first = `${V1}/hooks/project.PreToolUse.0.0${q}`;
    assert.equal((await register("echo second")).status, 201);
    for (let i = 0; i < 3; i++) {
      await writeFile(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "echo first" }] }, { matcher: "Read", hooks: [{ type: "command", command: "echo second" }] }] } }));
      const statuses = (await Promise.all([api(first, { method: "DELETE" }), api(first, { method: "DELETE" })])).map((r) => r.status).sort();
      assert.deepEqual(await commands(), ["echo second"], `round ${i}: the deletes answered ${statuses}`);
      assert.deepEqual(statuses, [204, 409]);

      await writeFile(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "echo first" }] }, { matcher: "Read", hooks: [{ type: "command", command: "echo second" }] }] } }));
      const [changed, deleted] = await Promise.all([api(first, json("PATCH", { handler: { type: "command", command: "echo changed" } })), api(first, { method: "DELETE" })]);
      // The first hook deleted, its change finding it gone; or changed, its deletion finding it changed.
      const order = `round ${i}: the change answered ${changed.status}, the deletion ${deleted.status}`;
      if (deleted.status === 204) assert.deepEqual([changed.status, await commands()], [409, ["echo second"]], order);
      else assert.deepEqual([changed.status, deleted.status, await commands()], [200, 409, ["echo changed", "echo second"]], order);
    }
  } finally {
    await h.close();
  }
});
