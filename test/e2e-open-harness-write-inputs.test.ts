// The Open Harness write routes given odd input: bundle paths that name no file, names too long for
// the file system or written with Windows' separator, a hook event named after what every object
// has, an agent's bundle or file without its frontmatter. Each is refused 400 naming what is wrong
// (never a 500, never the server's own paths), and nothing is written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";
import { zipOf } from "../packages/server/src/open-harness/zip-writer.ts";

const SKILL = "---\nname: deploy\ndescription: Deploys\n---\nRun.\n";

async function zipHolding(name: string, text: string): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.from(zipOf([{ name, modified: new Date(), mode: 0o100644, data: async () => Readable.from([Buffer.from(text)]) }]))) chunks.push(Buffer.from(chunk));
  return new Uint8Array(Buffer.concat(chunks));
}

test("bundle paths naming no file, too long, or with backslashes, a hook event such as constructor, and agents without frontmatter are refused 400 naming why", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const upload = (path: string, form: FormData) => fetch(`${h.server.url}${V1}${path}${q}`, { method: "POST", body: form, headers: { "x-harness-user": "alice" } });
    const refused = async (response: Response, message: RegExp) => {
      const text = await response.text();
      assert.equal(response.status, 400, text);
      assert.match(JSON.parse(text).error.message, message);
      assert.doesNotMatch(text, /harness-skill-|\/tmp\//);
    };
    const skill = (files: Record<string, string>) => {
      const form = new FormData();
      for (const [path, text] of Object.entries(files)) form.append("files", new Blob([text]), path);
      return form;
    };
    for (const path of [".", "/", "./"]) await refused(await upload("/skills", skill({ "SKILL.md": SKILL, [path]: "x" })), new RegExp(`^files: "${path.replace(".", "\\.")}" names the skill's folder itself, not a file in it`));
    await refused(await upload("/skills", skill({ "SKILL.md": SKILL, ["a".repeat(300)]: "x" })), /^files: "a{300}" has a name too long for the file system/);
    // Each folder of each file is made and entered one by one as the skill is written: their depth is bounded.
    await refused(await upload("/skills", skill({ "SKILL.md": SKILL, [`${"a/".repeat(17)}deep.sh`]: "x" })), /^files: "(a\/){17}deep\.sh" is 17 folders deep: a skill's files are at most 16 deep/);
    await refused(await upload("/skills/validate", skill({ "SKILL.md": SKILL, "scripts\\deploy.sh": "x" })), /^files: "scripts\\deploy\.sh": must separate its folders with "\/", not "\\"/);
    await rm(join(h.workspace("alice", session.id), ".claude", "skills"), { recursive: true, force: true });

    for (const event of ["constructor", "__proto__", "toString"]) {
      const response = await api(`${V1}/hooks${q}`, { method: "POST", body: JSON.stringify({ event: "custom", harness_event: event, handler: { type: "command", command: "true" } }) });
      const text = await response.text();
      assert.equal(response.status, 400, text);
      assert.match(JSON.parse(text).error.message, new RegExp(`^harness_event: unknown hook event "${event}"; supported events: PreToolUse, `));
    }

    const bundle = new FormData();
    bundle.append("bundle", new Blob([await zipHolding("AGENTS.md", "Just a prompt.")]), "agent.zip");
    bundle.append("rename_to", "helper");
    await refused(await upload("/agents/import", bundle), /^bundle: .*frontmatter/);
    const unclosed = new FormData();
    unclosed.append("metadata", JSON.stringify({ name: "helper", description: "Helps" }));
    unclosed.append("files", new Blob(["---\nname: helper\nJust a prompt."]), "helper.md");
    await refused(await upload("/agents", unclosed), /^files: .*frontmatter/);
    assert.deepEqual(await readdir(h.workspace("alice", session.id)).catch(() => []), []);
  } finally {
    await h.close();
  }
});

test("a workspace that leads to the server's home through a link: its .claude is the user's, and hooks and memory blocks are not written there (403)", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), "{}\n");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const workspace = h.workspace("alice", session.id);
    await rm(workspace, { recursive: true, force: true });
    await mkdir(join(workspace, ".."), { recursive: true });
    await symlink(home, workspace);
    const forbidden = async (path: string, body: unknown) => {
      const response = await api(`${V1}${path}${q}`, { method: "POST", body: JSON.stringify(body) });
      const text = await response.text();
      assert.equal(response.status, 403, text);
      assert.match(JSON.parse(text).error.message, /the user's own configuration \(~\/\.claude, ~\/\.claude\.json\), which is read only over this API/);
    };
    for (const scope of ["project", "local"]) await forbidden("/hooks", { event: "pre_tool", scope, handler: { type: "command", command: "echo hi" } });
    for (const label of ["persona", ".claude/CLAUDE.md", ".claude/rules/team.md"]) await forbidden("/agents/general-purpose/memory/blocks", { label, value: "Be brief." });
    assert.deepEqual(await readdir(join(home, ".claude")), ["settings.json"]);
    assert.equal(await readFile(join(home, ".claude", "settings.json"), "utf8"), "{}\n");
  } finally {
    await h.close();
  }
});

test("a skill whose folder a run named with quotes or letters beyond ASCII downloads under a plain file name", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    for (const [folder, file] of [['we"ird', "we_ird.zip"], ["déploy", "d_ploy.zip"], ['x"; filename="evil.sh', "x___filename__evil.sh.zip"]]) {
      const dir = join(h.workspace("alice", session.id), ".claude", "skills", folder!);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "SKILL.md"), "---\ndescription: Odd\n---\nRun.\n");
      const response = await api(`${V1}/skills/${encodeURIComponent(folder!)}/download${q}`);
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(response.headers.get("content-disposition"), `attachment; filename="${file}"`);
      assert.ok(Buffer.from(await response.arrayBuffer()).includes(Buffer.from(`${folder}/SKILL.md`)));
    }
  } finally {
    await h.close();
  }
});
