// The program's own MCP servers, reached through a relay: the handshake and calls go through it,
// what the server says on its own comes back through it, and a relay that fails fails the server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { connectServer, closeConnection } from "./connection.ts";
import type { McpRelay } from "./sdk-transport.ts";

const config = { name: "calc", scope: "flag" as const, file: "the program", type: "sdk" as const };
const options = (relay?: McpRelay) => ({ cwd: process.cwd(), env: process.env, timeoutMs: 5_000, signal: new AbortController().signal, onLost: () => {}, ...(relay && { relay }) });

/** A relay to an in-memory server, answering each request as the Agent SDK does: with the reply. */
async function serverRelay(server: McpServer): Promise<McpRelay & { sent: JSONRPCMessage[] }> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<unknown, (message: JSONRPCMessage) => void>();
  let listener: ((message: JSONRPCMessage) => void) | undefined;
  ours.onmessage = (message) => {
    const id = "id" in message ? message.id : undefined;
    const answer = waiting.get(id);
    if (answer && !("method" in message)) answer(message);
    else listener?.(message);
  };
  await server.connect(theirs);
  await ours.start();
  const sent: JSONRPCMessage[] = [];
  return {
    sent,
    send(_, message) {
      sent.push(message);
      if (!("method" in message) || !("id" in message)) return ours.send(message).then(() => ({ jsonrpc: "2.0", result: {}, id: 0 }));
      return new Promise((resolve) => {
        waiting.set(message.id, resolve);
        void ours.send(message);
      });
    },
    listen(_, deliver) {
      listener = deliver;
      return () => (listener = undefined);
    },
  };
}

test("a server of the program connects through the relay; its tools are listed and called, and a change of tools it says comes back", async () => {
  const server = new McpServer({ name: "calc", version: "1.0.0" });
  server.registerTool("add", { description: "Adds", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  const relay = await serverRelay(server);
  let changed = 0;
  const connection = await connectServer(config, { ...options(relay), onToolsChanged: () => changed++ });
  assert.equal(connection.state, "connected", connection.error);
  assert.deepEqual(connection.tools.map((tool) => tool.name), ["add"]);
  const result = await connection.client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  assert.deepEqual(result.content, [{ type: "text", text: "5" }]);
  server.registerTool("sub", { description: "Subtracts" }, async () => ({ content: [] }));
  for (let i = 0; i < 50 && changed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(changed, 1);
  assert.deepEqual(connection.tools.map((tool) => tool.name), ["add", "sub"]);
  await closeConnection(connection);
});

test("a server of the program fails with why: the relay refuses, or there is none", async () => {
  const refusing: McpRelay = { send: async () => Promise.reject(new Error("no such server: calc")), listen: () => () => {} };
  const failed = await connectServer(config, options(refusing));
  assert.equal(failed.state, "failed");
  assert.match(failed.error ?? "", /no such server: calc/);
  const alone = await connectServer(config, options());
  assert.equal(alone.state, "failed");
  assert.match(alone.error ?? "", /served by the program driving the run/);
});
