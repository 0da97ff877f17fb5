// `harness mcp add` and `add-json`, spawned as a user would run them: the files they write are the
// ones Claude Code reads (and writes) for each scope.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chownSync, existsSync, mkdirSync, readFileSync, rmdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harness, tempDir } from "../test-support.ts";

/** A home directory and a project (a git repository) of the test's own. */
function place(t: { after(fn: () => unknown): void }) {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  const run = (args: string[]) => harness(["mcp", ...args], { HOME: home }, { cwd: project }).result;
  const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
  return { home, project, run, claudeJson: join(home, ".claude.json"), mcpJson: join(project, ".mcp.json"), readJson };
}

test("harness mcp add writes a stdio server to the project's entry of ~/.claude.json, keeping everything else", async (t) => {
  const p = place(t);
  writeFileSync(p.claudeJson, JSON.stringify({ numStartups: 7, projects: { "/elsewhere": { allowedTools: ["Read"] } }, mcpServers: { old: { command: "old" } } }));
  const { code, stdout, stderr } = await p.run(["add", "-e", "API_KEY=abc", "--env", "MODE=fast", "db", "--", "node", "server.js", "--port", "3"]);

  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  const written = p.readJson(p.claudeJson);
  assert.deepEqual(written.projects[p.project].mcpServers, { db: { type: "stdio", command: "node", args: ["server.js", "--port", "3"], env: { API_KEY: "abc", MODE: "fast" } } });
  assert.equal(written.numStartups, 7);
  assert.deepEqual(written.projects["/elsewhere"], { allowedTools: ["Read"] });
  assert.deepEqual(written.mcpServers, { old: { command: "old" } });
  assert.match(stdout, /stdio MCP server "db".*local/);
  assert.ok(stdout.includes(p.claudeJson), stdout);
});

test("harness mcp add --scope user creates ~/.claude.json, readable only by its owner", async (t) => {
  const p = place(t);
  const { code, stderr } = await p.run(["add", "--scope", "user", "--transport", "sse", "feed", "https://example.com/sse"]);

  assert.equal(code, 0, stderr);
  assert.deepEqual(p.readJson(p.claudeJson), { mcpServers: { feed: { type: "sse", url: "https://example.com/sse" } } });
  assert.equal(statSync(p.claudeJson).mode & 0o777, 0o600);
});

test("harness mcp add --scope project writes .mcp.json at the project root and says the server needs approval", async (t) => {
  const p = place(t);
  writeFileSync(p.mcpJson, JSON.stringify({ $schema: "x", mcpServers: { first: { command: "a" } } }));
  const sub = join(p.project, "src");
  mkdirSync(sub);
  const { code, stdout, stderr } = await harness(
    ["mcp", "add", "-s", "project", "-t", "http", "-H", "Authorization: Bearer tok", "--header=X-Team:  blue", "api", "https://api.example.com/mcp"],
    { HOME: p.home },
    { cwd: sub },
  ).result;

  assert.equal(code, 0, stderr);
  const written = p.readJson(p.mcpJson);
  assert.equal(written.$schema, "x");
  assert.deepEqual(Object.keys(written.mcpServers), ["first", "api"]);
  assert.deepEqual(written.mcpServers.api, { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer tok", "X-Team": "blue" } });
  assert.match(stdout, /approv/);
  assert.equal(existsSync(p.claudeJson), false, "approving is the user's: nothing is written to ~/.claude.json");
});

test("harness mcp add-json writes the entry as given, checked as the loader checks it", async (t) => {
  const p = place(t);
  const entry = { type: "stdio", command: "npx", args: ["-y", "pkg"], env: { TOKEN: "${TOKEN}" } };
  const ok = await p.run(["add-json", "--scope", "user", "tool", JSON.stringify(entry)]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(p.readJson(p.claudeJson).mcpServers.tool, entry);

  const before = readFileSync(p.claudeJson, "utf8");
  for (const [args, pattern] of [
    [["add-json", "bad", "{not json"], /not valid JSON/],
    [["add-json", "bad", '{"args": []}'], /missing "command"/],
    [["add-json", "bad", '{"type": "http", "url": "ftp://x"}'], /http or https URL/],
    [["add-json", "bad name", '{"command": "x"}'], /letters, digits/],
    [["add-json", "-s", "user", "tool", '{"command": "x"}'], /already/],
  ] as const) {
    const { code, stdout, stderr } = await p.run([...args]);
    assert.equal(code, 1, `${args.join(" ")}: ${stderr}`);
    assert.equal(stdout, "");
    assert.match(stderr, pattern);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /);
  }
  assert.equal(readFileSync(p.claudeJson, "utf8"), before);
});

test("harness mcp add never overwrites a ~/.claude.json or .mcp.json that is not valid JSON", async (t) => {
  const p = place(t);
  writeFileSync(p.claudeJson, '{"numStartups": 3,');
  writeFileSync(p.mcpJson, "[1, 2]");
  const local = await p.run(["add", "db", "--", "node", "x.js"]);
  assert.equal(local.code, 1);
  assert.match(local.stderr, /\.claude\.json.*not valid JSON.*left as it is/);
  assert.equal(readFileSync(p.claudeJson, "utf8"), '{"numStartups": 3,');

  const project = await p.run(["add", "-s", "project", "db", "--", "node", "x.js"]);
  assert.equal(project.code, 1);
  assert.match(project.stderr, /\.mcp\.json.*JSON object/);
  assert.equal(readFileSync(p.mcpJson, "utf8"), "[1, 2]");
});

test("harness mcp add: bad usage gets a one-line error and status 2", async (t) => {
  const p = place(t);
  for (const [args, pattern] of [
    [["add", "srv", "npx", "-y", "pkg"], /unknown option "-y".*after --/],
    [["add", "--scope", "global", "srv", "x"], /--scope must be one of local, project, user/],
    [["add", "--transport", "ws", "srv", "x"], /--transport must be one of stdio, http, sse/],
    [["add", "-e", "NOEQUALS", "srv", "x"], /KEY=value/],
    [["add", "-e", "--scope", "user", "srv", "x"], /-e needs a value, not the option --scope/],
    [["add", "srv", "x", "-s"], /-s needs a value/],
    [["add", "-t", "http", "-H", "no colon", "srv", "https://x"], /Name: value/],
    [["add", "-t", "http", "-e", "A=1", "srv", "https://x"], /-e/],
    [["add", "-t", "http", "srv", "https://x", "extra"], /unexpected argument "extra"/],
    [["add", "srv"], /needs a name and a command/],
    [["add-json", "srv"], /needs a name and/],
    [["frob"], /unknown mcp command "frob"/],
  ] as const) {
    const { code, stderr } = await p.run([...args]);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.match(stderr, pattern);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
  }
  assert.equal(existsSync(p.claudeJson), false);
});

test("harness mcp add refuses a server the settings' MCP policy keeps from running", async (t) => {
  const p = place(t);
  mkdirSync(join(p.home, ".claude"));
  writeFileSync(join(p.home, ".claude", "settings.json"), JSON.stringify({ deniedMcpServers: [{ serverName: "banned" }, { serverUrl: "https://evil.example.com/*" }] }));
  for (const args of [["add", "banned", "--", "node", "x.js"], ["add", "-t", "http", "ok", "https://evil.example.com/mcp"]]) {
    const { code, stderr } = await p.run(args);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /policy.*deniedMcpServers/);
  }
  assert.equal(existsSync(p.claudeJson), false);
  const allowed = await p.run(["add", "fine", "--", "node", "x.js"]);
  assert.equal(allowed.code, 0, allowed.stderr);
});

test("harness mcp add run ten times at once keeps every server and the rest of ~/.claude.json", async (t) => {
  const p = place(t);
  const projects = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`/work/p${i}`, { allowedTools: ["Read"], history: [{ display: `prompt ${i} ü 🎉` }] }]));
  writeFileSync(p.claudeJson, JSON.stringify({ numStartups: 9, projects }, null, 2));
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => p.run(["add", "-s", "user", `s${i}`, "--", "node", `s${i}.js`])));

  for (const { code, stderr } of results) assert.equal(code, 0, stderr);
  const written = p.readJson(p.claudeJson);
  assert.deepEqual(Object.keys(written.mcpServers).sort(), Array.from({ length: 10 }, (_, i) => `s${i}`).sort());
  assert.deepEqual(written.projects, projects);
  assert.equal(written.numStartups, 9);
  assert.equal(existsSync(`${p.claudeJson}.lock`), false);
});

test("harness mcp add waits for Claude Code's lock on ~/.claude.json, and takes over one left by a process long gone", async (t) => {
  const p = place(t);
  writeFileSync(p.claudeJson, "{}");
  const lock = `${p.claudeJson}.lock`;
  mkdirSync(lock);
  const waiting = p.run(["add", "-s", "user", "a", "--", "x"]);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  assert.deepEqual(p.readJson(p.claudeJson), {}, "nothing is written while another process holds the lock");
  writeFileSync(p.claudeJson, JSON.stringify({ byClaude: true }));
  rmdirSync(lock);
  const first = await waiting;
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(p.readJson(p.claudeJson), { byClaude: true, mcpServers: { a: { type: "stdio", command: "x", args: [], env: {} } } });

  mkdirSync(lock);
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
  const stale = await p.run(["add", "-s", "user", "b", "--", "x"]);
  assert.equal(stale.code, 0, stale.stderr);
  assert.deepEqual(Object.keys(p.readJson(p.claudeJson).mcpServers), ["a", "b"]);
  assert.equal(existsSync(lock), false);
});

test("harness mcp add keeps the owner of the ~/.claude.json it rewrites", { skip: process.getuid?.() !== 0 && "needs root, to give the file another owner" }, async (t) => {
  const p = place(t);
  writeFileSync(p.claudeJson, JSON.stringify({ numStartups: 1 }), { mode: 0o600 });
  chownSync(p.claudeJson, 4321, 4322);
  const { code, stderr } = await p.run(["add", "-s", "user", "db", "--", "node", "x.js"]);

  assert.equal(code, 0, stderr);
  const after = statSync(p.claudeJson);
  assert.deepEqual([after.uid, after.gid, after.mode & 0o777], [4321, 4322, 0o600]);
  assert.deepEqual(Object.keys(p.readJson(p.claudeJson).mcpServers), ["db"]);
});

test("harness mcp add keeps every number of ~/.claude.json as written, even those beyond a double's precision", async (t) => {
  const p = place(t);
  writeFileSync(p.claudeJson, '{"id": 12345678901234567890123, "neg": -9007199254740993, "huge": 1e400, "cost": 0.12345678901234567890, "plain": 3, "nested": {"list": [18446744073709551615, 2.50]}}');
  const { code, stderr } = await p.run(["add", "-s", "user", "db", "--", "node", "x.js"]);

  assert.equal(code, 0, stderr);
  const text = readFileSync(p.claudeJson, "utf8");
  for (const number of ['"id": 12345678901234567890123', '"neg": -9007199254740993', '"huge": 1e400', '"cost": 0.12345678901234567890', '"plain": 3', "18446744073709551615"]) {
    assert.ok(text.includes(number), `${number} in ${text}`);
  }
  assert.deepEqual(Object.keys(p.readJson(p.claudeJson).mcpServers), ["db"]);
});

test("harness mcp add writes into an empty ~/.claude.json as into a missing one", async (t) => {
  const p = place(t);
  writeFileSync(p.claudeJson, "\n");
  const { code, stderr } = await p.run(["add", "--scope", "user", "db", "--", "node", "x.js"]);

  assert.equal(code, 0, stderr);
  assert.deepEqual(p.readJson(p.claudeJson), { mcpServers: { db: { type: "stdio", command: "node", args: ["x.js"], env: {} } } });
});

test("harness mcp add -s project says how a run comes to start the server: where an approval is read, and what cannot approve it", async (t) => {
  const p = place(t);
  const added = await p.run(["add", "-s", "project", "db", "--", "node", "x.js"]);
  assert.equal(added.code, 0, added.stderr);
  const note = added.stdout.split("\n")[1];
  assert.equal(
    note,
    `Runs start it once it is approved, as every server of .mcp.json: name it in "enabledMcpjsonServers" (or set "enableAllProjectMcpServers": true) in ${join(p.home, ".claude", "settings.json")}, or approve it in Claude Code, which records it in this project's entry of ${p.claudeJson}; the project's own .claude/settings files cannot approve it.`,
  );
});

test("harness mcp add makes the CLAUDE_CONFIG_DIR it names when it does not exist yet, as Claude Code does", async (t) => {
  const p = place(t);
  const config = join(tempDir(t), "profiles", "work");
  const { code, stderr } = await harness(["mcp", "add", "db", "--", "node", "x.js"], { HOME: p.home, CLAUDE_CONFIG_DIR: config }, { cwd: p.project }).result;

  assert.equal(code, 0, stderr);
  assert.deepEqual(p.readJson(join(config, ".claude.json")).projects[p.project].mcpServers, { db: { type: "stdio", command: "node", args: ["x.js"], env: {} } });
});
