// Several programs of the same user share the sign-in file: runs of other sessions, `harness mcp
// login`, `harness mcp add --client-secret`. These tests run them as real child processes at once.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, describe, test } from "node:test";
import { startFakeOAuthServer, startMcpTestHttpServer } from "@harness/test-utils";
import type { McpRemoteServerConfig } from "./config.ts";
import { mcpLogin } from "./oauth-login.ts";
import { StoredOAuthProvider } from "./oauth-provider.ts";
import { mcpOAuthFile, readOAuthEntry, saveClientSecret } from "./oauth-store.ts";

const here = import.meta.dirname;

/** Starts `count` programs running `body` (an async function body given `input`, returning what the
 * program prints), lets them all go at once when every one has started, and resolves to what each
 * returned, or threw as `{ error }`. */
async function atOnce(count: number, body: string, input: (i: number) => unknown): Promise<unknown[]> {
  const source = `
    import { StoredOAuthProvider } from ${JSON.stringify(join(here, "oauth-provider.ts"))};
    import { saveClientSecret } from ${JSON.stringify(join(here, "oauth-store.ts"))};
    const input = JSON.parse(process.env.CHILD_INPUT);
    process.stdout.write("ready\\n");
    await new Promise((resolve) => process.stdin.once("data", resolve));
    let result;
    try { result = await (async () => { ${body} })(); } catch (error) { result = { error: error.message }; }
    process.stdout.write(JSON.stringify(result ?? null) + "\\n");
    process.exit(0);`;
  const children = Array.from({ length: count }, (_, i) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], { env: { ...process.env, CHILD_INPUT: JSON.stringify(input(i)) }, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const ready = (async () => {
      while (!out.startsWith("ready\n")) {
        if (child.exitCode !== null) throw new Error(`child ${i} ended before it was ready`);
        await sleep(10);
      }
    })();
    const done = new Promise<unknown>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.slice("ready\n".length))) : reject(new Error(`child ${i} exited ${code}: ${out}`))));
    });
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const { child } of children) child.stdin.end("go\n");
  return Promise.all(children.map((c) => c.done));
}

describe("programs sharing the sign-in file", () => {
  const dir = mkdtempSync(join(tmpdir(), "harness-oauth-processes-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("programs saving different servers' entries at once lose none of them", async () => {
    const file = join(dir, "secrets.json");
    const url = "https://example.com/mcp";
    const writes = 60;
    await atOnce(4, `for (let n = 0; n < ${writes}; n++) saveClientSecret(input.file, { name: input.name, url: input.url }, "secret-" + n);`, (i) => ({ file, name: `server${i}`, url }));
    for (let i = 0; i < 4; i++) assert.equal(readOAuthEntry(file, { name: `server${i}`, url })?.clientSecret, `secret-${writes - 1}`, `server${i}'s last write is kept`);
  });

  test("runs whose token expires at once refresh it once: the others wait and take the refreshed tokens, and the next refresh works", async () => {
    const oauth = await startFakeOAuthServer({ accessTokenSeconds: 1, refreshDelayMs: 300 });
    const server = await startMcpTestHttpServer({ oauth });
    after(async () => {
      await server.close();
      await oauth.close();
    });
    const file = mcpOAuthFile(join(dir, "home"));
    const config: McpRemoteServerConfig = { name: "notes", scope: "user", file: "~/.claude.json", type: "http", url: server.url, headers: {} };
    await mcpLogin(config, { file, env: { BROWSER: "none" }, onAuthorizationUrl: (url) => void fetch(url).then((res) => res.text()) });
    const refreshTokens = () => readOAuthEntry(file, { name: "notes", url: server.url })?.tokens?.refresh_token;
    const { refreshes } = oauth.counts;
    await sleep(1150);
    const body = "const tokens = await new StoredOAuthProvider(input.file, { name: 'notes', url: input.url }).tokens(); return { access: tokens?.access_token };";
    const got = await atOnce(3, body, () => ({ file, url: server.url }));
    for (const result of got) assert.match((result as { access?: string }).access ?? JSON.stringify(result), /^at-/, "each run has an access token");
    assert.equal(new Set(got.map((result) => (result as { access: string }).access)).size, 1, "they share one refresh");
    assert.equal(oauth.counts.refreshes, refreshes + 1);
    assert.equal(oauth.counts.refusedRefreshes, 0, "no refresh token was sent twice");

    const stored = refreshTokens();
    await sleep(1150);
    const [next] = await atOnce(1, body, () => ({ file, url: server.url }));
    assert.match((next as { access?: string }).access ?? JSON.stringify(next), /^at-/, "the stored refresh token is the live one");
    assert.notEqual(refreshTokens(), stored);
    assert.equal(oauth.counts.refusedRefreshes, 0);
  });

  test("runs whose token the server refuses at once, though it said no expiry, refresh it once under the lock: both go on without a new sign-in, and the file keeps the newest tokens", async () => {
    const oauth = await startFakeOAuthServer({ refreshDelayMs: 300 });
    const server = await startMcpTestHttpServer({ oauth });
    after(async () => {
      await server.close();
      await oauth.close();
    });
    const file = mcpOAuthFile(join(dir, "refused"));
    const config: McpRemoteServerConfig = { name: "notes", scope: "user", file: "~/.claude.json", type: "http", url: server.url, headers: {} };
    await mcpLogin(config, { file, env: { BROWSER: "none" }, onAuthorizationUrl: (url) => void fetch(url).then((res) => res.text()) });
    const stored = () => readOAuthEntry(file, { name: "notes", url: server.url })?.tokens;
    // The tokens say they last an hour; the server ends them now all the same, as one revoked or
    // restarted does: each run learns it from the 401 of its first request.
    oauth.expireAccessTokens();
    const { refreshes } = oauth.counts;
    const body = `
      const { startMcp } = await import(input.manager);
      const manager = await startMcp({ servers: [input.config] }, { cwd: input.cwd, env: { BROWSER: "none" }, oauthFile: input.file });
      try {
        const [status] = manager.status();
        const echo = manager.tools.find((tool) => tool.name === "mcp__notes__echo");
        const output = echo && (await echo.execute({ text: "after the 401" }, { cwd: input.cwd, signal: new AbortController().signal, toolUseId: "t" }));
        return { state: status.state, error: status.error, needsSignIn: status.needsSignIn, output };
      } finally {
        await manager.close();
      }`;
    const input = () => ({ manager: join(here, "manager.ts"), config, cwd: tmpdir(), file });
    const got = (await atOnce(2, body, input)) as { state: string; output?: unknown }[];
    for (const result of got) {
      assert.equal(result.state, "connected", JSON.stringify(result));
      assert.match(JSON.stringify(result.output), /after the 401/);
    }
    assert.equal(oauth.counts.refusedRefreshes, 0, "no refresh token was sent twice");
    assert.equal(oauth.counts.refreshes, refreshes + 1, "the second run took the tokens the first refreshed");
    assert.ok(stored()?.refresh_token, "the sign-in is kept");

    // The access token stored is the live one: the next run's requests are not refused.
    const { refusals } = oauth.counts;
    const [again] = (await atOnce(1, body, input)) as { state: string }[];
    assert.equal(again.state, "connected", JSON.stringify(again));
    assert.equal(oauth.counts.refusals, refusals);
    // So is the refresh token: refused again, the next run refreshes with it.
    oauth.expireAccessTokens();
    const [next] = (await atOnce(1, body, input)) as { state: string }[];
    assert.equal(next.state, "connected", JSON.stringify(next));
    assert.equal(oauth.counts.refreshes, refreshes + 2);
    assert.equal(oauth.counts.refusedRefreshes, 0);
  });

  test("a run saving tokens while another program holds the file's lock waits without stopping the runner's other sessions", async () => {
    const file = join(dir, "held.json");
    const server = { name: "notes", url: "https://example.com/mcp" };
    saveClientSecret(file, server, "secret");
    // Held by a live program (this one's pid stands for it), released 100 ms later.
    writeFileSync(`${file}.lock`, `${hostname()} ${process.pid} another`);
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    const released = sleep(100).then(() => rmSync(`${file}.lock`, { force: true }));
    const started = Date.now();
    try {
      await new StoredOAuthProvider(file, server).saveTokens({ access_token: "at-1", token_type: "Bearer" });
    } finally {
      clearInterval(ticking);
    }
    await released;
    assert.ok(Date.now() - started < 2_000, `the save waited ${Date.now() - started} ms for a lock released after 100`);
    assert.ok(ticks >= 5, `the process's timers ran ${ticks} times while the save waited`);
    assert.equal(readOAuthEntry(file, server)?.tokens?.access_token, "at-1");
    assert.equal(readOAuthEntry(file, server)?.clientSecret, "secret");
    assert.equal(existsSync(`${file}.lock`), false);
  });
});
