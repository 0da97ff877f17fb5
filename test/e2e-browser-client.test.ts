// The client SDK in a real browser: headless Chromium loads a page that imports the SDK bundled for
// the browser, and the page drives a real `harness serve` over real sockets — a run with an approval
// and streamed text, another site's page refused or let in, a token from the page's address, the
// sessions API over HTTP, a server killed and started again under the page's run, and the network
// coming back.
import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startChromium, startFakeAnthropic, startHarnessServer, storedRunnerPid, storedSeq, waitFor, type Chromium, type ChromiumPage, type FakeAnthropicOptions } from "@harness/test-utils";

/** A name other than localhost for "another site's page": Chromium resolves it to 127.0.0.1. */
const OTHER_SITE = "page.test";

/** The page: it imports the SDK and keeps one client, whose server and token come from its address
 * (?server=…&token=…), as a web UI would take them. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>harness client</title>
<script type="module">
import { createHarnessClient, createSessionsApi } from "/client.js";
const query = new URLSearchParams(location.search);
window.page = {
  sessions: () => createSessionsApi({ url: query.get("server"), userId: "browser", token: query.get("token") ?? undefined }),
  errors: [],
  client(sessionId) {
    const client = createHarnessClient({ url: query.get("server"), userId: "browser", sessionId, token: query.get("token") ?? undefined, reconnect: { minDelayMs: 50, maxDelayMs: 200 } });
    client.on("error", (e) => window.page.errors.push(e.message));
    client.on("delta", (operations, seq) => (window.page.seq = seq));
    client.on("snapshot", (state, seq) => (window.page.seq = seq));
    return client;
  },
  /** Connects a client for the session: "connected", or why connect() failed. */
  async connect(sessionId) {
    window.page.current = window.page.client(sessionId);
    try {
      await window.page.current.connect();
      return "connected";
    } catch (error) {
      return error.message;
    }
  },
};
</script>`;

/** The SDK as a web page loads it: one ES module for the browser, nothing of Node's in it. */
async function bundleClient(): Promise<string> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [fileURLToPath(import.meta.resolve("@harness/client"))],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

/** Serves the page and the bundle on 127.0.0.1, at any host name (localhost or OTHER_SITE). */
async function servePage(bundle: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://page").pathname;
    if (path === "/client.js") response.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
    else if (path === "/") response.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe("the client SDK in Chromium", () => {
  let chromium: Chromium;
  let pages: { server: Server; port: number };
  const cleanups: (() => Promise<unknown>)[] = [];

  before(async () => {
    pages = await servePage(await bundleClient());
    chromium = await startChromium({ hostRules: `MAP ${OTHER_SITE} 127.0.0.1` });
  });
  after(async () => {
    await chromium?.close();
    pages?.server.close();
  });

  /** A real server with the fake model behind it, on a data dir of its own; stopped after the test. */
  async function harness(fakeOptions: FakeAnthropicOptions, env: Record<string, string> = {}) {
    const dataDir = await mkdtemp(join(tmpdir(), "harness-browser-"));
    const fake = await startFakeAnthropic(fakeOptions);
    const fullEnv = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_RETRY_BASE_MS: "10", ...env };
    const it = { dataDir, fake, env: fullEnv, server: await startHarnessServer({ dataDir, env: fullEnv }) };
    cleanups.push(async () => {
      await it.server.stop();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    return it;
  }

  /** A new tab on the page at `host`, pointed at `serverUrl` (and `token`). */
  async function openPage(host: string, serverUrl: string, token?: string): Promise<ChromiumPage> {
    const page = await chromium.newPage();
    cleanups.push(() => page.close());
    const query = new URLSearchParams({ server: serverUrl, ...(token ? { token } : {}) });
    await page.navigate(`http://${host}:${pages.port}/?${query}`);
    assert.equal(await page.evaluate("typeof window.page"), "object", `the page did not load the SDK:\n${page.console().join("\n")}`);
    return page;
  }

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  test("a page runs a prompt, answers its approval and streams the reply", async () => {
    const { server, dataDir } = await harness({
      replies: [{ toolUses: [{ name: "Bash", input: { command: "echo from-bash > note.txt", description: "write note.txt" } }] }, { text: ["all ", "done"] }],
    });
    const page = await openPage("localhost", server.url);
    assert.equal(await page.evaluate(`window.page.connect("run")`), "connected");
    const result = await page.evaluate<{ status: string; reply: string; asked: string[]; streamed: string; tool: unknown; state: { status: string; roles: string[] } }>(`(async () => {
      const asked = [];
      let streamed = "";
      const client = window.page.current;
      const result = await client.run("run something", {
        timeoutMs: 30000,
        onApproval: (request) => {
          asked.push(request.toolName + " " + request.input.command);
          return { behavior: "allow" };
        },
        onText: (text) => (streamed += text),
      });
      const call = result.reply.toolCalls?.[0];
      return {
        status: result.status,
        reply: result.reply.content,
        asked,
        streamed,
        tool: call && { name: call.name, status: call.status },
        state: { status: client.state.status, roles: client.state.messages.map((m) => m.role) },
      };
    })()`);
    assert.deepEqual(result, {
      status: "complete",
      reply: "all done",
      asked: ["Bash echo from-bash > note.txt"],
      streamed: "all done",
      tool: { name: "Bash", status: "complete" },
      state: { status: "idle", roles: ["user", "assistant"] },
    });
    assert.equal(await readFile(join(dataDir, "workspaces", "browser", "run", "note.txt"), "utf8"), "from-bash\n");
    assert.deepEqual(await page.evaluate("window.page.errors"), []);
  });

  test("a page on another site is refused without HARNESS_ALLOWED_ORIGINS and let in with it", async () => {
    const other = `http://${OTHER_SITE}:${pages.port}`;
    const closed = await harness({});
    const refused = await openPage(OTHER_SITE, closed.server.url);
    const said = await refused.evaluate<string>(`window.page.connect("main")`);
    // A refused page cannot read why (the server lets it read nothing), so the client names the causes.
    assert.match(said, /^could not connect to ws:\/\/127\.0\.0\.1:\d+\/ws\?userId=browser&sessionId=main: the WebSocket handshake failed .*this page's origin not among the server's HARNESS_ALLOWED_ORIGINS/);
    await closed.server.waitForOutput(new RegExp(`refused a request from the web page at ${other.replace(/\./g, "\\.")}`));

    const open = await harness({ replies: [{ text: "hello from afar" }] }, { HARNESS_ALLOWED_ORIGINS: other });
    const page = await openPage(OTHER_SITE, open.server.url);
    assert.equal(await page.evaluate(`window.page.connect("main")`), "connected");
    assert.equal(await page.evaluate(`window.page.current.run("hi", { timeoutMs: 30000 }).then((r) => r.reply.content)`), "hello from afar");
  });

  test("with HARNESS_TOKEN the page's ?token= is taken, and a wrong one is refused with the server's words", async () => {
    const { server } = await harness({}, { HARNESS_TOKEN: "right" });
    const wrong = await openPage(OTHER_SITE, server.url, "not-the-token");
    const said = await wrong.evaluate<string>(`window.page.connect("main")`);
    assert.match(said, /^could not connect to ws:\/\/127\.0\.0\.1:\d+\/ws\?userId=browser&sessionId=main&token=…: the server refused the WebSocket handshake \(401\): missing or wrong token: /);
    assert.doesNotMatch(said, /not-the-token/);
    assert.equal(await wrong.evaluate("window.page.current.connection"), "closed");

    const right = await openPage(OTHER_SITE, server.url, "right");
    assert.equal(await right.evaluate(`window.page.connect("main")`), "connected");
    assert.equal(await right.evaluate("window.page.current.state.status"), "idle");
  });

  test("another site's page with the token manages sessions over HTTP: every method, and the server's errors", async () => {
    const { server } = await harness({}, { HARNESS_TOKEN: "right" });
    const page = await openPage(OTHER_SITE, server.url, "right");
    const seen = await page.evaluate<unknown>(`(async () => {
      const api = window.page.sessions();
      const made = await api.create({ sessionId: "notes", title: "Notes" });
      const taken = await api.create({ sessionId: "notes" }).then(() => "created twice", (e) => e.status + " " + e.message);
      const renamed = await api.rename("notes", "  Renamed ");
      const listed = (await api.list()).map((s) => s.sessionId + ": " + s.title);
      const removed = await api.remove("notes");
      return { made, taken, renamed, listed, removed, after: (await api.list()).length };
    })()`);
    assert.deepEqual(seen, {
      made: { sessionId: "notes" },
      taken: '409 POST /sessions answered 409: session "notes" already exists',
      renamed: { sessionId: "notes", title: "Renamed" },
      listed: ["notes: Renamed"],
      removed: { sessionId: "notes", deleted: true },
      after: 0,
    });
  });

  test("the page's client reconnects to a server killed under a run, and the run's reply and state lose nothing", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const it = await harness({ replies: [{ text: ["before ", "restart"] }, { text: ["after ", "the ", "restart"], hold: held }] });
    cleanups.push(async () => release());
    const page = await openPage("localhost", it.server.url);
    assert.equal(await page.evaluate(`window.page.connect("main")`), "connected");
    assert.equal(await page.evaluate(`window.page.current.run("one", { timeoutMs: 30000 }).then((r) => r.reply.content)`), "before restart");

    // A second run waits on the model while the server is killed; its runner goes on without it.
    await page.evaluate(`(async () => {
      const client = window.page.current;
      window.page.streamed = "";
      window.page.second = client.run("two", { timeoutMs: 30000, onText: (text) => (window.page.streamed += text) })
        .then((r) => ({ status: r.status, reply: r.reply.content, ...(r.state.error ? { error: r.state.error } : {}) }), (e) => ({ error: e.message }));
      await client.waitFor((s) => s.status === "running", 10000);
    })()`);
    // The runner is recorded and asks the model; the store writes in batches: let it catch up with
    // what the page saw, as a server that ran on would have, so that the kill loses none of it.
    const ids = { userId: "browser", sessionId: "main" };
    await waitFor(() => it.fake.requests.length === 2 && storedRunnerPid(it.dataDir, ids), "the runner to ask the model");
    const seen = await page.evaluate<number>("window.page.seq");
    await waitFor(() => storedSeq(it.dataDir, ids) >= seen, "the store to catch up with the page");
    const port = it.server.port;
    await it.server.stop("SIGKILL");
    await page.evaluate(`new Promise((resolve) => {
      const client = window.page.current;
      if (client.connection !== "open") return resolve();
      const off = client.on("connection", (status) => status !== "open" && (off(), resolve()));
    })`);
    release();
    it.server = await startHarnessServer({ dataDir: it.dataDir, env: it.env, port });

    const after = await page.evaluate<{ second: unknown; streamed: string; followed: unknown; fresh: unknown }>(`(async () => {
      const client = window.page.current;
      const second = await window.page.second;
      const fresh = window.page.client("main");
      try {
        const snapshot = await fresh.connect();
        return { second, streamed: window.page.streamed, followed: client.state, fresh: snapshot };
      } finally {
        fresh.close();
      }
    })()`);
    assert.deepEqual(after.second, { status: "complete", reply: "after the restart" });
    assert.equal(after.streamed, "after the restart");
    assert.deepEqual(after.followed, after.fresh);
    const fresh = after.fresh as { status: string; messages: { content: string }[] };
    assert.equal(fresh.status, "idle");
    assert.deepEqual(fresh.messages.map((m) => m.content), ["one", "before restart", "two", "after the restart"]);
    assert.deepEqual(await page.evaluate("window.page.current.connection"), "open");
    const errors = await page.evaluate<string[]>("window.page.errors");
    assert.deepEqual(errors.filter((e) => !/^could not reconnect to .*; trying again$/.test(e)), []);
  });

  test("the page's client makes a new connection when the network comes back, and goes on with it", async () => {
    const it = await harness({ replies: [{ text: "one" }, { text: "two" }] });
    const page = await openPage("localhost", it.server.url);
    assert.equal(await page.evaluate(`window.page.connect("main")`), "connected");
    assert.equal(await page.evaluate(`window.page.current.run("first", { timeoutMs: 30000 }).then((r) => r.reply.content)`), "one");
    await page.evaluate(`window.page.current.on("connection", (status) => status === "reconnecting" && (window.page.reconnected = true))`);

    // Chromium's emulated network: the open socket survives it, but the page hears "offline" and
    // then "online", as after a laptop changed networks.
    const network = (offline: boolean) => page.send("Network.emulateNetworkConditions", { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.send("Network.enable");
    await network(true);
    assert.equal(await page.evaluate("navigator.onLine"), false);
    assert.equal(await page.evaluate("window.page.current.connection"), "open", "going offline leaves an open connection alone");
    await network(false);
    await page.evaluate(`new Promise((resolve, reject) => {
      const client = window.page.current;
      const until = Date.now() + 10000;
      const check = () => {
        if (window.page.reconnected && client.connection === "open") resolve();
        else if (Date.now() > until) reject(new Error("no new connection 10 s after the network came back"));
        else setTimeout(check, 10);
      };
      check();
    })`);
    assert.equal(await page.evaluate(`window.page.current.run("second", { timeoutMs: 30000 }).then((r) => r.reply.content)`), "two");
    assert.deepEqual(await page.evaluate("window.page.errors"), []);
  });
});
