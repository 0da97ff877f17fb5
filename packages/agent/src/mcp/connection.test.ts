// A server whose command spawn refuses outright fails at once, with the reason, instead of waiting
// for a process that never started (which also let a headless run exit mid-await).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseServerEntry } from "./config.ts";
import { connectServer } from "./connection.ts";

const connectOptions = () => ({ cwd: process.cwd(), env: process.env, timeoutMs: 10_000, signal: new AbortController().signal, onLost: () => {} });

test("a command spawn refuses, or one not found, fails the connection at once, and nothing is waited for", async () => {
  const cases: [string, string[], RegExp][] = [
    ["node", ["a\0b"], /null bytes/],
    ["no-such-mcp-server-command", [], /^command not found: no-such-mcp-server-command$/],
  ];
  for (const [command, args, error] of cases) {
    const started = performance.now();
    const connection = await connectServer({ name: "bad", scope: "project", file: ".mcp.json", type: "stdio", command, args, env: {} }, connectOptions());
    assert.equal(connection.state, "failed");
    assert.match(connection.error ?? "", error);
    const closed = await Promise.race([connection.transportClosed.then(() => true), new Promise((resolve) => setTimeout(resolve, 1_000, false))]);
    assert.ok(closed, `${command}: the transport says it is closed`);
    assert.ok(performance.now() - started < 1_500, `${command} took ${Math.round(performance.now() - started)} ms`);
  }
});

test("entries holding a NUL, or an environment name with '=', are refused with their key", () => {
  const where = { scope: "project" as const, file: ".mcp.json", keyPrefix: "mcpServers.s" };
  const cases: [unknown, string, RegExp][] = [
    [{ command: "a\0b" }, "mcpServers.s.command", /"command" holds a NUL character/],
    [{ command: "node", args: ["ok", "x\0"] }, "mcpServers.s.args[1]", /"args\[1\]" holds a NUL/],
    [{ command: "node", env: { A: "1\0" } }, "mcpServers.s.env.A", /"env\.A" holds a NUL/],
    [{ command: "node", env: { "A=B": "1" } }, "mcpServers.s.env", /must not be empty or hold "="/],
  ];
  for (const [raw, key, message] of cases) {
    const parsed = parseServerEntry("s", raw, where, {});
    assert.equal(parsed.ok, false, JSON.stringify(raw));
    if (parsed.ok) continue;
    assert.equal(parsed.diagnostic.key, key);
    assert.match(parsed.diagnostic.message, message);
  }
});
