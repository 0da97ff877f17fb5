import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpTestServerCommand, parseMcpTestServerArgs } from "./mcp-test-command.ts";

test("--http serves Streamable HTTP, prints its URL, and stops on SIGTERM", async () => {
  const { command, args } = mcpTestServerCommand({ extraTools: 3, http: true });
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  try {
    const lines = createInterface({ input: child.stdout });
    const [line] = (await once(lines, "line")) as [string];
    const url = /^MCP test server listening at (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line)?.[1];
    assert.ok(url, line);

    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["add", "dummy_1", "dummy_2", "dummy_3", "echo", "fail", "image", "permission_prompt", "pid", "progress", "slow", "stats"]);
    const result = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    assert.deepEqual(result.content, [{ type: "text", text: "3" }]);
    await client.close();
  } finally {
    child.kill("SIGTERM");
    const [code] = await exited;
    assert.equal(code, 0);
  }
});

test("bad arguments are refused with a message", () => {
  assert.deepEqual(parseMcpTestServerArgs(["--tools", "3", "--http"]), { ok: true, value: { extraTools: 3, http: true, resources: false, prompts: false } });
  assert.deepEqual(parseMcpTestServerArgs(["--resources", "--prompts"]), { ok: true, value: { extraTools: 0, http: false, resources: true, prompts: true } });
  assert.deepEqual(parseMcpTestServerArgs(["--tools", "many"]), { ok: false, error: '--tools needs a whole number >= 0, got "many"' });
  assert.deepEqual(parseMcpTestServerArgs(["--verbose"]), { ok: false, error: 'unknown argument "--verbose" (expected --tools N, --http, --resources or --prompts)' });
});
