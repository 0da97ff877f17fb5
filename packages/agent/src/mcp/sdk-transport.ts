// The transport of an MCP server that lives in the program driving the run (the Agent SDK's
// in-process servers): each message goes to the program through a relay (for harness run, a
// `mcp_message` control request), and a request's answer comes back as the relay's answer.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How messages reach the program's servers. */
export type McpRelay = {
  /** Sends `message` to the program's server named `server`; resolves with the server's answer to
   * a request (what it resolves with for any other message is not read), rejects when the message
   * could not be delivered or the program failed to answer. */
  send(server: string, message: JSONRPCMessage): Promise<unknown>;
  /** Where the messages the server sends on its own (its notifications) are handed; returns what
   * stops it. */
  listen(server: string, deliver: (message: JSONRPCMessage) => void): () => void;
};

/** JSON-RPC's code for an error inside the server's side of the exchange. */
const INTERNAL_ERROR = -32603;

export function relayTransport(relay: McpRelay, server: string): Transport {
  let stop: (() => void) | undefined;
  let closed = false;
  const transport: Transport = {
    async start() {
      stop = relay.listen(server, (message) => transport.onmessage?.(message));
    },
    async send(message) {
      if (closed) throw new Error(`the connection to MCP server ${server} is closed`);
      const id = "method" in message && "id" in message ? message.id : undefined;
      // Not awaited: the client waits for the answer as a message of its own, as on any transport.
      relay.send(server, message).then(
        (answer) => {
          if (id === undefined || closed) return;
          if (isAnswer(answer)) transport.onmessage?.(answer);
          else transport.onmessage?.({ jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message: `the program's MCP server ${server} answered with no JSON-RPC message` } });
        },
        (error: unknown) => {
          if (closed) return;
          const text = error instanceof Error ? error.message : String(error);
          if (id !== undefined) transport.onmessage?.({ jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message: text } });
          else transport.onerror?.(new Error(text));
        },
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      stop?.();
      transport.onclose?.();
    },
  };
  return transport;
}

function isAnswer(value: unknown): value is JSONRPCMessage {
  return typeof value === "object" && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === "2.0" && ("result" in value || "error" in value);
}
