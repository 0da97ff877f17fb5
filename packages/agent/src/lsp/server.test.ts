import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { pathToFileURL } from "node:url";
import { fakeLspServerCommand, waitFor, type FakeLspOptions } from "@harness/test-utils";
import { tempWorkspace } from "../testing/fixtures.ts";
import type { LspServerConfig } from "./config.ts";
import { LspServer } from "./server.ts";

async function fakeServer(t: TestContext, options: FakeLspOptions = {}, config: Partial<LspServerConfig> = {}) {
  const root = await tempWorkspace(t);
  const log = path.join(root, ".lsp-log.jsonl");
  const { command, args } = fakeLspServerCommand({ log, ...options });
  const server = new LspServer(
    { name: "plugin:kit:fake", command, args, env: {}, extensionToLanguage: { ".ts": "typescript" }, startupTimeoutMs: 10_000, restartOnCrash: true, maxRestarts: 3, file: "x", key: "fake", ...config },
    { root, env: process.env },
  );
  t.after(() => server.stop());
  const logged = async () => (await fs.readFile(log, "utf8").catch(() => "")).trimEnd().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { root, server, logged };
}

test("a server starts at its first file: initialize with the project's root, its requests answered, its settings sent; a file changed on disk is sent again; stop shuts it down", async (t) => {
  const { root, server, logged } = await fakeServer(t, {}, { settings: { fake: { strict: true } }, initializationOptions: { index: "all" } });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "function greet(name) {\n  return name;\n}\ngreet('x');\n");
  assert.equal(server.running, false, "nothing starts before a file needs it");

  const { uri } = await server.open(file);
  const definition = await server.request("textDocument/definition", { textDocument: { uri }, position: { line: 3, character: 1 } });
  assert.deepEqual(definition, [{ uri, range: { start: { line: 0, character: 9 }, end: { line: 0, character: 14 } } }]);
  const answers = await waitFor(async () => {
    const entries = await logged();
    return entries.filter((e) => e.answer).length === 3 ? entries : undefined;
  }, "the answers to the server's requests");
  const rootUri = pathToFileURL(root).href;
  assert.deepEqual(answers[0], { method: "initialize", rootUri, workspaceFolders: [{ uri: rootUri, name: path.basename(root) }], initializationOptions: { index: "all" } });
  assert.deepEqual(
    answers.filter((e) => e.answer).map((e) => [e.answer, e.result]),
    [
      ["window/workDoneProgress/create", null],
      ["client/registerCapability", null],
      ["workspace/configuration", [{ strict: true }, null]],
    ],
  );
  assert.deepEqual(answers.find((e) => e.method === "workspace/didChangeConfiguration")?.settings, { fake: { strict: true } });

  await server.open(file);
  await fs.writeFile(file, "function greet(name) {\n  return name; // @error broken\n}\n");
  await server.open(file);
  await server.diagnosticsAfter(uri, 1, 5_000);
  assert.deepEqual(server.diagnostics(uri).items.map((d) => d.message), ["broken"]);
  await server.stop();
  const methods = (await logged()).filter((e) => e.method).map((e) => (e.version === undefined ? e.method : `${e.method} v${e.version}`));
  assert.deepEqual(methods, ["initialize", "initialized", "workspace/didChangeConfiguration", "textDocument/didOpen v1", "textDocument/definition", "textDocument/didChange v2", "shutdown", "exit"]);
  assert.equal(server.running, false);
  await assert.rejects(server.open(file), /has been stopped/);
});

test("a server that cannot start says why, with its stderr; later calls try again, up to maxRestarts", async (t) => {
  const { root, server, logged } = await fakeServer(t, { failStart: true }, { maxRestarts: 1 });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "x\n");
  await assert.rejects(server.open(file), (error: Error) => {
    assert.match(error.message, /^LSP server "plugin:kit:fake" \(.*\) exited while starting: it exited with code 2\nIts last lines on stderr:\nfake-lsp: cannot find the project's configuration$/);
    return true;
  });
  await assert.rejects(server.open(file), /exited with code 2/);
  await assert.rejects(server.open(file), /^Error: LSP server "plugin:kit:fake" is not available: exited while starting: it exited with code 2; it was started 2 times and is not started again \(maxRestarts 1\)\.$/);
  assert.equal((await logged()).filter((e) => e.method === "initialize").length, 2);
});

test("a command that does not exist is named; a server that crashes fails the call in flight with its exit and stderr, and the next call starts it again", async (t) => {
  const missing = await fakeServer(t, {}, { command: "/no/such/lsp-server", maxRestarts: 0 });
  await fs.writeFile(path.join(missing.root, "a.ts"), "x\n");
  await assert.rejects(missing.server.open(path.join(missing.root, "a.ts")), /LSP server "plugin:kit:fake" \(\/no\/such\/lsp-server\) cannot run \/no\/such\/lsp-server: spawn \/no\/such\/lsp-server ENOENT/);

  const { root, server } = await fakeServer(t, { crashOn: "textDocument/hover" });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "function greet() {}\n");
  const { uri } = await server.open(file);
  const position = { textDocument: { uri }, position: { line: 0, character: 10 } };
  await assert.rejects(server.request("textDocument/hover", position), /LSP server "plugin:kit:fake" \(.*\) exited with code 3\nIts last lines on stderr:\nfake-lsp: crashing on textDocument\/hover as asked/);
  await server.open(file);
  assert.equal(((await server.request("textDocument/definition", position)) as unknown[]).length, 1);
});

test("restartOnCrash false: a crashed server is not started again", async (t) => {
  const { root, server } = await fakeServer(t, { crashOn: "textDocument/hover" }, { restartOnCrash: false });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "function greet() {}\n");
  const { uri } = await server.open(file);
  await assert.rejects(server.request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 10 } }), /exited with code 3/);
  await assert.rejects(server.open(file), /is not available: exited with code 3; it is not started again \(restartOnCrash is false\)/);
});

test("a server that does not answer initialize within startupTimeout is ended, and the call says so", async (t) => {
  const { root, server } = await fakeServer(t, { hangStart: true }, { startupTimeoutMs: 300, maxRestarts: 0 });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "x\n");
  await assert.rejects(server.open(file), /^Error: LSP server "plugin:kit:fake" \(.*\) failed to initialize: no answer to initialize within 300 ms$/);
  await assert.rejects(server.open(file), /is not available: failed to initialize: no answer to initialize within 300 ms; it was started 1 times and is not started again \(maxRestarts 0\)/);
});

test("two calls on a file that changes on disk meanwhile leave the server with the text on disk, not the older one read first", async (t) => {
  const { root, server } = await fakeServer(t);
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "function one() {}\n");
  await server.open(file);
  await fs.writeFile(file, "function two() {}\n");
  // The first read (of `two`) is held until the second call (after `three` is written) has read
  // and sent its text, as a slow disk may do.
  const readFile = fs.readFile;
  let second: Promise<unknown> | undefined;
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  t.mock.method(fs, "readFile", async (...args: Parameters<typeof fs.readFile>) => {
    const text = await readFile.apply(fs, args);
    if (!second) {
      await fs.writeFile(file, "function three() {}\n");
      second = server.open(file);
      // Without a second read while this one is held, the calls are one after the other.
      await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 200))]);
    } else setImmediate(release!);
    return text;
  });
  const first = await server.open(file);
  await second;
  t.mock.restoreAll();
  const { uri } = first;
  const symbols = (await server.request("textDocument/documentSymbol", { textDocument: { uri } })) as { name: string }[];
  assert.deepEqual(symbols.map((s) => s.name), ["three"]);
  assert.equal((await server.open(file)).sent, false, "the server has the file as it is on disk");
});

test("stopping a server that is still starting ends it at once: the call waiting on it is told the server was stopped", async (t) => {
  const { root, server, logged } = await fakeServer(t, { hangStart: true }, { startupTimeoutMs: 5_000, maxRestarts: 0 });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "x\n");
  const opening = server.open(file);
  await waitFor(async () => ((await logged()).some((e) => e.method === "initialize") ? true : undefined), "the server to get initialize");
  await server.stop();
  await assert.rejects(opening, /^Error: LSP server "plugin:kit:fake" has been stopped/);
});

test("a server that stops speaking LSP on stdout is ended; the call in flight and later ones are told which server and why", async (t) => {
  // Answers initialize, then writes a line that is not LSP once a third message came (messages
  // counted by their headers: several may come in one chunk on a busy machine).
  const script = `let n = 0; process.stdin.on("data", (chunk) => {
    n += (String(chunk).match(/Content-Length:/g) || []).length;
    if (n === 1) { const body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { capabilities: {} } }); process.stdout.write("Content-Length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body); }
    else if (n > 2) process.stdout.write("Indexing done\\r\\n\\r\\n");
  }); setInterval(() => {}, 1000);`;
  const { root, server } = await fakeServer(t, {}, { command: process.execPath, args: ["-e", script], maxRestarts: 0 });
  const file = path.join(root, "a.ts");
  await fs.writeFile(file, "x\n");
  const { uri } = await server.open(file);
  await assert.rejects(server.request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 0 } }), /^Error: LSP server "plugin:kit:fake" \(.*\) was ended: the server's output is not LSP: a message header without Content-Length: "Indexing done"$/);
  await assert.rejects(server.open(file), /is not available: was ended: the server's output is not LSP: a message header without Content-Length: "Indexing done"; it was started 1 times/);
});
