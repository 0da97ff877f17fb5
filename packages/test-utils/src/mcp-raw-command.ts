import fs from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** What the raw MCP test server answers. */
export type McpRawServerScript = {
  /** Sent as they are in the answer to tools/list; with `toolsPaged`, one tool to a page. */
  tools: unknown[];
  toolsPaged?: boolean;
  /** When set, the server has resources: each resources/list page holds these, and says there is
   * another page after it (a server that pages without end). */
  resources?: unknown[];
  /** The result of a tools/call by tool name: sent as it is; "hang" sends none; `textBytes`
   * sends one text item of that many characters; `progressCount` and `progressEveryMs` answer
   * after that many steps, that far apart, each reported with notifications/progress when the
   * call has a progressToken; `progressReports` are sent as the params of notifications/progress,
   * each with the call's progressToken unless it has its own, before the answer (sent
   * `answerAfterMs` later, when set); `changeTools` becomes the tool list, and the server says so with
   * notifications/tools/list_changed (and answers the call once the tools are listed anew, or after a second). Default: a text naming the tool. */
  results?: Record<string, Record<string, unknown> | "hang">;
  /** Every message received is appended here, one line each. */
  log?: string;
};

/** Writes the script to `file` and says how to start the raw MCP test server with it (the shape
 * of a `.mcp.json` stdio entry). */
export async function mcpRawServerCommand(file: string, script: McpRawServerScript): Promise<{ command: string; args: string[] }> {
  await fs.writeFile(file, JSON.stringify(script));
  return { command: process.execPath, args: [fileURLToPath(new URL("./mcp-raw-server.ts", import.meta.url)), file] };
}
