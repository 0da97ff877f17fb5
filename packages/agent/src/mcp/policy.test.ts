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

test("a serverUrl allowlist entry lets through no URL that names another host behind a user part or a backslash, and credentials in front of its host; a denylist entry stops every spelling of its host", () => {
  const allowOnly = { denied: [], allowed: [{ serverUrl: "http://localhost:*" }, { serverUrl: "https://*.example.com/*" }] };
  assert.equal(mcpPolicyBlocks(server("http://localhost:8931/mcp"), allowOnly), undefined);
  assert.equal(mcpPolicyBlocks(server("https://a.example.com/mcp"), allowOnly), undefined);
  assert.equal(mcpPolicyBlocks(server("https://user:pw@a.example.com/mcp"), allowOnly), undefined, "credentials leave the host it is");
  for (const url of ["http://localhost:x@evil.net/mcp", "http://localhost:80\\@evil.net/mcp", "https://a.example.com@evil.net/mcp", "https://evil.net/a.example.com/mcp"]) {
    assert.equal(mcpPolicyBlocks(server(url), allowOnly), "allowedMcpServers does not list its URL", url);
  }
  const denyOnly = { denied: [{ serverUrl: "https://*.evil.net/*" }, { serverUrl: "http://localhost:*" }] };
  for (const url of ["https://a.evil.net/mcp", "https://user:pw@a.evil.net/mcp", "https://A.EVIL.NET/mcp", "http://localhost:80\\@a.example.com/mcp"]) {
    assert.equal(mcpPolicyBlocks(server(url), denyOnly), "it is listed in deniedMcpServers", url);
  }
  assert.equal(mcpPolicyBlocks(server("https://a.example.com/evil.net/mcp"), denyOnly), undefined);
});
