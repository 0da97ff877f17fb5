// `harness mcp list`, `get` and `remove`, spawned as a user would run them, on the servers of
// ~/.claude.json and .mcp.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpTestServerCommand, processAlive, waitFor } from "@harness/test-utils";
import { harness, tempDir } from "../test-support.ts";

function place(t: { after(fn: () => unknown): void }, claudeJson?: (project: string) => unknown, mcpJson?: unknown) {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  if (claudeJson) writeFileSync(join(home, ".claude.json"), JSON.stringify(claudeJson(project), null, 2));
  if (mcpJson) writeFileSync(join(project, ".mcp.json"), JSON.stringify(mcpJson));
  const run = (args: string[]) => harness(["mcp", ...args], { HOME: home }, { cwd: project }).result;
  return { home, project, run, claudeJson: join(home, ".claude.json"), mcpJson: join(project, ".mcp.json") };
}

test("harness mcp list shows each server with its scope and whether it connects", async (t) => {
  const working = mcpTestServerCommand();
  const p = place(
    t,
    (project) => ({ mcpServers: { tools: working }, projects: { [project]: { mcpServers: { broken: { command: "/nonexistent/mcp-server" } } } } }),
    { mcpServers: { shared: { command: "node", args: ["-e", "require('fs').writeFileSync('started', '')"] } } },
  );
  const { code, stdout, stderr } = await p.run(["list"]);

  assert.equal(code, 0, stderr);
  const line = (name: string) => stdout.split("\n").find((l) => l.startsWith(`${name} `)) ?? "";
  assert.match(line("tools"), /\(user\).*✓ connected, \d+ tools/);
  assert.match(line("broken"), /\(local\).*\/nonexistent\/mcp-server.*✗/);
  assert.match(line("shared"), /\(project\).*not approved/);
  assert.throws(() => readFileSync(join(p.project, "started")), "an unapproved project server is not started to check it");
});

test("harness mcp list says when there are no servers", async (t) => {
  const p = place(t);
  const { code, stdout } = await p.run(["list"]);
  assert.equal(code, 0);
  assert.match(stdout, /No MCP servers are configured.*harness mcp add/);
});

test("harness mcp get shows a server's configuration and scope", async (t) => {
  const p = place(t, (project) => ({ projects: { [project]: { mcpServers: { db: { type: "stdio", command: "node", args: ["db.js"], env: { KEY: "v" } } } } } }), {
    mcpServers: { api: { type: "http", url: "https://api.example.com/mcp", headers: { "X-Key": "k" } } },
  });
  const db = await p.run(["get", "db"]);
  assert.equal(db.code, 0, db.stderr);
  assert.match(db.stdout, /^db:\n/);
  assert.match(db.stdout, /Scope: local/);
  assert.match(db.stdout, /Command: node\n/);
  assert.match(db.stdout, /Args: db\.js\n/);
  assert.match(db.stdout, /KEY=v/);
  assert.match(db.stdout, /harness mcp remove db --scope local/);

  const api = await p.run(["get", "api"]);
  assert.match(api.stdout, /Scope: project/);
  assert.match(api.stdout, /URL: https:\/\/api\.example\.com\/mcp/);
  assert.match(api.stdout, /X-Key: k/);

  const none = await p.run(["get", "nope"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no MCP server named "nope"/);
});

test("harness mcp remove takes a server out of its one scope, and asks which when it is in several", async (t) => {
  const p = place(t, (project) => ({ keep: true, mcpServers: { both: { command: "u" } }, projects: { [project]: { mcpServers: { both: { command: "l" }, solo: { command: "s" } } } } }), {
    mcpServers: { shared: { command: "p" } },
  });
  const solo = await p.run(["remove", "solo"]);
  assert.equal(solo.code, 0, solo.stderr);
  assert.match(solo.stdout, /Removed.*"solo".*local/);

  const both = await p.run(["remove", "both"]);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /"both" is in more than one scope \(local, user\).*--scope/);

  const user = await p.run(["remove", "-s", "user", "both"]);
  assert.equal(user.code, 0, user.stderr);
  const written = JSON.parse(readFileSync(p.claudeJson, "utf8"));
  assert.equal(written.keep, true);
  assert.deepEqual(written.mcpServers, {});
  assert.deepEqual(written.projects[p.project].mcpServers, { both: { command: "l" } });

  const shared = await p.run(["remove", "--scope", "project", "shared"]);
  assert.equal(shared.code, 0, shared.stderr);
  assert.deepEqual(JSON.parse(readFileSync(p.mcpJson, "utf8")), { mcpServers: {} });

  const missing = await p.run(["remove", "-s", "project", "both"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no MCP server named "both" in .*\.mcp\.json/);
});

test("harness --help and harness mcp --help list the mcp commands", async () => {
  const main = await harness(["--help"], {}).result;
  assert.match(main.stdout, /harness mcp/);
  for (const args of [["mcp", "--help"], ["mcp"], ["help", "mcp"], ["mcp", "add", "--help"]]) {
    const { code, stdout } = await harness(args, {}).result;
    assert.equal(code, 0, args.join(" "));
    for (const sub of ["add", "add-json", "list", "get", "remove"]) assert.match(stdout, new RegExp(`harness mcp ${sub} `), `${args.join(" ")}: ${sub}`);
  }
});

test("harness mcp get says which entry a run uses when the name is in several scopes, and that an unapproved .mcp.json one is not started", async (t) => {
  const p = place(t, () => ({ mcpServers: { both: { command: "user-server" } } }), { mcpServers: { both: { command: "project-server" } } });
  const unapproved = await p.run(["get", "both"]);
  assert.equal(unapproved.code, 0, unapproved.stderr);
  assert.match(unapproved.stdout, /Scope: project/);
  assert.match(unapproved.stdout, /not approved/);
  assert.match(unapproved.stdout, /Also in: user \(the user one is used\)/);

  mkdirSync(join(p.home, ".claude"));
  writeFileSync(join(p.home, ".claude", "settings.json"), JSON.stringify({ enabledMcpjsonServers: ["both"] }));
  const approved = await p.run(["get", "both"]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.doesNotMatch(approved.stdout, /not approved/);
  assert.match(approved.stdout, /Also in: user \(the project one is used\)/);
});

test("harness mcp list ends stdio servers with everything they started, within its time limit", async (t) => {
  const server = mcpTestServerCommand();
  const quoted = (words: string[]) => words.map((w) => `'${w}'`).join(" ");
  // Each leaves a child behind that holds its stdout: one answers, the other never does.
  // The silent one also notes when it started (ns since the epoch), which the time limit counts from.
  const withChild = (name: string, then: string) => ({ command: "bash", args: ["-c", `date +%s%N > ${name}.start; sleep 300 & echo $! > ${name}.pid; exec ${then}`] });
  const p = place(t, () => ({
    mcpServers: { answers: withChild("answers", quoted([server.command, ...server.args])), silent: withChild("silent", "sleep 300") },
  }));
  // Long enough for the answering server to start on a busy machine.
  const timeoutMs = 3000;
  const { code, stdout, stderr } = await harness(["mcp", "list"], { HOME: p.home, MCP_TIMEOUT: String(timeoutMs) }, { cwd: p.project }).result;
  const tookMs = Date.now() - Number(readFileSync(join(p.project, "silent.start"), "utf8")) / 1e6;

  assert.equal(code, 0, stderr);
  assert.match(stdout, /answers \(user\).*✓ connected/);
  assert.match(stdout, /silent \(user\).*✗ failed: did not answer within 3000 ms/);
  const children = ["answers", "silent"].map((name) => Number(readFileSync(join(p.project, `${name}.pid`), "utf8")));
  t.after(() => children.forEach((pid) => processAlive(pid) && process.kill(pid, "SIGKILL")));
  // From the silent server's start: the time limit and the servers' shutdown; waiting on the silent
  // server's child, as the command did, took 5 s more.
  assert.ok(tookMs < timeoutMs + 3000, `took ${Math.round(tookMs)} ms from the silent server's start`);
  await waitFor(() => children.every((pid) => !processAlive(pid)), "the servers' children to be gone", { timeoutMs: 10_000 });
});
