// A remote MCP server's requests go out as the model's do: through the run's proxy, with the CA of
// its NODE_EXTRA_CA_CERTS and the client certificate of its CLAUDE_CODE_CLIENT_CERT / _KEY.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startHttpProxy, startMcpTestHttpServer, startTlsFront, TEST_CA_FILE, TEST_CLIENT_CERT_FILE, TEST_CLIENT_KEY_FILE } from "@harness/test-utils";
import { remoteTransport } from "./remote-transport.ts";

test("http and sse servers behind a gateway that demands mutual TLS are reached through HTTPS_PROXY with the run's CA and client certificate", async (t) => {
  const server = await startMcpTestHttpServer();
  const gateway = await startTlsFront(new URL(server.url).origin, { requireClientCert: true });
  const proxy = await startHttpProxy();
  t.after(async () => {
    await gateway.close();
    await proxy.close();
    await server.close();
  });
  const env = { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE };
  for (const type of ["http", "sse"] as const) {
    const url = `https://model.test:${gateway.port}${new URL(type === "http" ? server.url : server.sseUrl).pathname}`;
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(remoteTransport({ name: type, scope: "project", file: ".mcp.json", type, url, headers: {} }, env));
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: `over ${type}` } });
      assert.deepEqual(result.content, [{ type: "text", text: `over ${type}` }]);
    } finally {
      await client.close();
    }
  }
  assert.ok(proxy.seen.length >= 2, "both went through the proxy");
  for (const seen of proxy.seen) assert.deepEqual(seen, { method: "CONNECT", target: `model.test:${gateway.port}` });
});
