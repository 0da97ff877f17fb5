import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { expandEnv } from "./expand-env.ts";
import { loadMcpConfig } from "./load-config.ts";

let root: string;
let project: string;
let home: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "mcp-config-"));
});
after(() => rm(root, { recursive: true, force: true }));

let n = 0;
async function dirs(files: { mcpJson?: unknown; claudeJson?: (project: string) => unknown; rawMcpJson?: string } = {}) {
  n++;
  project = join(root, `project-${n}`);
  home = join(root, `home-${n}`);
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  if (files.rawMcpJson !== undefined) await writeFile(join(project, ".mcp.json"), files.rawMcpJson);
  if (files.mcpJson !== undefined) await writeFile(join(project, ".mcp.json"), JSON.stringify(files.mcpJson));
  if (files.claudeJson) await writeFile(join(home, ".claude.json"), JSON.stringify(files.claudeJson(project)));
}

describe("expandEnv", () => {
  const env = { HOME_DIR: "/home/me", EMPTY: "", TOKEN: "s3cret" };
  test("expands ${VAR} and ${VAR:-default}, leaves $VAR alone", () => {
    assert.deepEqual(expandEnv("${HOME_DIR}/bin and $HOME_DIR", env), { value: "/home/me/bin and $HOME_DIR", missing: [] });
    assert.deepEqual(expandEnv("${NOPE:-fallback}-${TOKEN:-x}", env), { value: "fallback-s3cret", missing: [] });
    assert.deepEqual(expandEnv("${EMPTY:-used}|${EMPTY}|", env), { value: "used||", missing: [] });
  });
  test("an unset variable without default stays literal and is reported", () => {
    assert.deepEqual(expandEnv("Bearer ${API_TOKEN}", env), { value: "Bearer ${API_TOKEN}", missing: ["API_TOKEN"] });
  });
});

describe("loadMcpConfig", () => {
  test("reads the three transports from .mcp.json with ${VAR} expansion in every field", async () => {
    await dirs({
      mcpJson: {
        mcpServers: {
          local: { command: "${BIN_DIR}/server", args: ["--root", "${ROOT:-/srv}"], env: { KEY: "${KEY}" } },
          typed: { type: "stdio", command: "node" },
          remote: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${KEY}" } },
          legacy: { type: "sse", url: "http://127.0.0.1:9/sse" },
        },
      },
    });
    const config = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: { BIN_DIR: "/opt", KEY: "k1", HOST: "example.com" } });
    assert.deepEqual(config.diagnostics, []);
    const file = join(project, ".mcp.json");
    assert.deepEqual(config.servers, [
      { name: "local", scope: "project", file, type: "stdio", command: "/opt/server", args: ["--root", "/srv"], env: { KEY: "k1" } },
      { name: "typed", scope: "project", file, type: "stdio", command: "node", args: [], env: {} },
      { name: "remote", scope: "project", file, type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer k1" } },
      { name: "legacy", scope: "project", file, type: "sse", url: "http://127.0.0.1:9/sse", headers: {} },
    ]);
  });

  test("invalid entries become diagnostics naming file, key and problem; the rest loads", async () => {
    await dirs({
      mcpJson: {
        mcpServers: {
          good: { command: "node" },
          noCommand: { args: ["x"] },
          urlWithoutType: { url: "https://example.com/mcp" },
          websocket: { type: "ws", url: "ws://example.com" },
          badArgs: { command: "node", args: "--flag" },
          badEnv: { command: "node", env: { PORT: 8080 } },
          badUrl: { type: "http", url: "not a url" },
          notObject: "node server.js",
        },
      },
    });
    const config = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {} });
    assert.deepEqual(config.servers.map((s) => s.name), ["good"]);
    const file = join(project, ".mcp.json");
    assert.deepEqual(config.diagnostics, [
      { file, key: "mcpServers.noCommand.command", message: 'missing "command" (the program to start)' },
      { file, key: "mcpServers.urlWithoutType", message: 'missing "command"; a server with a "url" needs "type": "http" or "sse"' },
      { file, key: "mcpServers.websocket.type", message: 'unsupported type "ws": expected "stdio", "http" or "sse"' },
      { file, key: "mcpServers.badArgs.args", message: '"args" must be an array of strings' },
      { file, key: "mcpServers.badEnv.env.PORT", message: '"env" values must be strings' },
      { file, key: "mcpServers.badUrl.url", message: '"url" must be an http or https URL, got "not a url"' },
      { file, key: "mcpServers.notObject", message: "must be an object" },
    ]);
  });

  test("a remote server's oauth keys give a pre-registered client and a fixed callback port; bad ones are diagnostics naming the server and the key", async () => {
    const url = "https://example.com/mcp";
    await dirs({
      mcpJson: {
        mcpServers: {
          slack: { type: "http", url, oauth: { clientId: "123.456", callbackPort: 8080, scopes: "chat:write" } },
          portOnly: { type: "sse", url, oauth: { callbackPort: 65535 } },
          emptyId: { type: "http", url, oauth: { clientId: "" } },
          numberId: { type: "http", url, oauth: { clientId: 42 } },
          portZero: { type: "http", url, oauth: { callbackPort: 0 } },
          portTooHigh: { type: "http", url, oauth: { callbackPort: 65536 } },
          portFraction: { type: "http", url, oauth: { callbackPort: 80.5 } },
          portText: { type: "http", url, oauth: { callbackPort: "8080" } },
          oauthList: { type: "http", url, oauth: ["clientId"] },
          secretInFile: { type: "http", url, oauth: { clientId: "abc", clientSecret: "s3cret" } },
        },
      },
    });
    const config = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {} });
    const oauth = Object.fromEntries(config.servers.map((s) => [s.name, s.type === "stdio" ? undefined : s.oauth]));
    assert.deepEqual(oauth, { slack: { clientId: "123.456", callbackPort: 8080 }, portOnly: { callbackPort: 65535 }, secretInFile: { clientId: "abc" } });
    const file = join(project, ".mcp.json");
    const port = '"oauth.callbackPort" must be a port number from 1 to 65535';
    assert.deepEqual(config.diagnostics, [
      { file, key: "mcpServers.emptyId.oauth.clientId", message: '"oauth.clientId" is empty' },
      { file, key: "mcpServers.numberId.oauth.clientId", message: '"oauth.clientId" must be a string' },
      { file, key: "mcpServers.portZero.oauth.callbackPort", message: port },
      { file, key: "mcpServers.portTooHigh.oauth.callbackPort", message: port },
      { file, key: "mcpServers.portFraction.oauth.callbackPort", message: port },
      { file, key: "mcpServers.portText.oauth.callbackPort", message: port },
      { file, key: "mcpServers.oauthList.oauth", message: '"oauth" must be an object' },
      { file, key: "mcpServers.secretInFile.oauth.clientSecret", message: 'a client secret is not read from config files: give it with "harness mcp add --client-secret", which keeps it in the sign-in file' },
    ]);
  });

  test("oauth.clientId expands ${VAR} and ${VAR:-default} as url and headers do; an unset one is reported with its key", async () => {
    const url = "https://example.com/mcp";
    await dirs({
      mcpJson: {
        mcpServers: {
          fromEnv: { type: "http", url, oauth: { clientId: "${MCP_CLIENT_ID}", callbackPort: 8080 } },
          withDefault: { type: "http", url, oauth: { clientId: "${UNSET_ID:-fallback-id}" } },
          unset: { type: "http", url, oauth: { clientId: "${UNSET_ID}" } },
          emptyAfter: { type: "http", url, oauth: { clientId: "${EMPTY_ID}" } },
        },
      },
    });
    const config = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: { MCP_CLIENT_ID: "123.456", EMPTY_ID: "" } });
    const oauth = Object.fromEntries(config.servers.map((s) => [s.name, s.type === "stdio" ? undefined : s.oauth]));
    assert.deepEqual(oauth, { fromEnv: { clientId: "123.456", callbackPort: 8080 }, withDefault: { clientId: "fallback-id" }, unset: { clientId: "${UNSET_ID}" } });
    const file = join(project, ".mcp.json");
    assert.deepEqual(config.diagnostics, [
      { file, key: "mcpServers.unset.oauth.clientId", message: "environment variable UNSET_ID is not set and has no default; ${UNSET_ID} is used as literal text" },
      { file, key: "mcpServers.emptyAfter.oauth.clientId", message: '"oauth.clientId" is empty once ${EMPTY_ID} is expanded' },
    ]);
  });

  test("an unset variable is reported but the server still loads with the literal text", async () => {
    await dirs({ mcpJson: { mcpServers: { api: { type: "http", url: "https://example.com/mcp", headers: { "X-Key": "${MISSING_KEY}" } } } } });
    const config = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {} });
    assert.equal(config.servers.length, 1);
    assert.deepEqual((config.servers[0] as { headers: unknown }).headers, { "X-Key": "${MISSING_KEY}" });
    assert.equal(config.diagnostics.length, 1);
    assert.equal(config.diagnostics[0].key, "mcpServers.api.headers.X-Key");
    assert.match(config.diagnostics[0].message, /MISSING_KEY is not set/);
  });

  test("a broken .mcp.json is one diagnostic; settings servers still load", async () => {
    await dirs({ rawMcpJson: '{ "mcpServers": { ' });
    const config = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {}, settings: { mcpServers: { fromSettings: { command: "node" } } } });
    assert.deepEqual(config.servers.map((s) => [s.name, s.scope, s.file]), [["fromSettings", "settings", "settings"]]);
    assert.equal(config.diagnostics.length, 1);
    assert.equal(config.diagnostics[0].file, join(project, ".mcp.json"));
    assert.match(config.diagnostics[0].message, /^invalid JSON: .*\(line 1 column \d+\)$/);
  });

  test("a byte-order mark is read past, and an empty .mcp.json holds no servers", async () => {
    await dirs({ rawMcpJson: `\ufeff${JSON.stringify({ mcpServers: { fs: { command: "node" } } })}` });
    const withBom = await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {} });
    assert.deepEqual(withBom.servers.map((s) => s.name), ["fs"]);
    assert.deepEqual(withBom.diagnostics, []);
    await dirs({ rawMcpJson: "\n" });
    assert.deepEqual(await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {} }), { servers: [], disabled: [], diagnostics: [] });
  });

  test("a server the main thread's agent defines under a configured server's name is left out, said naming the agent's file", async () => {
    await dirs();
    const config = await loadMcpConfig({
      projectRoot: project,
      home,
      env: {},
      settings: { mcpServers: { helper: { command: "configured" } } },
      agent: { file: "/agents/tooled.md", servers: { helper: { command: "own" }, extra: { command: "extra" } } },
    });
    assert.deepEqual(
      config.servers.map((server) => [server.name, server.type === "stdio" && server.command]),
      [
        ["helper", "configured"],
        ["extra", "extra"],
      ],
    );
    assert.deepEqual(config.diagnostics, [{ file: "/agents/tooled.md", key: "mcpServers.helper", message: 'MCP server "helper" is not started: a configured server has that name, and is used instead' }]);
  });

  test("no config anywhere gives no servers and no diagnostics", async () => {
    await dirs();
    assert.deepEqual(await loadMcpConfig({ projectRoot: project, home, requireProjectApproval: false, env: {} }), { servers: [], disabled: [], diagnostics: [] });
  });

  test("~/.claude.json user and local servers; precedence settings > local > project > user", async () => {
    await dirs({
      mcpJson: { mcpServers: { shared: { command: "project-shared" }, proj: { command: "project-only" } } },
      claudeJson: (p) => ({
        mcpServers: { shared: { command: "user-shared" }, mine: { command: "user-only" }, both: { command: "user-both" } },
        projects: { [p]: { mcpServers: { both: { command: "local-both" } } }, "/elsewhere": { mcpServers: { other: { command: "x" } } } },
      }),
    });
    const config = await loadMcpConfig({
      requireProjectApproval: false,
      projectRoot: project,
      home,
      env: {},
      settings: { mcpServers: { proj: { command: "settings-proj" } } },
    });
    const summary = Object.fromEntries(config.servers.map((s) => [s.name, [s.scope, s.type === "stdio" ? s.command : s.url]]));
    assert.deepEqual(summary, {
      proj: ["settings", "settings-proj"],
      both: ["local", "local-both"],
      shared: ["project", "project-shared"],
      mine: ["user", "user-only"],
    });
    assert.deepEqual(config.diagnostics, []);
  });

  test(".mcp.json servers start only once approved by the user's settings or ~/.claude.json, never by the project's own", async () => {
    await dirs({ mcpJson: { mcpServers: { a: { command: "a" }, b: { command: "b" }, c: { command: "c" } } } });
    const none = await loadMcpConfig({ projectRoot: project, home, env: {}, settings: { enableAllProjectMcpServers: true, enabledMcpjsonServers: ["a"] } });
    assert.deepEqual(none.servers, []);
    assert.deepEqual(none.disabled.map((d) => d.name), ["a", "b", "c"]);
    assert.match(none.disabled[0].reason, /^not approved: .*enabledMcpjsonServers.*~\/\.claude\/settings\.json.*~\/\.claude\.json/);

    const approved = await loadMcpConfig({ projectRoot: project, home, env: {}, approvals: { enabledMcpjsonServers: ["a"] }, settings: { disabledMcpjsonServers: ["b"] } });
    assert.deepEqual(approved.servers.map((s) => s.name), ["a"]);
    assert.deepEqual(approved.disabled, [
      { name: "b", reason: "listed in disabledMcpjsonServers" },
      { name: "c", reason: approved.disabled[1].reason },
    ]);
    const all = await loadMcpConfig({ projectRoot: project, home, env: {}, approvals: { enableAllProjectMcpServers: true }, settings: { disabledMcpjsonServers: ["b"] } });
    assert.deepEqual(all.servers.map((s) => s.name), ["a", "c"]);
    const trusting = await loadMcpConfig({ projectRoot: project, home, env: {}, requireProjectApproval: false });
    assert.deepEqual(trusting.servers.map((s) => s.name), ["a", "b", "c"]);
  });

  test("approvals Claude Code recorded in the project's entry of ~/.claude.json count", async () => {
    await dirs({ mcpJson: { mcpServers: { a: { command: "a" }, b: { command: "b" } } } });
    await writeFile(join(home, ".claude.json"), JSON.stringify({ projects: { [project]: { enabledMcpjsonServers: ["b"] } } }));
    const config = await loadMcpConfig({ projectRoot: project, home, env: {} });
    assert.deepEqual(config.servers.map((s) => s.name), ["b"]);
    await writeFile(join(home, ".claude.json"), JSON.stringify({ projects: { [project]: { enableAllProjectMcpServers: true, disabledMcpjsonServers: ["a"] } } }));
    assert.deepEqual((await loadMcpConfig({ projectRoot: project, home, env: {} })).servers.map((s) => s.name), ["b"]);
  });

  test("badly typed approval settings are diagnostics", async () => {
    await dirs({ mcpJson: { mcpServers: { a: { command: "a" } } } });
    const config = await loadMcpConfig({
      requireProjectApproval: false,
      projectRoot: project,
      home,
      env: {},
      settingsFile: "/p/.claude/settings.json",
      settings: { disabledMcpjsonServers: "a", enableAllProjectMcpServers: "yes", mcpServers: [] },
    });
    assert.deepEqual(config.servers.map((s) => s.name), ["a"]);
    assert.deepEqual(config.diagnostics, [
      { file: "/p/.claude/settings.json", key: "disabledMcpjsonServers", message: "must be an array of server names" },
      { file: "/p/.claude/settings.json", key: "enableAllProjectMcpServers", message: "must be true or false" },
      { file: "/p/.claude/settings.json", key: "mcpServers", message: "must be an object mapping server names to server configs" },
    ]);
  });
});
