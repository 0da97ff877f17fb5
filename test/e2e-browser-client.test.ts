// The client SDK in a real browser: headless Chromium loads a page that imports the SDK bundled for
// the browser, and the page drives a real `harness serve` over real sockets — a run with an approval
// and streamed text, another site's page refused or let in, a token from the page's address, and a
// server restarted under the page.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startChromium, startFakeAnthropic, startHarnessServer, type Chromium, type ChromiumPage, type FakeAnthropicOptions } from "@harness/test-utils";

/** A name other than localhost for "another site's page": Chromium resolves it to 127.0.0.1. */
const OTHER_SITE = "page.test";

/** The page: it imports the SDK and keeps one client, whose server and token come from its address
 * (?server=…&token=…), as a web UI would take them. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>harness client</title>
<script type="module">
import { createHarnessClient } from "/client.js";
const query = new URLSearchParams(location.search);
window.page = {
  createHarnessClient,
  errors: [],
  statuses: [],
  client(sessionId) {
    const client = createHarnessClient({ url: query.get("server"), userId: "browser", sessionId, token: query.get("token") ?? undefined, reconnect: { minDelayMs: 50, maxDelayMs: 200 } });
    client.on("error", (e) => window.page.errors.push(e.message));
    client.on("connection", (status) => window.page.statuses.push(status));
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

  const afterEach = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };

  test("a page runs a prompt, answers its approval and streams the reply", async () => {
    try {
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
    } finally {
      await afterEach();
    }
  });
});
