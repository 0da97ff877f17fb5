// `harness mcp login|logout`, spawned as a user would run them, against a fake OAuth authorization
// server and an MCP server that wants its tokens: the test plays the browser, opening the printed
// URL (the fake approves at once and sends it back to the command's loopback callback).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, startFakeOAuthServer, startMcpTestHttpServer } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

async function place(t: { after(fn: () => unknown): void }) {
  const oauth = await startFakeOAuthServer();
  const server = await startMcpTestHttpServer({ oauth });
  t.after(async () => {
    await server.close();
    await oauth.close();
  });
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: { notes: { type: "http", url: server.url }, local: { command: "node", args: ["x.js"] } } }));
  const env = { HOME: home, BROWSER: "none" };
  return { oauth, server, home, project, env, run: (args: string[], extra: Record<string, string> = {}, onStdout?: (text: string) => void) => harness(args, { ...env, ...extra }, { cwd: project, onStdout }).result };
}

/** Opens the first https?:// URL the command prints, once, as a browser would. */
function browser() {
  let opened = false;
  return (stdout: string) => {
    const url = /https?:\/\/\S+\/authorize\?\S+/.exec(stdout)?.[0];
    if (!url || opened) return;
    opened = true;
    void fetch(url).then((res) => res.text());
  };
}

test("harness mcp login signs in through the browser, and harness run then uses the server's tools", async (t) => {
  const p = await place(t);
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "mcp__notes__echo", input: { text: "from the notes server" } }] }, { text: "Done." }] }));

  const before = await p.run(["mcp", "list"]);
  assert.match(before.stdout, /^notes \(user\): .* - ! needs sign-in: harness mcp login notes$/m);

  const login = await p.run(["mcp", "login", "notes"], {}, browser());
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stdout, /sign in to notes.*\n\s+http:\/\/127\.0\.0\.1:\d+\/authorize\?/i);
  assert.match(login.stdout, /Signed in to notes: \d+ tools\./);
  assert.equal(statSync(join(p.home, ".claude", "harness-mcp-oauth.json")).mode & 0o777, 0o600);

  const run = await p.run(["run", "--allowedTools", "mcp__notes__echo", "use the notes"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
  assert.equal(run.code, 0, run.stderr);
  const messages = fake.requests[1]!.body.messages as { content: { type: string; content?: unknown }[] | string }[];
  assert.match(JSON.stringify(messages.at(-1)), /from the notes server/);

  const logout = await p.run(["mcp", "logout", "notes"]);
  assert.equal(logout.code, 0, logout.stderr);
  assert.match(logout.stdout, /Signed out of notes/);
  const after = await p.run(["mcp", "list"]);
  assert.match(after.stdout, /^notes \(user\): .* - ! needs sign-in/m);
});

test("a run whose server needs a sign-in says which command makes it, and goes on without the server", async (t) => {
  const p = await place(t);
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done without it." }] }));
  const run = await p.run(["run", "hello"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Done without it\./);
  assert.match(run.stderr, /MCP server notes needs sign-in: run "harness mcp login notes"/);

  // /mcp (in a run or a chat) says it too, with no model call.
  const report = await p.run(["run", "/mcp"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^ {2}notes: needs sign-in: run "harness mcp login notes" · user \(.*\.claude\.json\)$/m);
  assert.equal(fake.requests.length, 1);
});

test("harness mcp login refuses a stdio server and an unknown name, saying why", async (t) => {
  const p = await place(t);
  const stdio = await p.run(["mcp", "login", "local"]);
  assert.equal(stdio.code, 1);
  assert.match(stdio.stderr, /"local" is a stdio server: only http and sse servers sign in/);
  const unknown = await p.run(["mcp", "login", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no MCP server named "nope"/);
  const usage = await p.run(["mcp", "login"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /"harness mcp login" needs a server name/);
});
