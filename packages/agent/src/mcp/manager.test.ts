import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { after, before, describe, test } from "node:test";
import { mcpTestServerCommand, processAlive, startMcpTestHttpServer, waitFor as sharedWaitFor, TEST_PNG_BASE64, type McpTestHttpServer } from "@harness/test-utils";
import type { Tool, ToolContext, ToolOutput } from "../types.ts";
import type { McpServerConfig } from "./config.ts";
import { type McpManager, type McpNoticeLevel, startMcp } from "./manager.ts";

const cwd = tmpdir();

function stdioServer(name: string, options: { extraTools?: number } = {}): McpServerConfig {
  const { command, args } = mcpTestServerCommand(options);
  return { name, scope: "project", file: ".mcp.json", type: "stdio", command, args, env: {} };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function ctx(signal = new AbortController().signal): ToolContext {
  return { cwd, signal, toolUseId: "toolu_1" };
}

function tool(manager: McpManager, name: string): Tool {
  const found = manager.tools.find((t) => t.name === name);
  assert.ok(found, `tool ${name} is listed (have: ${manager.tools.map((t) => t.name).join(", ")})`);
  return found;
}

async function call(manager: McpManager, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<ToolOutput> {
  return tool(manager, name).execute(args, ctx(signal));
}

function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<boolean> {
  return sharedWaitFor(condition, what, { timeoutMs });
}


type Notice = { level: McpNoticeLevel; message: string };
function recorder(): { notices: Notice[]; onNotice: (level: McpNoticeLevel, message: string) => void } {
  const notices: Notice[] = [];
  return { notices, onNotice: (level, message) => notices.push({ level, message }) };
}

describe("stdio MCP server", () => {
  let manager: McpManager;
  const { notices, onNotice } = recorder();
  before(async () => {
    manager = await startMcp({ servers: [stdioServer("test")] }, { cwd, onNotice });
  });
  after(() => manager.close());

  test("lists the server's tools as mcp__<server>__<tool> with description and schema", () => {
    const names = manager.tools.map((t) => t.name);
    for (const name of ["echo", "add", "fail", "slow", "image", "pid"]) assert.ok(names.includes(`mcp__test__${name}`), name);
    const add = tool(manager, "mcp__test__add");
    assert.equal(add.description, "Adds two numbers and returns the sum.");
    assert.equal(add.inputSchema.type, "object");
    assert.deepEqual(add.inputSchema.required, ["a", "b"]);
    assert.deepEqual(Object.keys(add.inputSchema.properties as object), ["a", "b"]);
    assert.deepEqual(manager.status(), [{ name: "test", state: "connected", toolCount: manager.tools.length }]);
    assert.deepEqual(notices, [{ level: "info", message: `MCP server test connected: ${manager.tools.length} tools` }]);
  });

  test("calls return the server's text", async () => {
    assert.deepEqual(await call(manager, "mcp__test__echo", { text: "hello there" }), { content: "hello there", isError: false });
    assert.deepEqual(await call(manager, "mcp__test__add", { a: 2, b: 40 }), { content: "42", isError: false });
  });

  test("an error result comes back as is_error", async () => {
    assert.deepEqual(await call(manager, "mcp__test__fail"), { content: "fail: this tool always fails", isError: true });
  });

  test("arguments the server rejects give an error result the model can read", async () => {
    const output = await call(manager, "mcp__test__add", { a: "two" });
    assert.equal(output.isError, true);
    assert.match(output.content, /Invalid arguments for tool add/);
    assert.match(output.content, /expected number, received string at a/);
  });

  test("images come back as image blocks and are mentioned in the text", async () => {
    const output = await call(manager, "mcp__test__image");
    assert.equal(output.isError, false);
    assert.match(output.content, /^a red pixel\n\[image: image\/png, \d+ bytes\]$/);
    assert.deepEqual(output.blocks, [
      { type: "text", text: "a red pixel" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: TEST_PNG_BASE64 } },
    ]);
  });

  test("cancelling a call stops it on the server", async () => {
    const controller = new AbortController();
    const pending = call(manager, "mcp__test__slow", { ms: 60_000 }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    const output = await pending;
    assert.equal(output.isError, true);
    // The cancellation reaches the server as a notification; poll its counter until it arrives.
    let stats = { cancelledSlowCalls: 0 };
    const deadline = Date.now() + 20_000;
    while (stats.cancelledSlowCalls < 1 && Date.now() < deadline) {
      stats = JSON.parse((await call(manager, "mcp__test__stats")).content);
      if (stats.cancelledSlowCalls < 1) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(stats.cancelledSlowCalls, 1);
  });
});

describe("remote MCP servers", () => {
  let http: McpTestHttpServer;
  before(async () => {
    http = await startMcpTestHttpServer();
  });
  after(() => http.close());

  for (const type of ["http", "sse"] as const) {
    test(`${type}: tools are listed and called, configured headers are sent`, async () => {
      const url = type === "http" ? http.url : http.sseUrl;
      const manager = await startMcp({ servers: [{ name: `remote-${type}`, scope: "project", file: ".mcp.json", type, url, headers: { "X-Api-Key": `key-${type}` } }] }, { cwd });
      try {
        assert.deepEqual(manager.status(), [{ name: `remote-${type}`, state: "connected", toolCount: manager.tools.length }]);
        assert.deepEqual(await call(manager, `mcp__remote-${type}__echo`, { text: `over ${type}` }), { content: `over ${type}`, isError: false });
        assert.ok(http.requestHeaders.some((h) => h["x-api-key"] === `key-${type}`));
      } finally {
        await manager.close();
      }
      assert.equal(manager.status()[0].state, "closed");
    });
  }
});

describe("failures", () => {
  test("a server whose command does not exist is reported; the others work", async () => {
    const { notices, onNotice } = recorder();
    const broken: McpServerConfig = { name: "ghost", scope: "project", file: ".mcp.json", type: "stdio", command: "no-such-mcp-server-command", args: [], env: {} };
    const manager = await startMcp({ servers: [broken, stdioServer("ok")] }, { cwd, onNotice });
    try {
      assert.deepEqual(manager.status(), [
        { name: "ghost", state: "failed", error: "command not found: no-such-mcp-server-command", toolCount: 0 },
        { name: "ok", state: "connected", toolCount: manager.tools.length },
      ]);
      assert.ok(notices.some((n) => n.level === "error" && n.message === "MCP server ghost failed: command not found: no-such-mcp-server-command"));
      assert.ok(manager.tools.every((t) => t.name.startsWith("mcp__ok__")));
      assert.equal((await call(manager, "mcp__ok__echo", { text: "still here" })).content, "still here");
    } finally {
      await manager.close();
    }
  });

  test("an unreachable remote server is reported with the reason", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`;
    await new Promise((resolve) => closed.close(resolve));
    const manager = await startMcp({ servers: [{ name: "away", scope: "user", file: "~/.claude.json", type: "http", url, headers: {} }] }, { cwd });
    await manager.close();
    const [status] = manager.status();
    assert.equal(status.state, "failed");
    assert.match(status.error ?? "", new RegExp(`^cannot connect to ${url.replace(/[.]/g, "\\.")}: .*ECONNREFUSED`));
  });

  test("a remote server's failure names its URL without the credentials or query the URL carries", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://someone:hunter2@127.0.0.1:${port}/mcp?token=s3cret`;
    const manager = await startMcp({ servers: [{ name: "away", scope: "user", file: "~/.claude.json", type: "http", url, headers: {} }] }, { cwd });
    await manager.close();
    const [status] = manager.status();
    assert.equal(status.state, "failed");
    assert.match(status.error ?? "", new RegExp(`^cannot connect to http://127\\.0\\.0\\.1:${port}/mcp: `));
    assert.doesNotMatch(status.error ?? "", /hunter2|s3cret|someone/);
  });

  test("a remote server that refuses the request is reported with the HTTP status, and one that wants credentials with how to give them", async (t) => {
    const refusing = createServer((req, res) => {
      const status = Number(req.url?.split("/")[1]);
      res.writeHead(status, { "content-type": "application/json" });
      res.end('{"error":"invalid_token"}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    t.after(() => refusing.close());
    const base = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const remote = (name: string, type: "http" | "sse", status: number): McpServerConfig => ({ name, scope: "user", file: "~/.claude.json", type, url: `${base}/${status}/mcp`, headers: {} });
    const manager = await startMcp({ servers: [remote("h401", "http", 401), remote("s403", "sse", 403), remote("h404", "http", 404)] }, { cwd });
    await manager.close();
    const errors = Object.fromEntries(manager.status().map((s) => [s.name, s.error]));
    const credentials = (name: string) => `the server wants credentials: sign in with "harness mcp login ${name}", or give a token in the entry's "headers" (e.g. "Authorization": "Bearer \${TOKEN}")`;
    assert.match(errors.h401 ?? "", new RegExp(`^cannot connect to ${base}/401/mcp: HTTP 401, ${escape(credentials("h401"))} \\(Streamable HTTP error: .*invalid_token`));
    assert.match(errors.s403 ?? "", new RegExp(`^cannot connect to ${base}/403/mcp: HTTP 403, ${escape(credentials("s403"))} \\(SSE error: `));
    assert.match(errors.h404 ?? "", new RegExp(`^cannot connect to ${base}/404/mcp: HTTP 404 \\(Streamable HTTP error: `));
  });

  test("a server that crashes at start is reported with its stderr", async () => {
    const { notices, onNotice } = recorder();
    const crashing: McpServerConfig = {
      name: "crash",
      scope: "project",
      file: ".mcp.json",
      type: "stdio",
      command: process.execPath,
      args: ["-e", "console.error('missing DATABASE_URL'); process.exit(3)"],
      env: {},
    };
    const manager = await startMcp({ servers: [crashing] }, { cwd, onNotice });
    await manager.close();
    const [status] = manager.status();
    assert.equal(status.state, "failed");
    assert.match(status.error ?? "", /missing DATABASE_URL/);
    assert.equal(notices[0].message, "MCP server crash failed: its process exited with code 3; its stderr ended with:\n  missing DATABASE_URL");
  });

  test("a server that does not answer in MCP_TIMEOUT fails and its process is stopped", async () => {
    // The process prints its pid at once and then ignores stdin, so stopping it takes a signal.
    const silent: McpServerConfig = {
      name: "silent",
      scope: "project",
      file: ".mcp.json",
      type: "stdio",
      command: process.execPath,
      args: ["-e", "console.error(process.pid); setInterval(() => {}, 1000)"],
      env: {},
    };
    const manager = await startMcp({ servers: [silent] }, { cwd, env: { ...process.env, MCP_TIMEOUT: "1000" } });
    const [status] = manager.status();
    assert.equal(status.state, "failed");
    const match = /^did not answer within 1000 ms \(MCP_TIMEOUT sets the limit\); its stderr ended with:\n {2}(\d+)$/.exec(status.error ?? "");
    assert.ok(match, status.error);
    assert.equal(processAlive(Number(match[1])), false);
    await manager.close();
  });

  test("a server killed mid-session: a notice, then clean errors from its tools", async () => {
    const { notices, onNotice } = recorder();
    const manager = await startMcp({ servers: [stdioServer("victim"), stdioServer("bystander")] }, { cwd, onNotice });
    try {
      const pid = Number((await call(manager, "mcp__victim__pid")).content);
      process.kill(pid, "SIGKILL");
      await waitFor(() => notices.some((n) => n.level === "error"), "the failure notice");
      assert.match(notices.find((n) => n.level === "error")?.message ?? "", /^MCP server victim failed: its process was ended by SIGKILL$/);
      const output = await call(manager, "mcp__victim__echo", { text: "anyone?" });
      assert.equal(output.isError, true);
      assert.match(output.content, /^MCP server victim is not connected/);
      assert.equal(manager.status()[0].state, "failed");
      assert.equal((await call(manager, "mcp__bystander__echo", { text: "fine" })).content, "fine");
    } finally {
      await manager.close();
    }
  });
});

describe("lifecycle", () => {
  test("close() stops every stdio server process", async () => {
    const manager = await startMcp({ servers: [stdioServer("one"), stdioServer("two")] }, { cwd });
    const pids = [Number((await call(manager, "mcp__one__pid")).content), Number((await call(manager, "mcp__two__pid")).content)];
    assert.ok(pids.every((pid) => processAlive(pid)));
    await manager.close();
    assert.deepEqual(pids.map((pid) => processAlive(pid)), [false, false]);
    assert.deepEqual(manager.status().map((s) => s.state), ["closed", "closed"]);
    const output = await call(manager, "mcp__one__echo", { text: "late" });
    assert.equal(output.isError, true);
    assert.match(output.content, /^MCP server one is not connected/);
    await manager.close();
  });

  test("the signal closes the manager", async () => {
    const controller = new AbortController();
    const manager = await startMcp({ servers: [stdioServer("signalled")] }, { cwd, signal: controller.signal });
    const pid = Number((await call(manager, "mcp__signalled__pid")).content);
    controller.abort();
    await waitFor(() => manager.status()[0].state === "closed" && !processAlive(pid), "the server to stop");
  });

  test("server names are sanitised in tool names; many tools are all listed", async () => {
    const manager = await startMcp({ servers: [stdioServer("my.server v2", { extraTools: 100 })] }, { cwd });
    try {
      assert.ok(manager.tools.every((t) => t.name.startsWith("mcp__my_server_v2__")));
      assert.equal(manager.tools.filter((t) => /__dummy_\d+$/.test(t.name)).length, 100);
      assert.equal((await call(manager, "mcp__my_server_v2__dummy_77")).content, "dummy 77");
    } finally {
      await manager.close();
    }
  });
});
