// The Open Harness memory archive: long-term notes kept as files of the archive/ folder of the
// session's auto memory directory, each with a front matter (id, created_at, metadata). Listed newest
// first, counted in memory.get, found by memory.search, carried by export and import; never loaded
// at a run's start, but named to the model so that it can search them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { readZip } from "../packages/server/src/open-harness/zip-reader.ts";
import { zipOf } from "../packages/server/src/open-harness/zip-writer.ts";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

type Entry = { id: string; content: string; created_at: string; metadata?: Record<string, unknown> };

async function zipBytes(files: Record<string, string>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const entries = Object.entries(files).map(([name, text]) => ({ name, modified: new Date(), mode: 0o100644, data: async () => Readable.from([Buffer.from(text)]) }));
  for await (const chunk of zipOf(entries)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A session whose auto memory directory is ~/notes, or the settings' autoMemoryDirectory (set in the user's settings). */
async function withNotes(h: Harness, api: Api, settings: Record<string, unknown> = {}) {
  const home = join(h.dataDir, "home");
  await mkdir(join(home, ".claude"), { recursive: true });
  await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/notes", ...settings }));
  const dir = typeof settings.autoMemoryDirectory === "string" ? settings.autoMemoryDirectory : join(home, "notes");
  const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  const archive = `${V1}/agents/general-purpose/memory/archive?session_id=${session.id}`;
  const add = (body: unknown) => api(archive, { method: "POST", body: JSON.stringify(body) });
  return { session, notes: dir, archive, add, q: `?session_id=${session.id}` };
}

test("archive entries are added as files of the auto memory directory's archive/, listed newest first a page at a time, counted and searched", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { notes, archive, add, q } = await withNotes(h, api, { env: { DEPLOY_TOKEN: "tok-8c1d7e2f9a" } });
    const added: Entry[] = [];
    for (const [content, metadata] of [["The staging database moved to db2 in March.", { topic: "infra" }], ["Ana prefers small pull requests.", undefined], ["Deploy with tok-8c1d7e2f9a from main only.", { topic: "deploy", tags: ["ci"] }]] as const) {
      const response = await add({ content, ...(metadata && { metadata }) });
      assert.equal(response.status, 201);
      const { entry } = await response.json();
      assert.match(entry.id, /^[A-Za-z0-9][A-Za-z0-9_-]*$/);
      assert.ok(!Number.isNaN(Date.parse(entry.created_at)));
      added.push(entry);
    }
    assert.deepEqual(added[0].metadata, { topic: "infra" });
    assert.equal(added[1].metadata, undefined);
    assert.equal(added[2].content, "Deploy with *** from main only.", "shown with its secrets hidden");

    // Each a file of archive/, its front matter giving its id, created_at and metadata.
    const file = await readFile(join(notes, "archive", `${added[0].id}.md`), "utf8");
    assert.equal(file, `---\nid: ${added[0].id}\ncreated_at: ${added[0].created_at}\nmetadata: {"topic":"infra"}\n---\nThe staging database moved to db2 in March.`);
    assert.match(await readFile(join(notes, "archive", `${added[2].id}.md`), "utf8"), /tok-8c1d7e2f9a/, "written as sent");

    // One written by hand with the front matter counts; a file without one does not.
    await writeFile(join(notes, "archive", "by-hand.md"), "---\ncreated_at: 2020-01-02T03:04:05.000Z\n---\nThe old build used make.\n");
    await writeFile(join(notes, "archive", "scratch.md"), "no front matter here");
    await writeFile(join(notes, "MEMORY.md"), "- [Staging](staging.md) - where staging is\n");

    const listed = await (await api(archive)).json();
    assert.deepEqual(listed.data.map((e: Entry) => e.content), [added[2].content, added[1].content, added[0].content, "The old build used make.\n"]);
    assert.deepEqual([listed.total, listed.limit, listed.offset, listed.has_more], [4, 20, 0, false]);
    assert.deepEqual(listed.data[3], { id: "by-hand", content: "The old build used make.\n", created_at: "2020-01-02T03:04:05.000Z" });
    const second = await (await api(`${archive}&limit=2&offset=1`)).json();
    assert.deepEqual(second.data.map((e: Entry) => e.id), [added[1].id, added[0].id]);
    assert.deepEqual([second.total, second.has_more], [4, true]);

    const { memory } = await (await api(`${V1}/agents/general-purpose/memory${q}`)).json();
    assert.equal(memory.archive_size, 4);
    assert.deepEqual(memory.blocks.map((b: { label: string }) => b.label), ["~/notes/MEMORY.md"], "the archive is no block");

    const search = async (body: Record<string, unknown>) => (await (await api(`${V1}/agents/general-purpose/memory/search${q}`, { method: "POST", body: JSON.stringify(body) })).json()).results;
    assert.deepEqual(await search({ query: "STAGING" }), [
      { source: "block", label: "~/notes/MEMORY.md", content: "- [Staging](staging.md) - where staging is", matches: 3, relevance_score: 1 },
      { source: "archive", id: added[0].id, content: "The staging database moved to db2 in March.", matches: 1, relevance_score: 0.333 },
    ]);
    assert.deepEqual((await search({ query: "staging", include_archive: false })).map((r: { source: string }) => r.source), ["block"]);
    assert.deepEqual(await search({ query: "tok-8c1d" }), [], "a secret is not found through its value");
    assert.deepEqual((await search({ query: "make" })).map((r: { id?: string }) => r.id), ["by-hand"]);
  } finally {
    await h.close();
  }
});

test("bad archive input is refused 400 naming the field; with auto memory off the archive is 409 naming the setting", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { notes, archive, add, session } = await withNotes(h, api);
    const refusals: [unknown, RegExp][] = [
      [{}, /^content: /],
      [{ content: "" }, /^content: must not be empty/],
      [{ content: "x".repeat(100_001) }, /^content: must be at most 100000 characters/],
      [{ content: 3 }, /^content: /],
      [{ content: "x", metadata: ["a"] }, /^metadata: must be a JSON object/],
      [{ content: "x", metadata: "a" }, /^metadata: must be a JSON object/],
      [{ content: "x", metadata: { big: "y".repeat(17_000) } }, /^metadata: must be at most 16384 bytes as JSON/],
      [{ content: "x", tags: [] }, /tags/],
    ];
    for (const [body, message] of refusals) {
      const refused = await add(body);
      assert.equal(refused.status, 400, JSON.stringify(body).slice(0, 80));
      const error = (await refused.json()).error;
      assert.match(error.message, message);
      assert.equal(error.operation, "memory.addToArchive");
    }
    for (const [query, field] of [["&limit=0", /limit/], ["&offset=-1", /offset/], ["&limit=x", /limit/]] as const) {
      const refused = await api(`${archive}${query}`);
      assert.equal(refused.status, 400, query);
      assert.match((await refused.json()).error.message, field);
    }
    assert.equal(existsSync(join(notes, "archive")), false, "nothing was written");
    assert.equal((await api(`${V1}/agents/nobody/memory/archive?session_id=${session.id}`)).status, 404);
    assert.equal((await api(`${V1}/agents/general-purpose/memory/archive`)).status, 400, "session_id is needed");

    await api(`${V1}/files/.claude/settings.json?session_id=${session.id}`, { method: "PUT", body: JSON.stringify({ autoMemoryEnabled: false }) });
    for (const [response, operation] of [[await add({ content: "x" }), "memory.addToArchive"], [await api(archive), "memory.getArchive"]] as const) {
      assert.equal(response.status, 409);
      const error = (await response.json()).error;
      assert.equal(error.code, "auto_memory_disabled");
      assert.equal(error.operation, operation);
      assert.match(error.message, /autoMemoryEnabled is false in \.claude\/settings\.json/);
    }
    const { memory } = await (await api(`${V1}/agents/general-purpose/memory?session_id=${session.id}`)).json();
    assert.equal(memory.archive_size, 0);
  } finally {
    await h.close();
  }
});

test("the archive is exported in archive.json and imported appended, ids kept unless taken; a run is not given it but is told where it is", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const archive = `${V1}/agents/general-purpose/memory/archive${q}`;
    await api(`${V1}/files/CLAUDE.md${q}`, { method: "PUT", body: "Build with make.\n" });
    const first = (await (await api(archive, { method: "POST", body: JSON.stringify({ content: "ARCHIVED-FACT-7731: the cache lives in /var/cache/app.", metadata: { source: "test" } }) })).json()).entry;
    const second = (await (await api(archive, { method: "POST", body: JSON.stringify({ content: "Releases happen on Tuesdays." }) })).json()).entry;

    // By default the directory is Claude Code's, in the runs' home: ~/.claude/projects/<project>/memory.
    const projects = join(home, ".claude", "projects");
    const [project] = await readdir(projects);
    const memoryDir = join(projects, project!, "memory");
    assert.ok(existsSync(join(memoryDir, "archive", `${first.id}.md`)));

    const exported = await api(`${V1}/agents/general-purpose/memory/export${q}`, { method: "POST", body: "{}" });
    assert.equal(exported.status, 200);
    const zip = Buffer.from(await exported.arrayBuffer());
    const files = Object.fromEntries(readZip(zip, "zip", 100, 1 << 20, "test").map((file) => [file.name, file.data.toString("utf8")]));
    assert.deepEqual(JSON.parse(files["archive.json"]), [second, first], "newest first, as listed");
    const withoutArchive = Object.fromEntries(readZip(Buffer.from(await (await api(`${V1}/agents/general-purpose/memory/export${q}`, { method: "POST", body: JSON.stringify({ include_archive: false }) })).arrayBuffer()), "zip", 100, 1 << 20, "test").map((file) => [file.name, file.data.toString("utf8")]));
    assert.equal(withoutArchive["archive.json"], "[]\n");

    const importInto = (sessionId: string, snapshot: Buffer) => {
      const form = new FormData();
      form.set("snapshot", new Blob([new Uint8Array(snapshot)]), "memory.zip");
      return fetch(`${h.server.url}${V1}/agents/general-purpose/memory/import?session_id=${sessionId}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
    };
    // Into the same session: appended, the ids taken given new ones.
    const again = await importInto(session.id, zip);
    assert.equal(again.status, 200);
    assert.deepEqual(await again.json(), { blocks_imported: 1, archive_entries_imported: 2, conflicts: ["CLAUDE.md"] });
    const listed = (await (await api(`${archive}&limit=100`)).json()).data as Entry[];
    assert.equal(listed.length, 4);
    assert.equal(new Set(listed.map((e) => e.id)).size, 4);
    assert.equal(listed.filter((e) => e.content === first.content).length, 2);
    assert.deepEqual(listed.find((e) => e.content === first.content && e.id !== first.id)?.metadata, { source: "test" });
    assert.ok(listed.every((e) => e.created_at === first.created_at || e.created_at === second.created_at), "created_at kept");

    // An archive alone, into another project: ids kept.
    const other = (await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json()).session;
    const alone = await importInto(other.id, await zipBytes({ "archive.json": files["archive.json"] }));
    assert.deepEqual(await alone.json(), { blocks_imported: 0, archive_entries_imported: 2, conflicts: [] });
    assert.deepEqual((await (await api(`${V1}/agents/general-purpose/memory/archive?session_id=${other.id}`)).json()).data, [second, first]);
    for (const [entries, message] of [[[{ content: "" }], /archive\.json\[0\]\.content: must not be empty/], [{}, /archive\.json: must be a list/], [[{ content: "x", metadata: 3 }], /archive\.json\[0\]\.metadata/]] as const) {
      const refused = await importInto(other.id, await zipBytes({ "archive.json": JSON.stringify(entries), "blocks/AGENTS.md": "x" }));
      assert.equal(refused.status, 400);
      assert.match((await refused.json()).error.message, message);
    }
    assert.equal(existsSync(join(h.workspace("alice", other.id), "AGENTS.md")), false, "nothing written when an entry is refused");

    // A run reads MEMORY.md but not the archive, and its system prompt names archive/.
    h.fake.push({ text: "Noted." });
    await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: session.id }) }));
    const request = h.fake.requests.at(-1)!.body;
    const everything = JSON.stringify(request);
    assert.ok(!everything.includes("ARCHIVED-FACT-7731"), "the archive is not in the run's context");
    const system = JSON.stringify(request.system);
    assert.ok(system.includes(`${memoryDir}/`), "the auto memory directory is named");
    assert.match(system, /archive\//);
  } finally {
    await h.close();
  }
});

test("the model finds an archived entry with Grep in the auto memory directory without asking", async (t) => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  // Outside the server's data directory, as a real home is: the runs may use only their own workspace there.
  const notes = await mkdtemp(join(tmpdir(), "harness-notes-"));
  t.after(() => rm(notes, { recursive: true, force: true }));
  try {
    const { session, add } = await withNotes(h, api, { autoMemoryDirectory: notes });
    assert.equal((await add({ content: "ARCHIVED-FACT-7731: the cache lives in /var/cache/app." })).status, 201);
    h.fake.push({ toolUses: [{ name: "Grep", input: { pattern: "ARCHIVED-FACT", path: join(notes, "archive"), output_mode: "content" } }] }, { text: "Found it." });
    const events = (await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "where is the cache?", session_id: session.id }) }))).map((e) => e.data);
    assert.ok(!JSON.stringify(h.fake.requests[0]!.body).includes("the cache lives"), "not given at the start");
    const result = events.find((e) => e.type === "tool_result") as { success?: boolean } | undefined;
    assert.equal(result?.success, true, JSON.stringify(result));
    assert.ok(JSON.stringify(h.fake.requests.at(-1)!.body.messages).includes("ARCHIVED-FACT-7731: the cache lives in /var/cache/app."), "the tool result gives the entry's line");
  } finally {
    await h.close();
  }
});
