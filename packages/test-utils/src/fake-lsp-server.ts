// A language server for tests, run as a node script speaking real LSP over stdio. It answers
// definition, references, hover, documentSymbol, workspace/symbol, implementation and the call
// hierarchy from the index of fake-lsp-index.ts over the project's files (open documents as the
// client sent them), and publishes diagnostics for `@error` / `@warning` lines on didOpen and
// didChange. Flags (see fake-lsp-command.ts): --log FILE appends one JSON line per message it
// gets (and the answers to its own requests); --crash-on METHOD exits with code 3 on that request
// after a line on stderr; --fail-start exits with code 2 before answering initialize, --hang-start
// never answers it; --ext .a,.b
// are the extensions it indexes (default .ts,.js).
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { callsIn, declarationsOf, markerDiagnostics, occurrences, wordAt, type Decl, type Pos } from "./fake-lsp-index.ts";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : (argv[i + 1] ?? "");
};
const logFile = flag("--log");
const crashOn = flag("--crash-on");
const extensions = (flag("--ext") ?? ".ts,.js").split(",");
const log = (entry: Record<string, unknown>) => logFile && appendFileSync(logFile, `${JSON.stringify(entry)}\n`);

let root = process.cwd();
const open = new Map<string, string>();
let nextId = 1;
const waiting = new Map<number, string>();

function send(message: Record<string, unknown>): void {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
}

function files(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (extensions.includes(path.extname(entry.name))) out.set(pathToFileURL(full).href, readFileSync(full, "utf8"));
    }
  };
  walk(root);
  for (const [uri, text] of open) out.set(uri, text);
  return out;
}

const allDecls = (all: Map<string, string>) => [...all].flatMap(([uri, text]) => declarationsOf(uri, text).flatMap((d) => [d, ...d.children]));
const location = (d: { uri: string; selectionRange: Decl["range"] }) => ({ uri: d.uri, range: d.selectionRange });
const item = (d: Decl) => ({ name: d.name, kind: d.kind, detail: d.text, uri: d.uri, range: d.range, selectionRange: d.selectionRange });
const inside = (d: Decl, line: number) => d.range.start.line <= line && line <= d.range.end.line;

function at(params: { textDocument: { uri: string }; position: Pos }, all: Map<string, string>): { word?: string; decls: Decl[] } {
  const word = wordAt(all.get(params.textDocument.uri) ?? "", params.position);
  return { ...(word && { word }), decls: word ? allDecls(all).filter((d) => d.name === word) : [] };
}

function answer(method: string, params: any): unknown {
  const all = files();
  switch (method) {
    case "textDocument/definition":
      return at(params, all).decls.map(location);
    case "textDocument/implementation": {
      const { word } = at(params, all);
      return allDecls(all).filter((d) => d.implements === word).map(location);
    }
    case "textDocument/references": {
      const { word } = at(params, all);
      if (!word) return [];
      return [...all].flatMap(([uri, text]) => occurrences(text, word).map((range) => ({ uri, range })));
    }
    case "textDocument/hover": {
      const [decl] = at(params, all).decls;
      if (!decl) return null;
      return { contents: { kind: "markdown", value: `\`\`\`ts\n${decl.text}\n\`\`\`${decl.doc ? `\n${decl.doc}` : ""}` } };
    }
    case "textDocument/documentSymbol":
      return declarationsOf(params.textDocument.uri, all.get(params.textDocument.uri) ?? "").map(function symbol(d: Decl): unknown {
        return { name: d.name, detail: d.text, kind: d.kind, range: d.range, selectionRange: d.selectionRange, children: d.children.map(symbol) };
      });
    case "workspace/symbol": {
      const query = String(params.query ?? "").toLowerCase();
      return allDecls(all)
        .filter((d) => d.name.toLowerCase().includes(query))
        .map((d) => ({ name: d.name, kind: d.kind, location: location(d) }));
    }
    case "textDocument/prepareCallHierarchy": {
      const decls = at(params, all).decls;
      return decls.length === 0 ? null : decls.map(item);
    }
    case "callHierarchy/incomingCalls": {
      const target = params.item.name as string;
      const calls = new Map<Decl, Decl["range"][]>();
      for (const [uri, text] of all) {
        const decls = declarationsOf(uri, text).flatMap((d) => [d, ...d.children]);
        for (const call of callsIn(text, 0, Number.MAX_SAFE_INTEGER)) {
          if (call.name !== target) continue;
          const from = decls.filter((d) => inside(d, call.range.start.line)).at(-1);
          if (from) calls.set(from, [...(calls.get(from) ?? []), call.range]);
        }
      }
      return [...calls].map(([from, fromRanges]) => ({ from: item(from), fromRanges }));
    }
    case "callHierarchy/outgoingCalls": {
      const { uri, range } = params.item;
      const decls = allDecls(all);
      const calls = new Map<Decl, Decl["range"][]>();
      for (const call of callsIn(all.get(uri) ?? "", range.start.line, range.end.line)) {
        const to = decls.find((d) => d.name === call.name);
        if (to) calls.set(to, [...(calls.get(to) ?? []), call.range]);
      }
      return [...calls].map(([to, fromRanges]) => ({ to: item(to), fromRanges }));
    }
    default:
      return undefined;
  }
}

function publish(uri: string, version?: number): void {
  send({ method: "textDocument/publishDiagnostics", params: { uri, ...(version !== undefined && { version }), diagnostics: markerDiagnostics(open.get(uri) ?? "") } });
}

function request(method: string, params: unknown): void {
  const id = nextId++;
  waiting.set(id, method);
  send({ id, method, params });
}

function receive(message: any): void {
  if (message.method === undefined) {
    log({ answer: waiting.get(message.id), result: message.result, error: message.error });
    waiting.delete(message.id);
    return;
  }
  const { id, method, params } = message;
  log({ method, ...(method === "initialize" && { rootUri: params.rootUri, workspaceFolders: params.workspaceFolders, initializationOptions: params.initializationOptions }), ...(method === "workspace/didChangeConfiguration" && { settings: params.settings }), ...(typeof params?.textDocument?.uri === "string" && { uri: params.textDocument.uri, version: params.textDocument.version }) });
  if (method === crashOn) {
    process.stderr.write(`fake-lsp: crashing on ${method} as asked\n`);
    process.exit(3);
  }
  switch (method) {
    case "initialize":
      if (argv.includes("--hang-start")) return;
      if (argv.includes("--fail-start")) {
        process.stderr.write("fake-lsp: cannot find the project's configuration\n");
        process.exit(2);
      }
      root = fileURLToPath(params.rootUri);
      return send({ id, result: { capabilities: { textDocumentSync: 1, definitionProvider: true, referencesProvider: true, hoverProvider: true, documentSymbolProvider: true, workspaceSymbolProvider: true, implementationProvider: true, callHierarchyProvider: true }, serverInfo: { name: "fake-lsp" } } });
    case "initialized":
      request("window/workDoneProgress/create", { token: "indexing" });
      request("client/registerCapability", { registrations: [] });
      request("workspace/configuration", { items: [{ section: "fake" }, { section: "other" }] });
      return;
    case "textDocument/didOpen":
      open.set(params.textDocument.uri, params.textDocument.text);
      return publish(params.textDocument.uri, params.textDocument.version);
    case "textDocument/didChange":
      open.set(params.textDocument.uri, params.contentChanges.at(-1).text);
      return publish(params.textDocument.uri, params.textDocument.version);
    case "textDocument/didClose":
      open.delete(params.textDocument.uri);
      return;
    case "shutdown":
      return send({ id, result: null });
    case "exit":
      process.exit(0);
  }
  if (id === undefined) return;
  const result = answer(method, params);
  if (result === undefined) send({ id, error: { code: -32601, message: `unhandled method ${method}` } });
  else send({ id, result });
}

let buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk: Buffer) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end === -1) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString("utf8");
    buffer = buffer.subarray(end + 4 + length);
    receive(JSON.parse(body));
  }
});
process.stdin.on("end", () => process.exit(0));
