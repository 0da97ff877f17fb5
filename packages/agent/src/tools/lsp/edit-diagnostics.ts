// The language server's new errors and warnings after an edit: when Edit, MultiEdit, Write or
// NotebookEdit change a file that a running server handles, the server is sent the new text
// (didChange, didSave) and, for a moment, its diagnostics for the file are awaited; those that were
// not there before the edit are added to the tool's result, so the model sees what it broke.
import { pathToFileURL } from "node:url";
import { displayPath, resolvePath } from "../paths.ts";
import { toColumn } from "../../lsp/positions.ts";
import type { LspServers } from "../../lsp/servers.ts";
import type { LspDiagnostic } from "../../lsp/types.ts";
import type { Tool } from "../../types.ts";

export const EDIT_TOOLS: ReadonlySet<string> = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
/** The longest wait for the server's diagnostics after an edit. */
export const DIAGNOSTICS_WAIT_MS = 1_500;
const MAX_DIAGNOSTICS = 20;

/** `tool` (an edit tool) reporting the language server's new errors and warnings in its result. */
export function withLspDiagnostics(tool: Tool, servers: LspServers): Tool {
  return {
    ...tool,
    async execute(args, ctx) {
      const input = (args ?? {}) as { file_path?: unknown; notebook_path?: unknown };
      const file = typeof input.file_path === "string" ? input.file_path : typeof input.notebook_path === "string" ? input.notebook_path : undefined;
      const target = file === undefined ? undefined : resolvePath(ctx.cwd, file);
      const server = target === undefined ? undefined : servers.serverFor(target);
      if (!target || !server?.running) return tool.execute(args, ctx);
      const uri = pathToFileURL(target).href;
      const before = server.diagnostics(uri).items;
      const output = await tool.execute(args, ctx);
      if (output.isError || !server.running) return output;
      try {
        const published = server.diagnostics(uri).published;
        const document = await server.open(target, ctx.signal);
        server.saved(document.uri, document.text);
        if (document.sent) await server.diagnosticsAfter(uri, published, DIAGNOSTICS_WAIT_MS);
        const lines = document.text.split("\n");
        const fresh = newProblems(before, server.diagnostics(uri).items);
        if (fresh.length === 0) return output;
        const shown = displayPath(ctx.cwd, target);
        const rows = fresh.slice(0, MAX_DIAGNOSTICS).map((d) => describe(d, shown, lines[d.range.start.line]));
        if (fresh.length > MAX_DIAGNOSTICS) rows.push(`… and ${fresh.length - MAX_DIAGNOSTICS} more not shown.`);
        return { ...output, content: `${output.content}\n\n<new-diagnostics>\n${rows.join("\n")}\n</new-diagnostics>` };
      } catch {
        // The edit is done; a server that fails now says so at the next LSP call.
        return output;
      }
    },
  };
}

/** The errors and warnings of `after` that `before` did not have (counted by severity, message,
 * source and code: lines move with edits above them). */
function newProblems(before: readonly LspDiagnostic[], after: readonly LspDiagnostic[]): LspDiagnostic[] {
  const key = (d: LspDiagnostic) => JSON.stringify([d.severity ?? 1, d.message, d.source ?? "", d.code ?? ""]);
  const seen = new Map<string, number>();
  for (const d of before) seen.set(key(d), (seen.get(key(d)) ?? 0) + 1);
  return after.filter((d) => {
    if ((d.severity ?? 1) > 2) return false;
    const left = seen.get(key(d)) ?? 0;
    if (left === 0) return true;
    seen.set(key(d), left - 1);
    return false;
  });
}

function describe(d: LspDiagnostic, shown: string, line: string | undefined): string {
  const where = `${shown}:${d.range.start.line + 1}:${toColumn(line, d.range.start.character)}`;
  const code = d.code === undefined ? "" : ` ${d.code}`;
  return `${where} [${(d.severity ?? 1) === 1 ? "error" : "warning"}] ${d.message.replace(/\s*\n\s*/g, " ")}${d.source || code ? ` (${[d.source, code.trim()].filter(Boolean).join(" ")})` : ""}`;
}
