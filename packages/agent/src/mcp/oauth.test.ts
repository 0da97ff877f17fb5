// Remote MCP servers that sign in with OAuth: a fake authorization server and a fake MCP server
// that wants its bearer tokens; the test plays the browser (a GET of the authorization URL, which
// the fake approves at once, redirects to the loopback callback).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeOAuthServer, startMcpTestHttpServer, type FakeOAuthServer, type McpTestHttpServer } from "@harness/test-utils";
import type { McpRemoteServerConfig } from "./config.ts";
import { startMcp, type McpNoticeLevel } from "./manager.ts";
import { mcpLogin } from "./oauth-login.ts";
import { mcpOAuthFile } from "./oauth-store.ts";

const cwd = tmpdir();
const env = { BROWSER: "none" };

describe("OAuth sign-in of remote MCP servers", () => {
  let oauth: FakeOAuthServer;
  let server: McpTestHttpServer;
  before(async () => {
    oauth = await startFakeOAuthServer();
    server = await startMcpTestHttpServer({ oauth });
  });
  after(async () => {
    await server.close();
    await oauth.close();
  });

  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), "harness-oauth-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const config = (name = "notes", type: "http" | "sse" = "http"): McpRemoteServerConfig => ({ name, scope: "user", file: "~/.claude.json", type, url: type === "http" ? server.url : server.sseUrl, headers: {} });
  /** The browser: opens the authorization URL and follows the redirect to the callback. */
  const browser = (url: string) => void fetch(url).then((res) => res.text());
  const start = async (file: string, servers: McpRemoteServerConfig[]) => {
    const notices: { level: McpNoticeLevel; message: string }[] = [];
    const manager = await startMcp({ servers }, { cwd, env, oauthFile: file, onNotice: (level, message) => notices.push({ level, message }) });
    after(() => manager.close());
    return { manager, notices };
  };

  test("a server that wants a sign-in is reported with the command that signs in, and the run goes on without it", async () => {
    const file = mcpOAuthFile(home());
    const { manager, notices } = await start(file, [config()]);
    const [status] = manager.status();
    assert.equal(status.state, "failed");
    assert.equal(status.needsSignIn, true);
    assert.deepEqual(notices, [{ level: "warn", message: 'MCP server notes needs sign-in: run "harness mcp login notes"; it is left out until then' }]);
    assert.equal(manager.tools.length, 0);
    assert.throws(() => statSync(file), "a run registers nothing and writes no sign-in file");
  });

  test("after a sign-in, runs connect with the stored tokens, kept in a file only its owner may read", async () => {
    const file = mcpOAuthFile(home());
    const urls: string[] = [];
    const result = await mcpLogin(config(), { file, env, onAuthorizationUrl: (url) => (urls.push(url), browser(url)) });
    assert.deepEqual(result, { kind: "signed-in", toolCount: result.toolCount });
    assert.ok(result.toolCount > 0);
    const authorize = new URL(urls[0]);
    assert.equal(authorize.origin, oauth.issuer);
    assert.match(authorize.searchParams.get("redirect_uri") ?? "", /^http:\/\/localhost:\d+\/callback$/);
    assert.equal(authorize.searchParams.get("resource"), server.url);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, "utf8"), /"access_token": "at-/);

    const { manager, notices } = await start(file, [config()]);
    assert.equal(manager.status()[0].state, "connected", JSON.stringify(notices));
    const echo = manager.tools.find((tool) => tool.name === "mcp__notes__echo");
    assert.ok(echo);
    const output = await echo.execute({ text: "signed in" }, { cwd, signal: new AbortController().signal, toolUseId: "t1" });
    assert.match(JSON.stringify(output), /signed in/);
  });

  test("an expired access token is refreshed; a revoked sign-in asks for a new one", async () => {
    const file = mcpOAuthFile(home());
    await mcpLogin(config("refreshing"), { file, env, onAuthorizationUrl: browser });
    oauth.expireAccessTokens();
    const refreshes = oauth.counts.refreshes;
    const first = await start(file, [config("refreshing")]);
    assert.equal(first.manager.status()[0].state, "connected", JSON.stringify(first.notices));
    assert.equal(oauth.counts.refreshes, refreshes + 1);
    await first.manager.close();

    oauth.revokeAll();
    const second = await start(file, [config("refreshing")]);
    assert.equal(second.manager.status()[0].needsSignIn, true, JSON.stringify(second.notices));
  });

  test("an SSE server signs in and connects too", async () => {
    const file = mcpOAuthFile(home());
    await mcpLogin(config("stream", "sse"), { file, env, onAuthorizationUrl: browser });
    const { manager, notices } = await start(file, [config("stream", "sse")]);
    assert.equal(manager.status()[0].state, "connected", JSON.stringify(notices));
  });

  test("a callback with another state is refused, and the sign-in waits for its own", async () => {
    const file = mcpOAuthFile(home());
    let refused: Promise<number> | undefined;
    const result = await mcpLogin(config(), {
      file,
      env,
      onAuthorizationUrl: (url) => {
        const callback = new URL(new URL(url).searchParams.get("redirect_uri") ?? "");
        callback.search = "?code=stolen&state=forged";
        refused = fetch(callback).then((res) => res.status);
        void refused.then(() => browser(url));
      },
    });
    assert.equal(await refused, 400);
    assert.equal(result.kind, "signed-in");
  });

  test("a sign-in that the browser never completes ends after its time limit, saying so", async () => {
    const file = mcpOAuthFile(home());
    await assert.rejects(mcpLogin(config(), { file, env, timeoutMs: 300, onAuthorizationUrl: () => {} }), /no answer from the browser within 0 s|no answer from the browser within/);
  });
});
