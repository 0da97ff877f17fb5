// Whose proxy and CA a run's own requests take besides the model's: WebFetch, http hooks and
// remote MCP servers (and `harness mcp login`, `harness mcp list`) go through the proxy and trust
// the CA that the user's settings' env names, never those a repository's own .claude/settings
// files name, which a hostile repository would use to read the pages, hook events and MCP tokens
// of whoever runs the harness in it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { startFakeAnthropic, startHttpProxy, startMcpTestHttpServer, startTlsFront, TEST_CA_FILE, toolThenText } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** No network variable of the machine running the tests leaks into a run. */
const NO_NETWORK_SET = { HTTPS_PROXY: "", https_proxy: "", HTTP_PROXY: "", http_proxy: "", ALL_PROXY: "", all_proxy: "", NO_PROXY: "", no_proxy: "", NODE_EXTRA_CA_CERTS: "", CLAUDE_CODE_CLIENT_CERT: "", CLAUDE_CODE_CLIENT_KEY: "", CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: "" };
const MODEL = ["--model", "claude-sonnet-4-6"];

type After = { after(fn: () => unknown): void };
type Place = "project" | "user";

/** A plain HTTP server answering `body` to every request, behind TLS with the test CA's
 * certificate: its https://localhost:PORT origin, and the requests that reached it. */
async function tlsSite(t: After, body: string): Promise<{ origin: string; seen: { method: string; url: string }[] }> {
  const seen: { method: string; url: string }[] = [];
  const site = createServer((req: IncomingMessage, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "" });
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(body));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const front = await startTlsFront(`http://127.0.0.1:${(site.address() as AddressInfo).port}`);
  t.after(async () => {
    await front.close();
    site.close();
  });
  return { origin: `https://localhost:${front.port}`, seen };
}

/** A home and a project (a git repository) for one run, with the proxy and the test CA named in
 * the settings' env of `place`, and `projectSettings` in the project's .claude/settings.json. */
function placeFor(t: After, place: Place, proxyUrl: string, projectSettings: Record<string, unknown> = {}) {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  mkdirSync(join(home, ".claude"));
  mkdirSync(join(project, ".claude"));
  const network = { env: { HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: TEST_CA_FILE } };
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(place === "user" ? network : {}));
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ ...projectSettings, ...(place === "project" && network) }));
  return { home, project };
}

async function proxyFor(t: After) {
  const proxy = await startHttpProxy();
  t.after(() => proxy.close());
  return proxy;
}

for (const place of ["project", "user"] as const) {
  const reaches = place === "user";

  test(`WebFetch ${reaches ? "goes through the proxy and trusts the CA the user's settings name" : "takes neither the proxy nor the CA a project's settings name"}`, async (t) => {
    const site = await tlsSite(t, "the page behind the gateway");
    const proxy = await proxyFor(t);
    const page = `${site.origin}/notes.txt`;
    const fake = await withFake(t, startFakeAnthropic({ replies: toolThenText("WebFetch", { url: page, prompt: "what does it say?" }, "done") }));
    const { home, project } = placeFor(t, place, proxy.url);
    const run = await harness(["run", ...MODEL, "--allowedTools", "WebFetch", "read the page"], { ...NO_NETWORK_SET, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: project }).result;
    assert.equal(run.code, 0, run.stderr);
    const toolResult = JSON.stringify(fake.requests[1]!.body.messages);
    if (reaches) {
      assert.deepEqual(proxy.seen, [{ method: "CONNECT", target: page.replace("https://", "").replace("/notes.txt", "") }]);
      assert.match(toolResult, /the page behind the gateway/);
    } else {
      assert.deepEqual(proxy.seen, [], "the project's proxy is not used");
      assert.deepEqual(site.seen, [], "the page's certificate is not trusted: the project's CA is not either");
      assert.match(toolResult, /certificate/i);
    }
  });

  test(`an http hook ${reaches ? "posts through the proxy and trusts the CA the user's settings name" : "takes neither the proxy nor the CA a project's settings name"}`, async (t) => {
    const hook = await tlsSite(t, "{}");
    const proxy = await proxyFor(t);
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
    const hooks = { UserPromptSubmit: [{ hooks: [{ type: "http", url: `${hook.origin}/events` }] }] };
    const { home, project } = placeFor(t, place, proxy.url, { hooks });
    const run = await harness(["run", ...MODEL, "hi"], { ...NO_NETWORK_SET, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: project }).result;
    assert.equal(run.code, 0, run.stderr);
    if (reaches) {
      assert.deepEqual(hook.seen, [{ method: "POST", url: "/events" }]);
      assert.deepEqual(proxy.seen, [{ method: "CONNECT", target: hook.origin.replace("https://", "") }]);
    } else {
      assert.deepEqual(proxy.seen, [], "the project's proxy is not used");
      assert.deepEqual(hook.seen, [], "the hook's certificate is not trusted: the project's CA is not either");
    }
  });

  test(`a remote MCP server ${reaches ? "is reached through the proxy, trusting the CA, the user's settings name" : "is reached with neither the proxy nor the CA a project's settings name"}, in a run and by harness mcp list and login`, async (t) => {
    const server = await startMcpTestHttpServer();
    t.after(() => server.close());
    const front = await startTlsFront(new URL(server.url).origin);
    t.after(() => front.close());
    const url = `https://localhost:${front.port}/mcp`;
    const proxy = await proxyFor(t);
    const { home, project } = placeFor(t, place, proxy.url);
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: { notes: { type: "http", url } } }));
    const env = { ...NO_NETWORK_SET, HOME: home, BROWSER: "none", ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" };
    const report = await harness(["run", "/mcp"], env, { cwd: project }).result;
    assert.equal(report.code, 0, report.stderr);
    const list = await harness(["mcp", "list"], env, { cwd: project }).result;
    const login = await harness(["mcp", "login", "notes"], env, { cwd: project }).result;
    if (reaches) {
      assert.match(report.stdout, /^ {2}notes: connected/m);
      assert.match(list.stdout, /^notes \(user\): .* - ✓ connected/m);
      assert.equal(login.code, 0, login.stderr);
      assert.match(login.stdout, /notes let us in without a sign-in/);
      assert.ok(proxy.seen.length >= 3, JSON.stringify(proxy.seen));
      for (const seen of proxy.seen) assert.deepEqual(seen, { method: "CONNECT", target: `localhost:${front.port}` });
    } else {
      assert.doesNotMatch(report.stdout, /^ {2}notes: connected/m);
      assert.match(list.stdout, /^notes \(user\): .* - ✗ failed: .*certificate/im);
      assert.equal(login.code, 1);
      assert.match(login.stderr, /signing in to notes failed: .*certificate/i);
      assert.deepEqual(proxy.seen, [], "the project's proxy is not used");
    }
  });
}

test("a proxy a project's settings name, even one that cannot be used, does not stop the run: only its commands see it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: toolThenText("Bash", { command: "printenv HTTPS_PROXY" }, "ran") }));
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  mkdirSync(join(project, ".claude"));
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ env: { HTTPS_PROXY: "socks5://proxy.corp:1080" } }));
  const run = await harness(["run", ...MODEL, "--allowedTools", "Bash", "hi"], { ...NO_NETWORK_SET, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: project }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "ran");
  assert.doesNotMatch(run.stderr, /not a usable proxy URL/);
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /socks5:\/\/proxy\.corp:1080/);
});
