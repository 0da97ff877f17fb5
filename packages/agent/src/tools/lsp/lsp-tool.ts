// The LSP tool, as Claude Code offers it when plugins declare language servers: code intelligence
// (definitions, references, hover, symbols, implementations, call hierarchy) from the server that
// handles the file's extension. It reads files, and is held to the permission rules as Read is.
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import { formatCallItems, formatCalls, formatDocumentSymbols, formatHover, formatLocations, formatSymbolList, LineSource } from "../../lsp/format.ts";
import { toLspPosition } from "../../lsp/positions.ts";
import type { LspServers } from "../../lsp/servers.ts";
import type { LspCallHierarchyItem, LspIncomingCall, LspOutgoingCall } from "../../lsp/types.ts";
import type { ToolOutput } from "../../types.ts";
import { displayPath, errorCode, errorText, resolvePath } from "../paths.ts";

export const LSP_TOOL_NAME = "LSP";

const OPERATIONS = ["goToDefinition", "findReferences", "hover", "documentSymbol", "workspaceSymbol", "goToImplementation", "prepareCallHierarchy", "incomingCalls", "outgoingCalls"] as const;
type Operation = (typeof OPERATIONS)[number];
/** The operations that ask about the symbol at a position. */
const AT_POSITION: ReadonlySet<Operation> = new Set(["goToDefinition", "findReferences", "hover", "goToImplementation", "prepareCallHierarchy", "incomingCalls", "outgoingCalls"]);

const parameters = z.strictObject({
  operation: z.enum(OPERATIONS).describe("What to ask the language server"),
  filePath: z.string().min(1).describe("The file, absolute or relative to the working directory"),
  line: z.number().int().min(1).optional().describe("The line of the symbol, counting from 1 as editors show it (all but documentSymbol and workspaceSymbol)"),
  character: z.number().int().min(1).optional().describe("The column of the symbol on that line, counting from 1 as editors show it"),
  query: z.string().optional().describe("For workspaceSymbol: the text of the symbol names to find"),
});

function description(extensions: readonly string[]): string {
  return `Asks a language server about code: where a symbol is defined or implemented, where it is used, its type and documentation, the symbols of a file or the project, and who calls a function and what it calls.

Operations:
- goToDefinition, goToImplementation, findReferences, hover: about the symbol at filePath, line, character.
- documentSymbol: the outline of filePath (line and character are not needed).
- workspaceSymbol: the project's symbols whose names match query (filePath chooses the language server).
- prepareCallHierarchy: the function or method at the position; incomingCalls: its callers; outgoingCalls: what it calls.

line and character count from 1, as editors and Read's line numbers show them. Locations come back as path:line:column with the line's text.
Language servers handle these file extensions: ${extensions.join(", ")}. A server starts at its first call, which may take a moment.`;
}

export function lspTool(servers: LspServers): ReturnType<typeof defineTool> {
  return defineTool({
    name: LSP_TOOL_NAME,
    readOnly: true,
    description: description(servers.extensions()),
    parameters,
    async execute(args, { cwd, signal, denied }): Promise<ToolOutput> {
      const target = resolvePath(cwd, args.filePath);
      const shown = displayPath(cwd, target);
      const server = servers.serverFor(target);
      if (!server) {
        const extension = path.extname(target);
        return { content: `No language server handles ${extension ? `${extension} files` : "files without an extension"} (${shown}). Language servers are configured for: ${servers.extensions().join(", ")}.`, isError: true };
      }
      if (AT_POSITION.has(args.operation) && (args.line === undefined || args.character === undefined)) {
        return { content: `${args.operation} needs line and character: the position of the symbol in ${shown}, each counting from 1.`, isError: true };
      }
      try {
        const stat = await fs.stat(target);
        if (stat.isDirectory()) return { content: `${shown} is a directory; give a file.`, isError: true };
      } catch (error) {
        if (errorCode(error) === "ENOENT") return { content: `File does not exist: ${shown} (working directory: ${cwd}).`, isError: true };
        return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
      }
      try {
        const document = await server.open(target, signal);
        // Results may point into any file: lines are quoted only from those Read may open.
        const lines = new LineSource(cwd, document, denied && ((file) => denied("Read", file)));
        const textDocument = { uri: document.uri };
        if (args.operation === "documentSymbol") return { content: formatDocumentSymbols(await server.request("textDocument/documentSymbol", { textDocument }, signal), lines) };
        if (args.operation === "workspaceSymbol") return { content: formatSymbolList(await server.request("workspace/symbol", { query: args.query ?? "" }, signal), lines) };
        const position = toLspPosition(document.text, args.line!, args.character!);
        if (typeof position === "string") return { content: `${shown}: ${position}.`, isError: true };
        const at = { textDocument, position };
        switch (args.operation) {
          case "goToDefinition":
            return { content: formatLocations(await server.request("textDocument/definition", at, signal), lines, "definition") };
          case "goToImplementation":
            return { content: formatLocations(await server.request("textDocument/implementation", at, signal), lines, "implementation") };
          case "findReferences":
            return { content: formatLocations(await server.request("textDocument/references", { ...at, context: { includeDeclaration: true } }, signal), lines, "reference") };
          case "hover":
            return { content: formatHover(await server.request("textDocument/hover", at, signal)) };
        }
        const items = (await server.request("textDocument/prepareCallHierarchy", at, signal)) as LspCallHierarchyItem[] | null;
        if (args.operation === "prepareCallHierarchy" || !items || items.length === 0) return { content: formatCallItems(items, lines) };
        const direction = args.operation === "incomingCalls" ? "incoming" : "outgoing";
        const parts: string[] = [];
        for (const item of items) {
          const calls = ((await server.request(`callHierarchy/${direction}Calls`, { item }, signal)) ?? []) as (LspIncomingCall | LspOutgoingCall)[];
          parts.push(formatCalls(calls, item, lines, direction));
        }
        return { content: parts.join("\n\n") };
      } catch (error) {
        return { content: errorText(error), isError: true };
      }
    },
  });
}
