// Entry point of the MCP test server: `node mcp-test-server.ts [--tools N] [--http] [--resources]
// [--prompts]`.
// Without --http it speaks MCP over stdin/stdout and exits when stdin closes. With --http it serves
// Streamable HTTP (and HTTP+SSE) on 127.0.0.1, prints one line `MCP test server listening at <url>`
// and runs until SIGTERM or SIGINT.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { startMcpTestHttpServer } from "./mcp-test-http.ts";
import { createMcpTestServer } from "./mcp-test-tools.ts";
import { parseMcpTestServerArgs } from "./mcp-test-command.ts";

const parsed = parseMcpTestServerArgs(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`mcp-test-server: ${parsed.error}\n`);
  process.exit(2);
}
const { http, ...options } = parsed.value;

if (http) {
  const server = await startMcpTestHttpServer(options);
  process.stdout.write(`MCP test server listening at ${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
} else {
  const server = createMcpTestServer(options, { cancelledSlowCalls: 0 });
  await server.connect(new StdioServerTransport());
  process.stdin.once("end", () => process.exit(0));
}
