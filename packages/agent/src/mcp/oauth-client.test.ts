// Remote MCP servers whose authorization server registers no clients on request: the user gives a
// client registered beforehand (`oauth.clientId`, its secret in the sign-in file) and the loopback
// port its redirect URI names (`oauth.callbackPort`).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { freePort, startFakeOAuthServer, startMcpTestHttpServer, type FakeOAuthServer, type McpTestHttpServer } from "@harness/test-utils";
import type { McpOAuthClientConfig, McpRemoteServerConfig } from "./config.ts";
import { startMcp } from "./manager.ts";
import { mcpLogin } from "./oauth-login.ts";
import { mcpOAuthFile, saveClientSecret } from "./oauth-store.ts";

const cwd = tmpdir();
const env = { BROWSER: "none" };

describe("OAuth sign-in with a client registered beforehand", () => {
  let oauth: FakeOAuthServer;
  let server: McpTestHttpServer;
  before(async () => {
    oauth = await startFakeOAuthServer({ dynamicRegistration: false });
    server = await startMcpTestHttpServer({ oauth });
  });
  after(async () => {
    await server.close();
    await oauth.close();
  });

  const file = () => {
    const dir = mkdtempSync(join(tmpdir(), "harness-oauth-client-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    return mcpOAuthFile(dir);
  };
  const config = (name: string, oauthConfig?: McpOAuthClientConfig): McpRemoteServerConfig => ({ name, scope: "user", file: "~/.claude.json", type: "http", url: server.url, headers: {}, ...(oauthConfig && { oauth: oauthConfig }) });
  const browser = (url: string) => void fetch(url).then((res) => res.text());

  test("without a client, the sign-in says the server registers none and how to give one", async () => {
    await assert.rejects(
      mcpLogin(config("portal"), { file: file(), env, timeoutMs: 5000, onAuthorizationUrl: browser }),
      /does not support dynamic client registration: register a client with it .*harness mcp add --transport http --client-id ID \[--client-secret\] --callback-port PORT NAME URL/,
    );
  });

  test("a client with a secret signs in on its fixed callback port; runs use it, and refresh with its secret", async () => {
    const port = await freePort();
    const signIns = file();
    oauth.addClient({ clientId: "harness-app", clientSecret: "s3cret", redirectUris: [`http://localhost:${port}/callback`] });
    saveClientSecret(signIns, { name: "slack", url: server.url }, "s3cret");
    const client = { clientId: "harness-app", callbackPort: port };
    const urls: string[] = [];
    const result = await mcpLogin(config("slack", client), { file: signIns, env, onAuthorizationUrl: (url) => (urls.push(url), browser(url)) });
    assert.equal(result.kind, "signed-in");
    const authorize = new URL(urls[0]).searchParams;
    assert.equal(authorize.get("client_id"), "harness-app");
    assert.equal(authorize.get("redirect_uri"), `http://localhost:${port}/callback`);
    assert.equal(oauth.counts.registrations, 0);

    oauth.expireAccessTokens();
    const refreshes = oauth.counts.refreshes;
    const manager = await startMcp({ servers: [config("slack", client)] }, { cwd, env, oauthFile: signIns });
    after(() => manager.close());
    assert.equal(manager.status()[0].state, "connected", manager.status()[0].error);
    assert.equal(oauth.counts.refreshes, refreshes + 1);
    assert.match(readFileSync(signIns, "utf8"), /"clientSecret": "s3cret"/, "the secret stays where it was given");
  });

  test("a wrong secret is refused at the token endpoint, and the sign-in says so", async () => {
    const port = await freePort();
    const signIns = file();
    oauth.addClient({ clientId: "strict-app", clientSecret: "right", redirectUris: [`http://localhost:${port}/callback`] });
    saveClientSecret(signIns, { name: "strict", url: server.url }, "wrong");
    await assert.rejects(mcpLogin(config("strict", { clientId: "strict-app", callbackPort: port }), { file: signIns, env, onAuthorizationUrl: browser }), /invalid_client|secret is wrong/);
  });

  test("a public client (no secret) signs in too", async () => {
    const port = await freePort();
    oauth.addClient({ clientId: "public-app", redirectUris: [`http://localhost:${port}/callback`] });
    const result = await mcpLogin(config("public", { clientId: "public-app", callbackPort: port }), { file: file(), env, onAuthorizationUrl: browser });
    assert.equal(result.kind, "signed-in");
  });

  test("a callback port another program holds is said, naming the port and the key", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    after(() => holder.close());
    const { port } = holder.address() as { port: number };
    await assert.rejects(mcpLogin(config("busy", { clientId: "public-app", callbackPort: port }), { file: file(), env, onAuthorizationUrl: browser }), {
      message: `cannot take the callback port ${port} (oauth.callbackPort): another program is listening on it`,
    });
  });
});

describe("OAuth sign-in on a fixed callback port with dynamic registration", () => {
  test("the client registers the fixed redirect URI once, and later sign-ins reuse it", async (t) => {
    const oauth = await startFakeOAuthServer();
    const server = await startMcpTestHttpServer({ oauth });
    t.after(async () => {
      await server.close();
      await oauth.close();
    });
    const dir = mkdtempSync(join(tmpdir(), "harness-oauth-port-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const config: McpRemoteServerConfig = { name: "fixed", scope: "user", file: "~/.claude.json", type: "http", url: server.url, headers: {}, oauth: { callbackPort: port } };
    const urls: string[] = [];
    const login = () => mcpLogin(config, { file: mcpOAuthFile(dir), env, onAuthorizationUrl: (url) => (urls.push(url), void fetch(url).then((res) => res.text())) });
    assert.equal((await login()).kind, "signed-in");
    assert.equal((await login()).kind, "signed-in");
    assert.deepEqual(urls.map((url) => new URL(url).searchParams.get("redirect_uri")), [`http://localhost:${port}/callback`, `http://localhost:${port}/callback`]);
    assert.equal(oauth.counts.registrations, 1);
  });
});
