// The Open Harness memory blocks, written: blocks created, updated and deleted over the API are the
// workspace's memory files, and the session's next run sends the model what they say.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

/** What the model was sent in the session's run for `message`: its system prompt and messages. */
async function sentInRun(h: Harness, api: Api, sessionId: string, message: string): Promise<string> {
  h.fake.push({ text: "Noted." });
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message, session_id: sessionId }) }));
  const body = h.fake.requests.at(-1)!.body as { system?: unknown; messages: unknown };
  return JSON.stringify([body.system, body.messages]);
}

test("a memory block created over the API is in what the model is sent on the next run; updated it says the new text; deleted it is gone", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const blocks = `${V1}/agents/general-purpose/memory/blocks`;
    const workspace = h.workspace("alice", session.id);

    const created = await api(`${blocks}${q}`, { method: "POST", body: JSON.stringify({ label: "persona", value: "Speak like a lighthouse keeper." }) });
    assert.equal(created.status, 201);
    const { block } = await created.json();
    assert.deepEqual([block.label, block.value, block.read_only, block.scope], [".claude/rules/persona.md", "Speak like a lighthouse keeper.", false, "project"]);
    assert.equal(await readFile(join(workspace, ".claude", "rules", "persona.md"), "utf8"), "Speak like a lighthouse keeper.");
    assert.match(await sentInRun(h, api, session.id, "hello"), /Speak like a lighthouse keeper\./);

    const project = await api(`${blocks}${q}`, { method: "POST", body: JSON.stringify({ label: "CLAUDE.md", value: "Build with make." }) });
    assert.equal(project.status, 201);
    const again = await api(`${blocks}${q}`, { method: "POST", body: JSON.stringify({ label: "CLAUDE.md", value: "Build with npm." }) });
    assert.equal(again.status, 409);
    assert.equal((await again.json()).error.code, "memory_block_exists");

    const label = encodeURIComponent(".claude/rules/persona.md");
    await writeFile(join(workspace, ".claude", "rules", "persona.md"), "---\ndescription: how to speak\n---\nSpeak like a lighthouse keeper.");
    const updated = await api(`${blocks}/${label}${q}`, { method: "PUT", body: JSON.stringify({ value: "Speak like a ship's cook." }) });
    assert.equal(updated.status, 200);
    assert.equal((await updated.json()).block.value, "Speak like a ship's cook.");
    assert.equal(await readFile(join(workspace, ".claude", "rules", "persona.md"), "utf8"), "---\ndescription: how to speak\n---\nSpeak like a ship's cook.");
    const sent = await sentInRun(h, api, session.id, "hello again");
    assert.match(sent, /Speak like a ship's cook\./);
    assert.match(sent, /Build with make\./);
    assert.doesNotMatch(sent, /lighthouse/);

    assert.equal((await api(`${blocks}/${label}${q}`, { method: "DELETE" })).status, 204);
    assert.equal(existsSync(join(workspace, ".claude", "rules", "persona.md")), false);
    assert.equal((await api(`${blocks}/${label}${q}`)).status, 404);
    assert.doesNotMatch(await sentInRun(h, api, session.id, "and again"), /ship's cook/);
  } finally {
    await h.close();
  }
});

test("memory blocks the API does not write, or that the runs would not read, are refused with what is wrong", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "CLAUDE.md"), "Answer briefly.");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const blocks = `${V1}/agents/general-purpose/memory/blocks`;
    const refused = async (response: Response, status: number, pattern: RegExp) => {
      const { error } = await response.json();
      assert.equal(response.status, status, error.message);
      assert.match(error.message, pattern);
    };
    const create = (body: unknown) => api(`${blocks}${q}`, { method: "POST", body: JSON.stringify(body) });

    const user = encodeURIComponent("~/.claude/CLAUDE.md");
    await refused(await api(`${blocks}/${user}${q}`, { method: "PUT", body: JSON.stringify({ value: "Answer at length." }) }), 403, /user's home/);
    await refused(await api(`${blocks}/${user}${q}`, { method: "DELETE" }), 403, /user's home/);
    assert.equal(await readFile(join(home, ".claude", "CLAUDE.md"), "utf8"), "Answer briefly.");
    await refused(await create({ label: "~/.claude/CLAUDE.md", value: "x" }), 400, /label/);
    await refused(await create({ label: "README.md", value: "x" }), 400, /no memory file a run reads/);
    await refused(await create({ label: "../CLAUDE.md", value: "x" }), 400, /label/);
    await refused(await create({ label: "persona", value: "" }), 400, /value/);
    await refused(await create({ label: "persona", value: "x", read_only: true }), 501, /read_only/);
    await refused(await create({ label: "scoped", value: "---\npaths: src/**\n---\nOnly for src." }), 400, /would not be read/);
    assert.equal(existsSync(join(h.workspace("alice", session.id), ".claude", "rules", "scoped.md")), false);
    // Nor is a block changed into one the runs would not read: its file is left as it was.
    assert.equal((await create({ label: "scoped", value: "Everywhere." })).status, 201);
    const scoped = `${blocks}/${encodeURIComponent(".claude/rules/scoped.md")}${q}`;
    await refused(await api(scoped, { method: "PUT", body: JSON.stringify({ value: "---\npaths: src/**\n---\nOnly for src." }) }), 400, /would not be read at the runs' start.*it was left as it was/);
    assert.equal(await readFile(join(h.workspace("alice", session.id), ".claude", "rules", "scoped.md"), "utf8"), "Everywhere.");
    assert.equal((await (await api(scoped)).json()).block.value, "Everywhere.");
    await refused(await api(`${blocks}/CLAUDE.md${q}`, { method: "PUT", body: JSON.stringify({ value: "x" }) }), 404, /create one/);
    await refused(await api(`${V1}/agents/nobody/memory/blocks${q}`, { method: "POST", body: JSON.stringify({ label: "persona", value: "x" }) }), 404, /no agent/);
  } finally {
    await h.close();
  }
});

test("a block whose file holds a secret, read through the API and sent back with its ***, is refused, the file kept", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, ".claude"), { recursive: true });
    await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "tok-8c1d7e2f9a" } }));
    const original = "Deploy with the token tok-8c1d7e2f9a.\n";
    await writeFile(join(workspace, "CLAUDE.md"), original);
    const block = `${V1}/agents/general-purpose/memory/blocks/CLAUDE.md${q}`;
    const shown = (await (await api(block)).json()).block.value as string;
    assert.equal(shown, "Deploy with the token ***.\n");

    const echoed = await api(block, { method: "PUT", body: JSON.stringify({ value: `${shown}Run the tests first.\n` }) });
    assert.equal(echoed.status, 409);
    assert.match((await echoed.json()).error.message, /secret values, which this API shows as \*\*\*/);
    assert.equal(await readFile(join(workspace, "CLAUDE.md"), "utf8"), original);

    const whole = await api(block, { method: "PUT", body: JSON.stringify({ value: `${original}Run the tests first.\n` }) });
    assert.equal(whole.status, 200);
    assert.equal(await readFile(join(workspace, "CLAUDE.md"), "utf8"), `${original}Run the tests first.\n`);
  } finally {
    await h.close();
  }
});
