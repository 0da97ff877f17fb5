// Access tokens that say when they expire are refreshed before a request would send them expired,
// not after the server has refused one; a refresh the authorization server refuses ends the sign-in.
// A token refused all the same (401) is refreshed under the same lock and the request sent again,
// over Streamable HTTP and over the older HTTP+SSE transport alike.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, describe, test } from "node:test";
import { startFakeOAuthServer, startMcpTestHttpServer } from "@harness/test-utils";
import type { McpRemoteServerConfig } from "./config.ts";
import { startMcp } from "./manager.ts";
import { mcpLogin } from "./oauth-login.ts";
import { StoredOAuthProvider } from "./oauth-provider.ts";
import { mcpOAuthFile, readOAuthEntry, removeOAuthEntries } from "./oauth-store.ts";

const cwd = tmpdir();
const env = { BROWSER: "none" };
/** The life of the fake's access tokens: long enough to connect, short enough to wait out. */
const LIFETIME_S = 1;
const waitOut = () => sleep(LIFETIME_S * 1000 + 150);

/** A fake authorization server issuing short-lived tokens, its MCP server, and a signed-in run. */
async function signedInRun(options: { rotateRefreshTokens?: boolean; refreshDelayMs?: number; refreshSaysExpiry?: boolean; type?: "http" | "sse" } = {}) {
  const oauth = await startFakeOAuthServer({ accessTokenSeconds: LIFETIME_S, ...options });
  const server = await startMcpTestHttpServer({ oauth });
  const dir = mkdtempSync(join(tmpdir(), "harness-oauth-refresh-"));
  const file = mcpOAuthFile(dir);
  const type = options.type ?? "http";
  const config: McpRemoteServerConfig = { name: "notes", scope: "user", file: "~/.claude.json", type, url: type === "http" ? server.url : server.sseUrl, headers: {} };
  await mcpLogin(config, { file, env, onAuthorizationUrl: (url) => void fetch(url).then((res) => res.text()) });
  const manager = await startMcp({ servers: [config] }, { cwd, env, oauthFile: file });
  after(async () => {
    await manager.close();
    await server.close();
    await oauth.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(manager.status()[0].state, "connected", manager.status()[0].error);
  const echo = manager.tools.find((tool) => tool.name === "mcp__notes__echo");
  assert.ok(echo);
  const call = (text: string) => echo.execute({ text }, { cwd, signal: new AbortController().signal, toolUseId: text });
  const stored = () => readOAuthEntry(file, { name: "notes", url: config.url })?.tokens;
  return { oauth, manager, file, config, call, stored };
}

describe("refreshing OAuth tokens before they expire", () => {
  test("an expired token is refreshed before the call, which the server never refuses; the rotated refresh token is kept for the next", async () => {
    const { oauth, call, stored } = await signedInRun();
    const { refreshes, refusals } = oauth.counts;
    const first = stored()?.refresh_token;
    await waitOut();
    assert.match(JSON.stringify(await call("after one expiry")), /after one expiry/);
    const second = stored()?.refresh_token;
    assert.ok(second && second !== first, "the refresh token the server rotated in is stored");
    await waitOut();
    assert.match(JSON.stringify(await call("after two")), /after two/);
    assert.equal(oauth.counts.refreshes, refreshes + 2);
    assert.equal(oauth.counts.refusals, refusals, "no request went out with an expired token");
  });

  test("calls that find the token expired together share one refresh", async () => {
    const { oauth, call } = await signedInRun();
    const { refreshes } = oauth.counts;
    await waitOut();
    const outputs = await Promise.all(["a", "b", "c"].map((text) => call(`together ${text}`)));
    for (const output of outputs) assert.notEqual((output as { isError?: boolean }).isError, true, JSON.stringify(output));
    assert.equal(oauth.counts.refreshes, refreshes + 1);
  });

  test("a server that does not rotate refresh tokens keeps the one it gave", async () => {
    const { oauth, call, stored } = await signedInRun({ rotateRefreshTokens: false });
    const { refreshes } = oauth.counts;
    const first = stored()?.refresh_token;
    await waitOut();
    assert.match(JSON.stringify(await call("kept")), /kept/);
    assert.equal(stored()?.refresh_token, first);
    await waitOut();
    assert.match(JSON.stringify(await call("kept again")), /kept again/);
    assert.equal(oauth.counts.refreshes, refreshes + 2);
  });

  test("a refresh that says no expiry keeps its rotated refresh token, and its token is refreshed only once refused, not on the expiry of the one before", async () => {
    const { oauth, call, stored } = await signedInRun({ refreshSaysExpiry: false });
    const { refreshes, refusals } = oauth.counts;
    const first = stored()?.refresh_token;
    await waitOut();
    assert.match(JSON.stringify(await call("refreshed ahead")), /refreshed ahead/);
    const second = stored();
    assert.ok(second?.refresh_token && second.refresh_token !== first, "the rotated refresh token is stored");
    assert.equal(second.expires_in, undefined, "the expiry of the tokens before is not carried over");
    assert.equal(oauth.counts.refusals, refusals);
    // The fake ends the token's life all the same: the server's 401 asks for the refresh.
    await waitOut();
    assert.match(JSON.stringify(await call("refreshed when refused")), /refreshed when refused/);
    assert.equal(oauth.counts.refusals, refusals + 1, "the token without expiry went out until refused");
    assert.equal(oauth.counts.refreshes, refreshes + 2);
    const third = stored()?.refresh_token;
    assert.ok(third && third !== second.refresh_token, "the refresh token rotated after the 401 is stored");
  });

  test("over SSE, a token the server refuses with 401 is refreshed once under the lock, for two programs refused at once, and their calls sent again", async () => {
    const { oauth, call, stored, file, config } = await signedInRun({ refreshSaysExpiry: false, type: "sse" });
    const other = await startMcp({ servers: [config] }, { cwd, env, oauthFile: file });
    after(() => other.close());
    assert.equal(other.status()[0].state, "connected", other.status()[0].error);
    const echo = other.tools.find((tool) => tool.name === "mcp__notes__echo");
    assert.ok(echo);
    // Refreshed ahead of the sign-in's expiry, to tokens that say none.
    await waitOut();
    assert.match(JSON.stringify(await call("refreshed ahead")), /refreshed ahead/);
    assert.equal(stored()?.expires_in, undefined);
    const { refreshes, refusals, refusedRefreshes } = oauth.counts;
    const before = stored()?.access_token;
    // The fake ends the token's life all the same: the server's 401 to each post asks for the refresh.
    await waitOut();
    const outputs = await Promise.all([call("from one"), echo.execute({ text: "from two" }, { cwd, signal: new AbortController().signal, toolUseId: "two" })]);
    assert.deepEqual(outputs.map((output) => JSON.stringify(output).match(/from (one|two)/)?.[0]), ["from one", "from two"], JSON.stringify(outputs));
    assert.equal(oauth.counts.refusals, refusals + 2, "each program's post was refused once");
    assert.equal(oauth.counts.refreshes, refreshes + 1, "one refresh, the other program took its tokens");
    assert.equal(oauth.counts.refusedRefreshes, refusedRefreshes, "no refresh token was sent twice");
    assert.notEqual(stored()?.access_token, before);
  });

  test("a refresh the authorization server refuses ends the sign-in: the call and the next run say to sign in again", async () => {
    const { oauth, call, stored, file, config } = await signedInRun();
    oauth.revokeAll();
    await waitOut();
    const output = await call("refused");
    assert.equal((output as { isError?: boolean }).isError, true);
    assert.match(JSON.stringify(output), /needs sign-in: run \\"harness mcp login notes\\"/);
    assert.equal(stored(), undefined, "the refused tokens are forgotten");
    const next = await startMcp({ servers: [config] }, { cwd, env, oauthFile: file });
    after(() => next.close());
    assert.equal(next.status()[0].needsSignIn, true);
  });

  test("two runs that refresh at once (each its own program) both go on, and the sign-in outlives the refresh token one of them spent", async () => {
    const { oauth, call, stored, file, config } = await signedInRun();
    const other = await startMcp({ servers: [config] }, { cwd, env, oauthFile: file });
    after(() => other.close());
    const echo = other.tools.find((tool) => tool.name === "mcp__notes__echo");
    assert.ok(echo);
    const { refusals } = oauth.counts;
    await waitOut();
    const outputs = await Promise.all([call("from one"), echo.execute({ text: "from two" }, { cwd, signal: new AbortController().signal, toolUseId: "two" })]);
    for (const output of outputs) assert.notEqual((output as { isError?: boolean }).isError, true, JSON.stringify(output));
    assert.ok(stored()?.refresh_token, "the sign-in is kept");
    const next = await startMcp({ servers: [config] }, { cwd, env, oauthFile: file });
    after(() => next.close());
    assert.equal(next.status()[0].state, "connected", next.status()[0].error);
    assert.equal(oauth.counts.refusals, refusals, "no request went out with a spent token");
  });

  test("a sign-out while a refresh is under way holds: the refreshed tokens are not written back", async () => {
    const { call, stored, file } = await signedInRun({ refreshDelayMs: 300 });
    await waitOut();
    const calling = call("signed out meanwhile");
    await sleep(100);
    removeOAuthEntries(file, "notes");
    await calling;
    assert.equal(stored(), undefined);
  });

  test("tokens found refused are dropped, but not tokens another program stored after they were read", async () => {
    const { file, stored, config } = await signedInRun();
    const server = { name: "notes", url: config.url };
    const refusing = new StoredOAuthProvider(file, server);
    await refusing.tokens();
    await new StoredOAuthProvider(file, server).saveTokens({ access_token: "at-newer", token_type: "Bearer", refresh_token: "rt-newer" });
    await refusing.invalidateCredentials("tokens");
    assert.equal(stored()?.refresh_token, "rt-newer", "the other program's tokens stay");
    await refusing.invalidateCredentials("all");
    assert.equal(stored()?.access_token, "at-newer");

    await refusing.tokens();
    await refusing.invalidateCredentials("tokens");
    assert.equal(stored(), undefined, "the tokens it read are dropped");
  });
});
