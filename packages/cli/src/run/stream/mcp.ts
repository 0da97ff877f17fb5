// The Agent SDK's in-process MCP servers (createSdkMcpServer): the initialize request names them
// (`sdkMcpServers`), and their JSON-RPC goes over the control protocol as `mcp_message` requests,
// {server_name, message}, answered with {mcp_response}. Messages a server sends on its own (a
// notification that its tools changed) come the other way, as `mcp_message` requests from the SDK.
import type { McpRelay } from "@harness/agent";
import type { Ask } from "./hooks.ts";

type Message = Parameters<Parameters<McpRelay["listen"]>[1]>[0];

export function sdkMcpRelay(ask: Ask) {
  const listeners = new Map<string, (message: Message) => void>();
  const relay: McpRelay = {
    async send(server, message) {
      const answer = await ask({ subtype: "mcp_message", server_name: server, message });
      return answer.mcp_response;
    },
    listen(server, deliver) {
      listeners.set(server, deliver);
      return () => {
        if (listeners.get(server) === deliver) listeners.delete(server);
      };
    },
  };
  return {
    relay,
    /** An `mcp_message` request from the SDK: its message is handed to the server's connection. */
    receive(request: Record<string, unknown>): Record<string, unknown> {
      const { server_name: server, message } = request;
      if (typeof server !== "string" || server === "") throw new Error("mcp_message: server_name must name one of the program's MCP servers");
      if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") throw new Error("mcp_message: message must be a JSON-RPC 2.0 message");
      const deliver = listeners.get(server);
      if (!deliver) throw new Error(`mcp_message: no MCP server named ${JSON.stringify(server)} is connected`);
      deliver(message as Message);
      return {};
    },
  };
}

/** The initialize request's `sdkMcpServers`: the names of the program's servers. */
export function sdkServerNames(given: unknown): string[] {
  if (!Array.isArray(given) || !given.every((name) => typeof name === "string" && name.trim() !== "")) {
    throw new Error("initialize: sdkMcpServers must be a list of server names");
  }
  return [...new Set(given as string[])];
}
