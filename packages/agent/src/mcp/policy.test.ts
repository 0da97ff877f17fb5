// allowedMcpServers and deniedMcpServers name remote servers by URL pattern, read as
// allowedHttpHookUrls reads them: `*` matches any run of characters, slashes included.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { McpRemoteServerConfig } from "./config.ts";
import { mcpPolicyBlocks } from "./policy.ts";

const server = (url: string): McpRemoteServerConfig => ({ name: "remote", scope: "user", file: "/home/u/.claude.json", type: "http", url, headers: {} });

test("a serverUrl pattern's `*` spans paths and ports; `?` and `[` stand for themselves", () => {
  const policy = { denied: [{ serverUrl: "https://evil.example.com/*" }], allowed: [{ serverUrl: "https://mcp.example.com/*" }, { serverUrl: "http://[::1]:*" }, { serverUrl: "https://q.example.com/mcp?team=*" }] };
  assert.equal(mcpPolicyBlocks(server("https://mcp.example.com/v1/tenant/sse"), policy), undefined);
  assert.equal(mcpPolicyBlocks(server("http://[::1]:8931/mcp"), policy), undefined);
  assert.equal(mcpPolicyBlocks(server("https://q.example.com/mcp?team=core"), policy), undefined);
  assert.equal(mcpPolicyBlocks(server("https://q.example.com/mcpXteam=core"), policy), "allowedMcpServers does not list its URL");
  assert.equal(mcpPolicyBlocks(server("https://mcp.example.com.evil.net/sse"), policy), "allowedMcpServers does not list its URL");
  assert.equal(mcpPolicyBlocks(server("https://evil.example.com/a/b"), policy), "it is listed in deniedMcpServers");
});
