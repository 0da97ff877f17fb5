// An MCP server's tool as one of our Tools.
import { z } from "zod";
import type { Tool, ToolOutput } from "../types.ts";
import type { McpConnection, McpToolInfo } from "./connection.ts";
import { modelInputSchema } from "./input-schema.ts";
import { withRequestSignal } from "./request-signal.ts";
import { fitOutputImages } from "../tools/image/fit-image.ts";
import { limitsOf } from "../tools/state.ts";
import { convertToolResult } from "./tool-result.ts";
import { progressLines } from "./progress-lines.ts";

/** Longest tool description passed on; some servers ship whole manuals. */
export const MAX_MCP_DESCRIPTION_CHARS = 2_048;

/** Arguments are not validated here: the server validates them against its own schema and answers
 * with an error the model can act on. This only requires a JSON object. */
const anyArguments = z.record(z.string(), z.unknown());

/** A tools/call answer, any shape of its fields: convertToolResult reads them item by item. */
const anyCallResult = z.object({ content: z.unknown(), structuredContent: z.unknown(), isError: z.unknown(), toolResult: z.unknown() }).partial();

/** `toolName` is the exposed name (`mcp__<server>__<tool>`); calls go to `info.name` on the server
 * of `connection`, whatever state that connection is in by then. */
export function mcpTool(connection: McpConnection, info: McpToolInfo, toolName: string, limits: { callTimeoutMs: number; maxOutputChars: number }): Tool {
  const serverName = connection.config.name;
  const { callTimeoutMs, maxOutputChars } = limits;
  return {
    name: toolName,
    maxOutputChars,
    description: truncateDescription(info.description ?? ""),
    parameters: anyArguments,
    inputSchema: modelInputSchema(info.inputSchema),
    async execute(args, ctx): Promise<ToolOutput> {
      if (connection.state !== "connected") return { content: notConnectedMessage(connection), isError: true };
      const lines = progressLines();
      try {
        const result = await withRequestSignal(ctx.signal, (signal) =>
          connection.client.request({ method: "tools/call", params: { name: info.name, arguments: args as Record<string, unknown> } }, anyCallResult, {
            signal,
            timeout: callTimeoutMs,
            // The server reports progress only to a call that asks for it (the SDK gives the call a
            // progressToken when there is a handler, and drops reports for tokens it did not give).
            // Each report is a line of the call's live output, gathered and capped as Bash's is.
            onprogress: (params) => {
              const line = lines(params);
              if (line) ctx.progress?.(line);
            },
            // Each report restarts MCP_TOOL_TIMEOUT, so that a long call that keeps reporting is
            // not cut. There is deliberately no limit on the call's whole time (the SDK's
            // maxTotalTimeout): no setting asks for one, and the user can always cancel the run.
            resetTimeoutOnProgress: true,
          }),
        );
        return await fitOutputImages(convertToolResult(result), limitsOf(ctx.state).maxImageBytes, ctx.signal);
      } catch (error) {
        if (connection.state !== "connected") return { content: notConnectedMessage(connection), isError: true };
        const message = error instanceof Error ? error.message : String(error);
        return { content: `MCP tool ${info.name} of server ${serverName} failed: ${message}`, isError: true };
      }
    },
  };
}


/** An MCP tool's description as the model gets it. */
export function truncateDescription(text: string): string {
  return text.length <= MAX_MCP_DESCRIPTION_CHARS ? text : `${text.slice(0, MAX_MCP_DESCRIPTION_CHARS)}… [description truncated]`;
}

/** What a call to a server that is gone is answered: that it is not connected, and why. (Here, not
 * in connection.ts, which loads the MCP SDK: runs without MCP servers never load it.) */
export function notConnectedMessage(connection: McpConnection): string {
  return `MCP server ${connection.config.name} is not connected${connection.error ? ` (${connection.error.split("\n")[0]})` : ""}`;
}
