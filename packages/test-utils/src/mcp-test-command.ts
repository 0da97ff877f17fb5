import { fileURLToPath } from "node:url";

export type McpTestServerArgs = { extraTools: number; http: boolean; resources: boolean; prompts: boolean };

/** How to start the MCP test server as a stdio MCP server (the shape of a `.mcp.json` stdio entry). */
export function mcpTestServerCommand(options: { extraTools?: number; http?: boolean; resources?: boolean; prompts?: boolean } = {}): { command: string; args: string[] } {
  const args = [fileURLToPath(new URL("./mcp-test-server.ts", import.meta.url))];
  if (options.extraTools) args.push("--tools", String(options.extraTools));
  if (options.http) args.push("--http");
  if (options.resources) args.push("--resources");
  if (options.prompts) args.push("--prompts");
  return { command: process.execPath, args };
}

export function parseMcpTestServerArgs(argv: readonly string[]): { ok: true; value: McpTestServerArgs } | { ok: false; error: string } {
  const value: McpTestServerArgs = { extraTools: 0, http: false, resources: false, prompts: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--http") value.http = true;
    else if (arg === "--resources") value.resources = true;
    else if (arg === "--prompts") value.prompts = true;
    else if (arg === "--tools") {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) return { ok: false, error: `--tools needs a whole number >= 0, got ${JSON.stringify(argv[i] ?? "")}` };
      value.extraTools = n;
    } else return { ok: false, error: `unknown argument ${JSON.stringify(arg)} (expected --tools N, --http, --resources or --prompts)` };
  }
  return { ok: true, value };
}
