import assert from "node:assert/strict";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { writeHomeAndProject } from "../testing/home-and-project.ts";
import { discoverPlugins } from "./discover.ts";
import { loadPlugin } from "./load-plugin.ts";
import { parseManifest } from "./manifest.ts";

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "plugins-"));
});
after(() => rm(root, { recursive: true, force: true }));

let n = 0;
async function setup(files: Record<string, string>) {
  return writeHomeAndProject(path.join(root, `p${++n}`), files);
}

const installed = (plugins: Record<string, unknown>) => JSON.stringify({ version: 2, plugins });

describe("parseManifest", () => {
  const at = "/plugins/tools";
  test("name is required; metadata and component paths are read, resolved against the plugin's root", () => {
    assert.deepEqual(parseManifest({ version: "1.0.0" }, at), { ok: false, message: "name: required (every plugin.json needs a name)" });
    const parsed = parseManifest(
      { name: "tools", version: "1.2.0", description: "Tools", author: { name: "Me" }, commands: "./cmds", agents: ["./a/x.md"], skills: "./more-skills", hooks: ["./h.json", { hooks: {} }], mcpServers: { db: { command: "db" } }, homepage: "x", $schema: "y", somethingElse: 1 },
      at,
    );
    assert.deepEqual(parsed, {
      ok: true,
      manifest: {
        name: "tools",
        version: "1.2.0",
        description: "Tools",
        commands: ["/plugins/tools/cmds"],
        agents: ["/plugins/tools/a/x.md"],
        skills: ["/plugins/tools/more-skills"],
        hooks: { files: ["/plugins/tools/h.json"], inline: [{ hooks: {} }] },
        mcpServers: { files: [], inline: [{ db: { command: "db" } }] },
      },
    });
  });

  test("a known field of the wrong type, a name with a space or a colon, or a path out of the plugin makes it invalid, with the reason", () => {
    const reason = (value: unknown) => {
      const parsed = parseManifest(value, at);
      return parsed.ok ? "ok" : parsed.message;
    };
    assert.equal(reason([]), "must contain a JSON object");
    assert.match(reason({ name: "my tools" }), /one word/);
    assert.match(reason({ name: "a:b" }), /one word/);
    assert.equal(reason({ name: "t", version: 2 }), "version: must be a string");
    assert.equal(reason({ name: "t", keywords: "a" }), "keywords: must be a list of strings");
    assert.match(reason({ name: "t", commands: "cmds" }), /commands: "cmds" must be a path relative to the plugin's root, starting with "\.\/"/);
    assert.match(reason({ name: "t", agents: ["./../other/a.md"] }), /leads out of the plugin's directory/);
    assert.equal(reason({ name: "t", mcpServers: 3 }), 'mcpServers: must be a path ("./file.json"), a list of them, or an object');
  });
});

describe("loadPlugin", () => {
  test("without a manifest, the plugin is named as given and its default folders are used", async () => {
    const s = await setup({ "plug/commands/hi.md": "Say hi" });
    const loaded = await loadPlugin(path.join(s.base, "plug"), { fallbackName: "plug", source: "plugin-dir", home: s.home });
    assert.ok(loaded.ok);
    assert.equal(loaded.plugin.name, "plug");
    assert.equal(loaded.plugin.id, "plug@inline");
    assert.equal(loaded.plugin.dataDir, path.join(s.home, ".claude", "plugins", "data", "plug-inline"));
    assert.deepEqual(loaded.plugin.commandPaths, [path.join(s.base, "plug", "commands")]);
    assert.deepEqual(loaded.plugin.skillDirs, [path.join(s.base, "plug", "skills")]);
  });

  test("manifest paths replace commands/agents/output-styles but add to skills; hooks and MCP servers of the default files and the manifest join", async () => {
    const s = await setup({
      "plug/.claude-plugin/plugin.json": JSON.stringify({
        name: "kit",
        commands: ["./extra/deploy.md"],
        skills: "./more",
        hooks: { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo inline" }] }] } },
        mcpServers: "./servers.json",
      }),
      "plug/hooks/hooks.json": JSON.stringify({ description: "guards", hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"${CLAUDE_PLUGIN_ROOT}/guard.sh" ${CLAUDE_PLUGIN_DATA}' }] }] } }),
      "plug/.mcp.json": JSON.stringify({ mcpServers: { db: { command: "${CLAUDE_PLUGIN_ROOT}/db" } } }),
      "plug/servers.json": JSON.stringify({ api: { type: "http", url: "https://example.com/mcp" }, db: { command: "other" } }),
    });
    const dir = path.join(s.base, "plug");
    const loaded = await loadPlugin(dir, { fallbackName: "kit", id: "kit@market", source: "installed", home: s.home });
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.diagnostics, []);
    const { plugin } = loaded;
    assert.deepEqual(plugin.commandPaths, [path.join(dir, "extra", "deploy.md")]);
    assert.deepEqual(plugin.agentPaths, [path.join(dir, "agents")]);
    assert.deepEqual(plugin.skillDirs, [path.join(dir, "skills"), path.join(dir, "more")]);
    const dataDir = path.join(s.home, ".claude", "plugins", "data", "kit-market");
    assert.deepEqual(plugin.hooks.PreToolUse, [
      { matcher: "Bash", hooks: [{ type: "command", command: `"${dir}/guard.sh" ${dataDir}`, env: { CLAUDE_PLUGIN_ROOT: dir, CLAUDE_PLUGIN_DATA: dataDir } }] },
    ]);
    assert.equal(plugin.hooks.Stop?.[0]?.hooks[0]?.type, "command");
    assert.deepEqual(
      plugin.mcpServers.map((server) => [server.name, server.key]),
      [
        ["plugin:kit:db", "mcpServers.db"],
        ["plugin:kit:api", "api"],
      ],
    );
  });

  test("${CLAUDE_PLUGIN_DATA} named by a hook or an MCP server is made, as Claude Code makes it the first time it is referenced", async () => {
    const s = await setup({
      "uses/hooks/hooks.json": JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: 'cd "${CLAUDE_PLUGIN_DATA}"' }] }] } }),
      "plain/.mcp.json": JSON.stringify({ mcpServers: { db: { command: "db" } } }),
      "plain/hooks/hooks.json": JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "true" }] }] } }),
    });
    const uses = await loadPlugin(path.join(s.base, "uses"), { fallbackName: "uses", source: "plugin-dir", home: s.home });
    const plain = await loadPlugin(path.join(s.base, "plain"), { fallbackName: "plain", source: "plugin-dir", home: s.home });
    assert.ok(uses.ok && plain.ok);
    assert.equal((await stat(uses.plugin.dataDir)).isDirectory(), true);
    await assert.rejects(stat(plain.plugin.dataDir), { code: "ENOENT" });
  });

  test("a manifest that is not JSON, a hooks.json that is not JSON, a manifest file that is missing, or no directory: the plugin is not loaded, and the message names it", async () => {
    const s = await setup({
      "bad-json/.claude-plugin/plugin.json": "{ name: ",
      "bad-hooks/hooks/hooks.json": "[1,",
      "missing-file/.claude-plugin/plugin.json": JSON.stringify({ name: "missing-file", hooks: "./nope.json" }),
    });
    const reason = async (dir: string) => {
      const loaded = await loadPlugin(path.join(s.base, dir), { fallbackName: dir, source: "plugin-dir", home: s.home });
      assert.equal(loaded.ok, false);
      return loaded.ok ? "" : `${loaded.diagnostic.file}: ${loaded.diagnostic.message}`;
    };
    assert.match(await reason("bad-json"), /bad-json\/\.claude-plugin\/plugin\.json: Plugin bad-json is not loaded: .*line 1/);
    assert.match(await reason("bad-hooks"), /bad-hooks\/hooks\/hooks\.json: Plugin bad-hooks is not loaded/);
    assert.match(await reason("missing-file"), /Plugin missing-file is not loaded: the manifest's hooks names .*nope\.json, which does not exist/);
    assert.match(await reason("nowhere"), /Plugin nowhere is not loaded: its directory does not exist/);
  });
});

describe("discoverPlugins", () => {
  test("loads the installed plugins the settings enable, from their install path; disabled and unlisted ones are left out, the latter named", async () => {
    const s = await setup({
      "cache/kit/1.0.0/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "1.0.0" }),
      "cache/off/.claude-plugin/plugin.json": JSON.stringify({ name: "off" }),
    });
    await writeHomeAndProject(s.base, {
      "home/.claude/plugins/installed_plugins.json": installed({
        "kit@market": [{ scope: "user", installPath: path.join(s.base, "cache/kit/1.0.0"), version: "1.0.0" }],
        "off@market": [{ scope: "user", installPath: path.join(s.base, "cache/off") }],
      }),
    });
    const found = await discoverPlugins({ home: s.home, projectRoot: s.projectRoot, enabledPlugins: { "kit@market": true, "off@market": false, "ghost@market": true } });
    assert.deepEqual(
      found.plugins.map((p) => [p.name, p.id, p.version, p.source]),
      [["kit", "kit@market", "1.0.0", "installed"]],
    );
    assert.equal(found.diagnostics.length, 1);
    assert.match(found.diagnostics[0]!.message, /Plugin ghost@market is enabled in the settings but not installed.*, and its marketplace "market" is not added; add it with: harness plugin marketplace add <directory\|git URL\|owner\/repo>, then install it with: harness plugin install ghost@market$/);
  });

  test("a project's own installation is chosen over the user's; a --plugin-dir plugin replaces an installed one of its name; a broken one is skipped and the rest load", async () => {
    const s = await setup({
      "cache/kit-user/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "1" }),
      "cache/kit-project/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "2" }),
      "cache/tools/.claude-plugin/plugin.json": JSON.stringify({ name: "tools", version: "installed" }),
      "dev/tools/.claude-plugin/plugin.json": JSON.stringify({ name: "tools", version: "dev" }),
      "dev/broken/.claude-plugin/plugin.json": JSON.stringify({ version: "1" }),
    });
    await writeHomeAndProject(s.base, {
      "home/.claude/plugins/installed_plugins.json": installed({
        "kit@m": [
          { scope: "user", installPath: path.join(s.base, "cache/kit-user") },
          { scope: "project", projectPath: s.projectRoot, installPath: path.join(s.base, "cache/kit-project") },
        ],
        "tools@m": [{ scope: "user", installPath: path.join(s.base, "cache/tools") }],
      }),
    });
    const found = await discoverPlugins({
      home: s.home,
      projectRoot: s.projectRoot,
      enabledPlugins: { "kit@m": true, "tools@m": true },
      pluginDirs: ["dev/tools", "dev/broken"],
      cwd: s.base,
    });
    assert.deepEqual(
      found.plugins.map((p) => [p.name, p.version, p.source]),
      [
        ["kit", "2", "installed"],
        ["tools", "dev", "plugin-dir"],
      ],
    );
    assert.equal(found.diagnostics.length, 1);
    assert.match(found.diagnostics[0]!.message, /Plugin broken is not loaded: name: required/);
  });

  test("a plugin installed for another project only is not loaded here, and the message says where it is installed", async () => {
    const s = await setup({ "cache/kit-a/.claude-plugin/plugin.json": JSON.stringify({ name: "kit" }) });
    const other = path.join(s.base, "project-a");
    await writeHomeAndProject(s.base, {
      "home/.claude/plugins/installed_plugins.json": installed({
        "kit@m": [{ scope: "project", projectPath: other, installPath: path.join(s.base, "cache/kit-a") }],
      }),
    });
    const found = await discoverPlugins({ home: s.home, projectRoot: s.projectRoot, enabledPlugins: { "kit@m": true } });
    assert.deepEqual(found.plugins, []);
    assert.equal(found.diagnostics.length, 1);
    assert.match(found.diagnostics[0]!.message, /Plugin kit@m is installed only for other projects \(.*project-a\), not for this one; install it here with: harness plugin install kit@m --scope project \(or for every project, without --scope\)$/);
  });

  test("an installed_plugins.json that is not JSON, or holds no plugins object, is named once; the plugins it would list are not each said to be missing", async () => {
    for (const text of ["{ not json", "[]"]) {
      const s = await setup({ "home/.claude/plugins/installed_plugins.json": text });
      const found = await discoverPlugins({ home: s.home, projectRoot: s.projectRoot, enabledPlugins: { "kit@m": true, "tools@m": true } });
      assert.deepEqual(found.plugins, []);
      assert.equal(found.diagnostics.length, 1, JSON.stringify(found.diagnostics));
      assert.match(found.diagnostics[0]!.message, /no installed plugin is loaded$/);
    }
  });

  test("the managed settings' enabled plugins are marked as theirs; enabledPlugins that is no object is named", async () => {
    const s = await setup({ "cache/kit/commands/x.md": "x" });
    await writeHomeAndProject(s.base, { "home/.claude/plugins/installed_plugins.json": installed({ "kit@m": { installPath: path.join(s.base, "cache/kit") } }) });
    const found = await discoverPlugins({
      home: s.home,
      projectRoot: s.projectRoot,
      enabledPlugins: { "kit@m": true },
      sources: [{ scope: "managed", path: "/etc/claude-code/managed-settings.json", settings: { enabledPlugins: { "kit@m": true } } }],
    });
    assert.equal(found.plugins[0]?.managed, true);
    assert.equal(found.plugins[0]?.name, "kit");
    const bad = await discoverPlugins({ home: s.home, projectRoot: s.projectRoot, enabledPlugins: ["kit@m"] });
    assert.deepEqual(bad.plugins, []);
    assert.match(bad.diagnostics[0]!.message, /must be an object/);
  });
});
