// The MCP test server over HTTP on 127.0.0.1: Streamable HTTP at /mcp (stateful sessions) and the
// older HTTP+SSE transport at /sse (stream) + /messages (posts).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FakeOAuthServer } from "./fake-oauth.ts";
import { createMcpTestServer, type McpTestServerOptions, type McpTestServerState } from "./mcp-test-tools.ts";

export type McpTestHttpOptions = McpTestServerOptions & {
  /** Requests to /mcp, /sse and /messages need a bearer token this authorization server issued
   * (for /messages, the token of the /sse resource, as each post is checked like the stream):
   * without one they get 401 with a WWW-Authenticate challenge naming the protected resource
   * metadata (RFC 9728), served at /.well-known/oauth-protected-resource/mcp (and …/sse). */
  oauth?: FakeOAuthServer;
};

export type McpTestHttpServer = {
  /** Streamable HTTP endpoint, for `{ type: "http", url }`. */
  url: string;
  /** HTTP+SSE endpoint, for `{ type: "sse", url }`. */
  sseUrl: string;
  /** Headers of every request received, oldest first (to check configured headers arrive). */
  requestHeaders: IncomingMessage["headers"][];
  state: McpTestServerState;
  close(): Promise<void>;
};

type Closable = { close(): Promise<void> };

export async function startMcpTestHttpServer(options: McpTestHttpOptions = {}): Promise<McpTestHttpServer> {
  const state: McpTestServerState = { cancelledSlowCalls: 0 };
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const open = new Set<Closable>();
  const requestHeaders: IncomingMessage["headers"][] = [];
  let base = "";

  const handleStreamable = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? streamable.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (sessionId !== undefined) return sendText(res, 404, "unknown MCP session");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void streamable.set(id, transport),
    });
    const server = createMcpTestServer(options, state);
    transport.onclose = () => {
      if (transport.sessionId) streamable.delete(transport.sessionId);
      open.delete(server);
    };
    open.add(server);
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const handleSse = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> => {
    if (req.method === "GET" && path === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      const server = createMcpTestServer(options, state);
      sse.set(transport.sessionId, transport);
      open.add(server);
      transport.onclose = () => {
        sse.delete(transport.sessionId);
        open.delete(server);
      };
      await server.connect(transport);
      return;
    }
    const transport = sse.get(query.get("sessionId") ?? "");
    if (!transport) return sendText(res, 404, "unknown SSE session");
    await transport.handlePostMessage(req, res);
  };

  const http = createServer((req, res) => {
    requestHeaders.push({ ...req.headers });
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const { oauth } = options;
    const protectedPath = /^\/\.well-known\/oauth-protected-resource(\/mcp|\/sse)$/.exec(url.pathname)?.[1];
    if (oauth && protectedPath) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ resource: `${base}${protectedPath}`, authorization_servers: [oauth.issuer], bearer_methods_supported: ["header"] }));
      return;
    }
    // The SSE transport's posts are the /sse resource's, as its stream is.
    const resource = url.pathname === "/messages" ? "/sse" : url.pathname;
    if (oauth && !oauth.accepts(req.headers.authorization, `${base}${resource}`)) {
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource${resource}"`, "content-type": "text/plain" }).end("sign-in required");
      return;
    }
    const work =
      url.pathname === "/mcp"
        ? handleStreamable(req, res)
        : url.pathname === "/sse" || url.pathname === "/messages"
          ? handleSse(req, res, url.pathname, url.searchParams)
          : Promise.resolve(sendText(res, 404, `no route for ${req.method} ${url.pathname}`));
    work.catch((error: unknown) => {
      if (!res.headersSent) sendText(res, 500, error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  return {
    url: `${base}/mcp`,
    sseUrl: `${base}/sse`,
    requestHeaders,
    state,
    async close() {
      await Promise.allSettled([...open].map((server) => server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(text);
}
