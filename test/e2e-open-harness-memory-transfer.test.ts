// The Open Harness memory searched, exported and imported: the session's memory files found by a
// query (secrets hidden), written out as a ZIP, and such a ZIP written back as blocks through the
// same checks as a block created or updated over the API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { readZip } from "../packages/server/src/open-harness/zip-reader.ts";
import { zipOf } from "../packages/server/src/open-harness/zip-writer.ts";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

async function zipBytes(files: Record<string, string>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const entries = Object.entries(files).map(([name, text]) => ({ name, modified: new Date(), mode: 0o100644, data: async () => Readable.from([Buffer.from(text)]) }));
  for await (const chunk of zipOf(entries)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function filesOf(zip: Buffer): Record<string, string> {
  return Object.fromEntries(readZip(zip, "zip", 100, 1 << 20, "test").map((file) => [file.name, file.data.toString("utf8")]));
}

test("memory search finds the blocks holding the query in any case, best first, secrets hidden; bad input is named", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, ".claude", "rules"), { recursive: true });
    await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "tok-8c1d7e2f9a" } }));
    await writeFile(join(workspace, "CLAUDE.md"), "# Project\nDeploy with the token tok-8c1d7e2f9a.\nBuild with make.\n");
    await writeFile(join(workspace, ".claude", "rules", "deploy.md"), "Deploy on Fridays? Never.\nDEPLOY from main only.\n");
    const search = (body: unknown) => api(`${V1}/agents/general-purpose/memory/search?session_id=${session.id}`, { method: "POST", body: JSON.stringify(body) });

    const found = await (await search({ query: "deploy" })).json();
    assert.deepEqual(found.results, [
      { source: "block", label: ".claude/rules/deploy.md", content: "Deploy on Fridays? Never.\nDEPLOY from main only.", matches: 2, relevance_score: 1 },
      { source: "block", label: "CLAUDE.md", content: "Deploy with the token ***.", matches: 1, relevance_score: 0.5 },
    ]);
    assert.deepEqual((await (await search({ query: "tok-8c1d" })).json()).results, [], "a secret is not found through its value");
    assert.equal((await (await search({ query: "DEPLOY", limit: 1, include_archive: true })).json()).results.length, 1);

    for (const [body, field] of [[{}, /query/], [{ query: "" }, /query/], [{ query: "x", limit: 101 }, /limit/], [{ query: "x", top: 3 }, /top/]] as const) {
      const bad = await search(body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.match((await bad.json()).error.message, field);
    }
    assert.equal((await api(`${V1}/agents/general-purpose/memory/search`, { method: "POST", body: JSON.stringify({ query: "x" }) })).status, 400, "session_id is needed");
  } finally {
    await h.close();
  }
});

test("memory exported as a ZIP of the workspace's memory files is imported back as blocks, overwriting or skipping, through the blocks' checks", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const workspace = h.workspace("alice", session.id);
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "CLAUDE.md"), "Answer briefly.");
    await mkdir(join(workspace, ".claude", "rules"), { recursive: true });
    await writeFile(join(workspace, "CLAUDE.md"), "Build with make.\n");
    await writeFile(join(workspace, ".claude", "rules", "persona.md"), "---\ndescription: how to speak\n---\nSpeak like a lighthouse keeper.\n");

    const response = await api(`${V1}/agents/general-purpose/memory/export${q}`, { method: "POST", body: "{}" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/zip");
    assert.match(response.headers.get("content-disposition") ?? "", /^attachment; filename="memory-general-purpose-\d{4}-\d\d-\d\dT[\d-]+Z\.zip"$/);
    const zip = Buffer.from(await response.arrayBuffer());
    const files = filesOf(zip);
    assert.deepEqual(Object.keys(files).sort(), [".claude/rules/persona.md", "CLAUDE.md"].map((label) => `blocks/${label}`).concat(["archive.json", "blocks.json"]).sort());
    assert.equal(files["blocks/.claude/rules/persona.md"], "---\ndescription: how to speak\n---\nSpeak like a lighthouse keeper.\n", "the file as it is");
    assert.equal(files["archive.json"], "[]\n");
    const listed = JSON.parse(files["blocks.json"]) as { label: string; value: string; read_only: boolean }[];
    assert.deepEqual(listed.map((block) => [block.label, block.read_only]).sort(), [[".claude/rules/persona.md", false], ["CLAUDE.md", false]]);
    assert.ok(!JSON.stringify(files).includes("Answer briefly"), "the user's own blocks are not the session's to export");

    // Into another session: every block is new.
    const other = (await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json()).session;
    const otherSpace = h.workspace("alice", other.id);
    const importInto = (sessionId: string, snapshot: Buffer | string, fields: Record<string, string> = {}) => {
      const form = new FormData();
      form.set("snapshot", new Blob([typeof snapshot === "string" ? snapshot : new Uint8Array(snapshot)]), "memory.zip");
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      return fetch(`${h.server.url}${V1}/agents/general-purpose/memory/import?session_id=${sessionId}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
    };
    const fresh = await importInto(other.id, zip);
    assert.equal(fresh.status, 200);
    assert.deepEqual(await fresh.json(), { blocks_imported: 2, archive_entries_imported: 0, conflicts: [] });
    assert.equal(await readFile(join(otherSpace, ".claude", "rules", "persona.md"), "utf8"), files["blocks/.claude/rules/persona.md"]);
    assert.equal(await readFile(join(otherSpace, "CLAUDE.md"), "utf8"), "Build with make.\n");

    // Back into the first: skip keeps what is there, overwrite replaces it; both name the conflicts.
    await writeFile(join(workspace, "CLAUDE.md"), "Build with npm.\n");
    await rm(join(workspace, ".claude", "rules", "persona.md"));
    const skipped = await (await importInto(session.id, zip, { merge_strategy: "skip" })).json();
    assert.deepEqual(skipped, { blocks_imported: 1, archive_entries_imported: 0, conflicts: ["CLAUDE.md"] });
    assert.equal(await readFile(join(workspace, "CLAUDE.md"), "utf8"), "Build with npm.\n");
    assert.ok(existsSync(join(workspace, ".claude", "rules", "persona.md")));
    const overwritten = await (await importInto(session.id, zip)).json();
    assert.deepEqual(overwritten, { blocks_imported: 2, archive_entries_imported: 0, conflicts: ["CLAUDE.md", ".claude/rules/persona.md"] });
    assert.equal(await readFile(join(workspace, "CLAUDE.md"), "utf8"), "Build with make.\n");

    // What would not be a block is refused naming it, and nothing is written.
    const refusals: [Buffer | string, Record<string, string>, number, RegExp][] = [
      [await zipBytes({ "blocks/notes.txt": "x" }), {}, 400, /snapshot: blocks\/notes\.txt: .*no memory file a run reads/],
      [await zipBytes({ "blocks/CLAUDE.md": "" }), {}, 400, /snapshot: blocks\/CLAUDE\.md: must not be empty/],
      [await zipBytes({ "blocks/../CLAUDE.md": "x" }), {}, 400, /snapshot: blocks\/\.\.\/CLAUDE\.md/],
      [await zipBytes({ "README.md": "x" }), {}, 400, /snapshot: README\.md is none of a memory export's files/],
      [await zipBytes({ "blocks.json": JSON.stringify([{ label: "AGENTS.md", value: "x" }]) }), {}, 400, /blocks\.json lists "AGENTS\.md" without its file/],
      [await zipBytes({ "archive.json": JSON.stringify([{ content: "old", created_at: "yesterday" }]), "blocks/AGENTS.md": "x" }), {}, 400, /snapshot: archive\.json\[0\]\.created_at: must be a date/],
      [zip, { merge_strategy: "merge" }, 501, /merge_strategy: merge is not supported/],
      [zip, { merge_strategy: "newest" }, 400, /merge_strategy: must be overwrite, skip or merge/],
      ["not a zip", {}, 400, /^snapshot: not a ZIP archive/],
    ];
    for (const [snapshot, fields, status, message] of refusals) {
      const refused = await importInto(session.id, snapshot, fields);
      assert.equal(refused.status, status, String(message));
      const error = (await refused.json()).error;
      assert.match(error.message, message);
      assert.equal(error.operation, "memory.import");
    }
    assert.equal(existsSync(join(workspace, "AGENTS.md")), false);
    const noSnapshot = await fetch(`${h.server.url}${V1}/agents/general-purpose/memory/import?session_id=${session.id}`, { method: "POST", body: new FormData(), headers: { "x-harness-user": "alice" } });
    assert.equal(noSnapshot.status, 400);
    assert.match((await noSnapshot.json()).error.message, /^snapshot: required/);
    const badExport = await api(`${V1}/agents/general-purpose/memory/export${q}`, { method: "POST", body: JSON.stringify({ format: "tar" }) });
    assert.equal(badExport.status, 400);
    assert.match((await badExport.json()).error.message, /format/);
  } finally {
    await h.close();
  }
});

test("an import that would write *** over a secret is refused, the file kept", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const workspace = h.workspace("alice", session.id);
    await mkdir(join(workspace, ".claude"), { recursive: true });
    await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "tok-8c1d7e2f9a" } }));
    const original = "Deploy with the token tok-8c1d7e2f9a.\n";
    await writeFile(join(workspace, "CLAUDE.md"), original);
    const form = new FormData();
    form.set("snapshot", new Blob([new Uint8Array(await zipBytes({ "blocks/CLAUDE.md": "Deploy with the token ***.\n" }))]), "memory.zip");
    const refused = await fetch(`${h.server.url}${V1}/agents/general-purpose/memory/import?session_id=${session.id}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
    assert.equal(refused.status, 409);
    assert.match((await refused.json()).error.message, /secret values, which this API shows as \*\*\*/);
    assert.equal(await readFile(join(workspace, "CLAUDE.md"), "utf8"), original);
  } finally {
    await h.close();
  }
});
