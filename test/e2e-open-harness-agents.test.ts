// The Open Harness agents and memory domains, read only: the sub-agents a session's runs would have
// (their .claude/agents files) and the memory files they read (CLAUDE.md and its imports).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const REVIEWER = ["---", "name: reviewer", "description: Reviews a change", "model: haiku", "skills: lint, style", "mcpServers:", "  - github", "---", "Review with DEPLOY_TOKEN dt-0123456789abcdef at hand."].join("\n");

test("a session's agents are its runs' sub-agents, from the user's and the workspace's .claude/agents", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude", "agents"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "dt-0123456789abcdef" } }));
    await writeFile(join(home, ".claude", "agents", "reviewer.md"), REVIEWER);
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    await api(`${V1}/files/.claude/agents/tester.md${q}`, { method: "PUT", body: "---\nname: tester\ndescription: Runs the tests\n---\nRun them." });

    const list = await (await api(`${V1}/agents${q}&limit=100`)).json();
    const names = list.data.map((agent: { id: string }) => agent.id);
    for (const name of ["general-purpose", "reviewer", "tester"]) assert.ok(names.includes(name), `${name} is listed`);
    assert.equal(list.total, names.length);
    const reviewer = (await (await api(`${V1}/agents/reviewer${q}`)).json()).agent;
    assert.deepEqual({ ...reviewer, created_at: undefined, updated_at: undefined }, {
      id: "reviewer",
      name: "reviewer",
      description: "Reviews a change",
      version: "",
      skills: [{ skill_id: "lint", required: true }, { skill_id: "style", required: true }],
      mcp_servers: [{ server_id: "github", required: true }],
      config: { model: "haiku", system_prompt: "Review with DEPLOY_TOKEN *** at hand." },
      scope: "user",
      created_at: undefined,
      updated_at: undefined,
    });
    assert.ok(!Number.isNaN(Date.parse(reviewer.updated_at)));
    const tester = (await (await api(`${V1}/agents/tester${q}`)).json()).agent;
    assert.deepEqual([tester.scope, tester.config, tester.skills], ["project", { system_prompt: "Run them." }, []]);

    const missing = await api(`${V1}/agents/nobody${q}`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "agent_not_found");
    const bob = apiAs(h.server.url, "bob");
    for (const path of ["/agents", "/agents/reviewer", "/agents/reviewer/memory"]) {
      const other = await bob(`${V1}${path}${q}`);
      assert.equal(other.status, 404, `${path} of another user's session`);
      assert.equal((await other.json()).error.code, "session_not_found");
    }
    const noSession = await api(`${V1}/agents`);
    assert.equal(noSession.status, 400);
    assert.match((await noSession.json()).error.message, /session_id/);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual([caps.agents.supported, caps.agents.operations.slice(0, 2)], [true, ["agents.list", "agents.get"]]);
  } finally {
    await h.close();
  }
});

test("an agent's memory is the CLAUDE.md files its runs read, each a block (read only outside the workspace), imports included", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ env: { DEPLOY_TOKEN: "dt-0123456789abcdef" } }));
    await writeFile(join(home, ".claude", "CLAUDE.md"), "Answer briefly.");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    await api(`${V1}/files/CLAUDE.md${q}`, { method: "PUT", body: "Build with npm.\n@docs/notes.md" });
    await api(`${V1}/files/docs/notes.md${q}`, { method: "PUT", body: "Deploy with dt-0123456789abcdef." });
    await api(`${V1}/files/CLAUDE.local.md${q}`, { method: "PUT", body: "I use vim." });

    const { memory } = await (await api(`${V1}/agents/general-purpose/memory${q}`)).json();
    assert.equal(memory.agent_id, "general-purpose");
    assert.equal(memory.archive_size, 0);
    assert.deepEqual(memory.blocks.map((block: { label: string; value: string; read_only: boolean }) => [block.label, block.value, block.read_only]), [
      ["~/.claude/CLAUDE.md", "Answer briefly.", true],
      ["CLAUDE.md", "Build with npm.\n@docs/notes.md", false],
      ["docs/notes.md", "Deploy with ***.", false],
      ["CLAUDE.local.md", "I use vim.", false],
    ]);
    for (const block of memory.blocks) assert.ok(!Number.isNaN(Date.parse(block.updated_at)));
    assert.deepEqual((await (await api(`${V1}/agents/general-purpose/memory/blocks${q}`)).json()).blocks, memory.blocks);
    const one = await (await api(`${V1}/agents/general-purpose/memory/blocks/${encodeURIComponent("docs/notes.md")}${q}`)).json();
    assert.deepEqual(one.block, memory.blocks[2]);
    const missing = await api(`${V1}/agents/general-purpose/memory/blocks/persona${q}`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "memory_block_not_found");
    assert.equal((await api(`${V1}/agents/nobody/memory${q}`)).status, 404);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual([caps.memory.supported, caps.memory.operations], [true, ["memory.get", "memory.listBlocks", "memory.getBlock", "memory.createBlock", "memory.updateBlock", "memory.deleteBlock", "memory.search", "memory.export", "memory.import", "memory.getArchive", "memory.addToArchive"]]);
  } finally {
    await h.close();
  }
});

test("memory leaves out the files claudeMdExcludes names, and has auto memory's MEMORY.md while auto memory is on", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, "notes"), { recursive: true });
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/notes", claudeMdExcludes: ["**/CLAUDE.local.md"] }));
    await writeFile(join(home, "notes", "MEMORY.md"), "- the tests need a database\n");
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    await api(`${V1}/files/CLAUDE.md${q}`, { method: "PUT", body: "Build with npm." });
    await api(`${V1}/files/CLAUDE.local.md${q}`, { method: "PUT", body: "I use vim." });
    const blocks = async () => (await (await api(`${V1}/agents/general-purpose/memory/blocks${q}`)).json()).blocks.map((block: { label: string; value: string; scope: string }) => [block.label, block.value, block.scope]);
    assert.deepEqual(await blocks(), [
      ["CLAUDE.md", "Build with npm.", "project"],
      ["~/notes/MEMORY.md", "- the tests need a database", "auto"],
    ]);
    await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify({ autoMemoryEnabled: false }) });
    assert.deepEqual(await blocks(), [["CLAUDE.md", "Build with npm.", "project"]]);
  } finally {
    await h.close();
  }
});

test("an enabled plugin's agents are listed, named plugin:agent, with scope plugin", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    const kit = join(home, "plugin-cache", "kit");
    await mkdir(join(kit, ".claude-plugin"), { recursive: true });
    await mkdir(join(kit, "agents"), { recursive: true });
    await mkdir(join(home, ".claude", "plugins"), { recursive: true });
    await writeFile(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit" }));
    await writeFile(join(kit, "agents", "helper.md"), "---\nname: helper\ndescription: Helps\n---\nHelp.");
    await writeFile(join(home, ".claude", "plugins", "installed_plugins.json"), JSON.stringify({ version: 2, plugins: { "kit@market": [{ scope: "user", installPath: kit }] } }));
    await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ enabledPlugins: { "kit@market": true } }));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const agent = (await (await api(`${V1}/agents/${encodeURIComponent("kit:helper")}?session_id=${session.id}`)).json()).agent;
    assert.deepEqual([agent?.id, agent?.description, agent?.scope, agent?.config], ["kit:helper", "Helps", "plugin", { system_prompt: "Help." }]);
  } finally {
    await h.close();
  }
});
