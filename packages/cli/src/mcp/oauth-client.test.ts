// `harness mcp add --client-id --client-secret --callback-port` (and add-json --client-secret), as
// Claude Code's: the client and port go into the server's entry as "oauth", the secret into the
// sign-in file; `harness mcp login` then signs in with them where the authorization server
// registers no clients on request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { startFakeOAuthServer, startMcpTestHttpServer } from "@harness/test-utils";
import { harness, tempDir } from "../test-support.ts";

function place(t: { after(fn: () => unknown): void }) {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  const run = (args: string[], env: Record<string, string> = {}, opts: { stdin?: string; onStdout?: (text: string) => void } = {}) =>
    harness(["mcp", ...args], { HOME: home, BROWSER: "none", ...env }, { cwd: project, ...opts }).result;
  const claudeJson = () => JSON.parse(readFileSync(join(home, ".claude.json"), "utf8"));
  const signIns = join(home, ".claude", "harness-mcp-oauth.json");
  return { home, project, run, claudeJson, signIns };
}

const URL_ = "https://mcp.example.com/mcp";

test("--client-id and --callback-port go into the entry as oauth; --client-secret's secret (MCP_CLIENT_SECRET) only into the sign-in file", async (t) => {
  const p = place(t);
  const added = await p.run(["add", "--scope", "user", "--transport", "http", "--client-id", "123.456", "--client-secret", "--callback-port", "8080", "slack", URL_], { MCP_CLIENT_SECRET: "s3cret" });
  assert.equal(added.code, 0, added.stderr);
  assert.deepEqual(p.claudeJson().mcpServers, { slack: { type: "http", url: URL_, oauth: { clientId: "123.456", callbackPort: 8080 } } });
  assert.doesNotMatch(readFileSync(join(p.home, ".claude.json"), "utf8"), /s3cret/);
  assert.match(readFileSync(p.signIns, "utf8"), /"clientSecret": "s3cret"/);
  assert.equal(statSync(p.signIns).mode & 0o777, 0o600);
  assert.match(added.stdout, /client secret is kept in .*harness-mcp-oauth\.json, not in the config file/);

  const got = await p.run(["get", "slack"]);
  assert.match(got.stdout, /^ {2}OAuth client ID: 123\.456 \(client secret: stored\)$/m);
  assert.match(got.stdout, /^ {2}OAuth callback: http:\/\/localhost:8080\/callback$/m);

  const logout = await p.run(["logout", "slack"]);
  assert.match(logout.stdout, /No sign-in of slack is stored/);
  assert.match(readFileSync(p.signIns, "utf8"), /s3cret/, "signing out keeps the client secret");
  const removed = await p.run(["remove", "slack"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.doesNotMatch(readFileSync(p.signIns, "utf8"), /s3cret/, "removing the server forgets it");
});

test("the secret may be piped in, and add-json takes --client-secret for its oauth.clientId", async (t) => {
  const p = place(t);
  const piped = await p.run(["add", "-t", "sse", "--client-id", "app", "--client-secret", "feed", URL_], {}, { stdin: "piped-secret\n" });
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(readFileSync(p.signIns, "utf8"), /"clientSecret": "piped-secret"/);
  const json = await p.run(["add-json", "--client-secret", "portal", JSON.stringify({ type: "http", url: URL_, oauth: { clientId: "portal-app", callbackPort: 9090 } })], { MCP_CLIENT_SECRET: "json-secret" });
  assert.equal(json.code, 0, json.stderr);
  assert.match(readFileSync(p.signIns, "utf8"), /"clientSecret": "json-secret"/);
  assert.deepEqual(p.claudeJson().projects[p.project].mcpServers.portal.oauth, { clientId: "portal-app", callbackPort: 9090 });
});

test("bad OAuth flags and keys are refused, naming the flag or the server and key, and nothing is written", async (t) => {
  const p = place(t);
  const cases: [string[], number, RegExp][] = [
    [["add", "-t", "http", "--client-secret", "a", URL_], 2, /--client-secret goes with --client-id/],
    [["add", "-t", "http", "--callback-port", "0", "a", URL_], 2, /--callback-port must be a positive whole number up to 65535, got "0"/],
    [["add", "-t", "http", "--callback-port", "http", "a", URL_], 2, /--callback-port must be a positive whole number up to 65535, got "http"/],
    [["add", "-t", "http", "--client-id", "", "a", URL_], 2, /--client-id needs a value/],
    [["add", "--client-id", "x", "local", "--", "node", "server.js"], 2, /a stdio server has none/],
    [["add", "-t", "http", "--client-id", "x", "--client-secret", "a", URL_], 1, /--client-secret was given no secret/],
    [["add-json", "--client-secret", "a", JSON.stringify({ type: "http", url: URL_ })], 1, /--client-secret is the secret of the server's OAuth client/],
    [["add-json", "a", JSON.stringify({ type: "http", url: URL_, oauth: { callbackPort: 70000 } })], 1, /invalid MCP server "a": "oauth.callbackPort" must be a port number from 1 to 65535 \(at a\.oauth\.callbackPort\)/],
    [["add-json", "a", JSON.stringify({ type: "http", url: URL_, oauth: { clientId: 7 } })], 1, /invalid MCP server "a": "oauth.clientId" must be a string \(at a\.oauth\.clientId\)/],
  ];
  for (const [args, code, message] of cases) {
    const result = await p.run(args);
    assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(" "));
  }
  assert.equal(existsSync(join(p.home, ".claude.json")), false);
  assert.equal(existsSync(p.signIns), false);
});

test("harness mcp login signs in with the client added for a server that registers none, on its callback port", async (t) => {
  const oauth = await startFakeOAuthServer({ dynamicRegistration: false });
  const server = await startMcpTestHttpServer({ oauth });
  t.after(async () => {
    await server.close();
    await oauth.close();
  });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  oauth.addClient({ clientId: "harness-app", clientSecret: "s3cret", redirectUris: [`http://localhost:${port}/callback`] });
  const p = place(t);

  const plain = await p.run(["add", "-s", "user", "-t", "http", "plain", server.url]);
  assert.equal(plain.code, 0, plain.stderr);
  const refused = await p.run(["login", "plain"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /does not support dynamic client registration: register a client with it/);

  const added = await p.run(["add", "-s", "user", "-t", "http", "--client-id", "harness-app", "--client-secret", "--callback-port", String(port), "notes", server.url], { MCP_CLIENT_SECRET: "s3cret" });
  assert.equal(added.code, 0, added.stderr);
  let opened = false;
  const login = await p.run(["login", "notes"], {}, {
    onStdout: (stdout) => {
      const url = /https?:\/\/\S+\/authorize\?\S+/.exec(stdout)?.[0];
      if (!url || opened) return;
      opened = true;
      assert.equal(new URL(url).searchParams.get("redirect_uri"), `http://localhost:${port}/callback`);
      void fetch(url).then((res) => res.text());
    },
  });
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stdout, /Signed in to notes: \d+ tools\./);
  const list = await p.run(["list"]);
  assert.match(list.stdout, /^notes \(user\): .*✓/m);
});
