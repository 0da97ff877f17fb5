// The LSP tool in whole runs: a plugin (--plugin-dir) declares the fake language server of
// test-utils, and the scripted model calls the tool.
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { fakeLspServerCommand } from "@harness/test-utils";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import type { ScriptedStep } from "../../testing/scripted-provider.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";
import type { RunAgentOptions } from "../../types.ts";

function results(message: ModelMessage | undefined): Record<string, string> {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  const blocks = message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
  return Object.fromEntries(blocks.map((b) => [b.tool_use_id, `${b.is_error ? "ERROR " : ""}${typeof b.content === "string" ? b.content : JSON.stringify(b.content)}`]));
}

const GREET = "// Says hello to someone.\nexport function greet(name) {\n  return `Hello, ${name}`;\n}\n";
const MAIN = 'import { greet } from "./hello";\n\nfunction main() {\n  greet("Ada");\n  greet("Bøb"); log();\n}\n\nfunction log() {}\n';
const SHAPE = "interface Shape {\n  area(): number;\n}\n\nclass Square implements Shape {\n  area() {\n    return 4;\n  }\n}\n";

/** The project with the kit plugin in plugins/kit, whose `.lsp.json` (or manifest) declares `servers`. */
async function withPlugin(project: TempProject, servers: Record<string, unknown>, inManifest = false): Promise<string> {
  const manifest = { name: "kit", ...(inManifest && { lspServers: servers }) };
  await project.write("plugins/kit/.claude-plugin/plugin.json", JSON.stringify(manifest));
  if (!inManifest) await project.write("plugins/kit/.lsp.json", JSON.stringify(servers));
  return path.join(project.root, "plugins", "kit");
}

/** A run in the project with the kit plugin given as with --plugin-dir. */
function run(project: TempProject, steps: ScriptedStep[], options: Partial<RunAgentOptions> = {}) {
  return runInProject(project, steps, { pluginDirs: [path.join(project.root, "plugins", "kit")], ...options });
}

function fakeServer(extra: Record<string, unknown> = {}, log = "${CLAUDE_PLUGIN_ROOT}/lsp.log") {
  const { command, args } = fakeLspServerCommand({ log });
  return { command, args, extensionToLanguage: { ".ts": "typescript", ".js": "javascript" }, ...extra };
}

test("the LSP tool answers definitions, references, hover, symbols, implementations and calls from the plugin's server, as path:line:col with the line", async (t) => {
  const project = await tempProject(t);
  const plugin = await withPlugin(project, { fake: fakeServer() });
  await project.write("src/hello.ts", GREET);
  await project.write("src/main.ts", MAIN);
  await project.write("src/shape.ts", SHAPE);
  await project.write("README.md", "# hi\n");
  const call = (id: string, input: Record<string, unknown>) => ({ id, name: "LSP", input });
  const { provider, result } = await run(
    project,
    [
      {
        toolCalls: [
          call("def", { operation: "goToDefinition", filePath: "src/main.ts", line: 4, character: 4 }),
          call("refs", { operation: "findReferences", filePath: "src/hello.ts", line: 2, character: 18 }),
          call("hover", { operation: "hover", filePath: "src/main.ts", line: 4, character: 3 }),
          call("outline", { operation: "documentSymbol", filePath: "src/shape.ts" }),
          call("symbols", { operation: "workspaceSymbol", filePath: "src/main.ts", query: "gre" }),
          call("impl", { operation: "goToImplementation", filePath: "src/shape.ts", line: 1, character: 11 }),
          call("callers", { operation: "incomingCalls", filePath: "src/hello.ts", line: 2, character: 17 }),
          call("callees", { operation: "outgoingCalls", filePath: path.join(project.root, "src/main.ts"), line: 3, character: 10 }),
          call("none", { operation: "hover", filePath: "src/main.ts", line: 2, character: 1 }),
        ],
      },
      { text: "Done." },
    ],
  );
  assert.equal(result.stopReason, "end_turn");
  const tool = provider.requests[0]!.tools?.find((t) => t.name === "LSP");
  assert.match(String(tool?.description), /Language servers handle these file extensions: \.js, \.ts\./);
  const got = results(withoutCacheMarks(provider.requests[1]!.messages).at(-1));
  assert.deepEqual(got, {
    def: "Found 1 definition:\nsrc/hello.ts:2:17: export function greet(name) {",
    refs: 'Found 4 references in 2 files:\nsrc/hello.ts:2:17: export function greet(name) {\nsrc/main.ts:1:10: import { greet } from "./hello";\nsrc/main.ts:4:3: greet("Ada");\nsrc/main.ts:5:3: greet("Bøb"); log();',
    hover: "```ts\nexport function greet(name)\n```\nSays hello to someone.",
    outline: "Interface Shape — interface Shape (lines 1-3)\nClass Square — class Square implements Shape (lines 5-9)\n  Method area — area() (lines 6-8)",
    symbols: "Found 1 symbol:\nFunction greet — src/hello.ts:2:17",
    impl: "Found 1 implementation:\nsrc/shape.ts:5:7: class Square implements Shape {",
    callers: "1 caller of greet:\nFunction main — function main() — src/main.ts:3:10\n  calls greet at src/main.ts:4:3, 5:3",
    callees: "main calls 2 functions:\nFunction greet — export function greet(name) — src/hello.ts:2:17\n  called at src/main.ts:4:3, 5:3\nFunction log — function log() {} — src/main.ts:8:10\n  called at src/main.ts:5:17",
    none: "No results: no hover information here.",
  });
  assert.ok(await fs.stat(path.join(plugin, "lsp.log")), "${CLAUDE_PLUGIN_ROOT} stands for the plugin's directory");
  const log = await fs.readFile(path.join(plugin, "lsp.log"), "utf8");
  assert.match(log, /"method":"shutdown"[\s\S]*"method":"exit"/, "the server is shut down when the run ends");
});

test("bad calls get errors the model can act on: a file no server handles, a missing file, a position past the end, a missing position", async (t) => {
  const project = await tempProject(t);
  await withPlugin(project, { fake: fakeServer() }, true);
  await project.write("src/main.ts", MAIN);
  await project.write("README.md", "# hi\n");
  const call = (id: string, input: Record<string, unknown>) => ({ id, name: "LSP", input });
  const { provider } = await run(project, [
    {
      toolCalls: [
        call("md", { operation: "hover", filePath: "README.md", line: 1, character: 1 }),
        call("gone", { operation: "hover", filePath: "src/gone.ts", line: 1, character: 1 }),
        call("past", { operation: "hover", filePath: "src/main.ts", line: 99, character: 1 }),
        call("wide", { operation: "hover", filePath: "src/main.ts", line: 5, character: 40 }),
        call("nopos", { operation: "findReferences", filePath: "src/main.ts" }),
        call("op", { operation: "rename", filePath: "src/main.ts", line: 1, character: 1 }),
      ],
    },
    { text: "ok" },
  ]);
  const got = results(withoutCacheMarks(provider.requests[1]!.messages).at(-1));
  assert.equal(got.md, "ERROR No language server handles .md files (README.md). Language servers are configured for: .js, .ts.");
  assert.match(got.gone!, /^ERROR File does not exist: src\/gone\.ts/);
  assert.equal(got.past, "ERROR src/main.ts: line 99 is past the end of the file (8 lines).");
  assert.equal(got.wide, "ERROR src/main.ts: character 40 is past the end of line 5 (22 characters).");
  assert.equal(got.nopos, "ERROR findReferences needs line and character: the position of the symbol in src/main.ts, each counting from 1.");
  assert.match(got.op!, /^ERROR Invalid arguments for LSP:\n- parameter "operation" must be one of "goToDefinition", .*, but got string "rename"/);
});

test("after an edit of a file the running server handles, the tool result lists the new errors and warnings; without a plugin's servers there is no LSP tool", async (t) => {
  const project = await tempProject(t);
  await withPlugin(project, { fake: fakeServer() });
  await project.write("src/main.ts", "// @warning old\nfunction main() {}\n");
  const { provider } = await run(
    project,
    [
      { toolCalls: [{ id: "read", name: "Read", input: { file_path: "src/main.ts" } }, { id: "look", name: "LSP", input: { operation: "documentSymbol", filePath: "src/main.ts" } }] },
      { toolCalls: [{ id: "edit", name: "Edit", input: { file_path: "src/main.ts", old_string: "function main() {}", new_string: "function main() {} // @error greet needs a name\nlet x; // @warning unused" } }] },
      { text: "Fixed." },
    ],
    { permissionMode: "acceptEdits" },
  );
  const edit = results(withoutCacheMarks(provider.requests[2]!.messages).at(-1)).edit!;
  assert.match(edit, /\n\n<new-diagnostics>\nsrc\/main\.ts:2:23 \[error\] greet needs a name \(fake-lsp\)\nsrc\/main\.ts:3:11 \[warning\] unused \(fake-lsp\)\n<\/new-diagnostics>$/);
  assert.doesNotMatch(edit.slice(edit.indexOf("<new-diagnostics>")), /old/, "a diagnostic that was there before the edit is not new");

  const bare = await tempProject(t);
  const { provider: plain } = await runInProject(bare, [{ text: "Hi." }]);
  assert.equal(plain.requests[0]!.tools?.some((tool) => tool.name === "LSP"), false);
  const task = String(plain.requests[0]!.tools?.find((tool) => tool.name === "Task")?.description);
  assert.match(task, /^- Explore: .* \(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch\)$/m, "Explore's tools as ever without servers");
});

test("with a plugin's language servers Explore and Plan have LSP too, and the Task tool says so: an Explore sub-agent calls it and gets its answer", async (t) => {
  const project = await tempProject(t);
  await withPlugin(project, { fake: fakeServer() });
  await project.write("src/hello.ts", GREET);
  await project.write("src/main.ts", MAIN);
  const task = { id: "task", name: "Task", input: { description: "Find greet", prompt: "Where is greet defined?", subagent_type: "Explore" } };
  const { provider, result } = await run(project, [
    { toolCalls: [task] },
    { toolCalls: [{ id: "def", name: "LSP", input: { operation: "goToDefinition", filePath: "src/main.ts", line: 4, character: 4 } }] },
    { text: "greet is defined at src/hello.ts:2:17." },
    { text: "Done." },
  ]);
  assert.equal(result.stopReason, "end_turn");
  const description = String(provider.requests[0]!.tools?.find((tool) => tool.name === "Task")?.description);
  assert.match(description, /^- Explore: .* \(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch, LSP\)$/m);
  assert.match(description, /^- Plan: .* \(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch, LSP\)$/m);
  assert.ok(provider.requests[1]!.tools?.some((tool) => tool.name === "LSP"), "the Explore sub-agent is offered LSP");
  assert.deepEqual(results(withoutCacheMarks(provider.requests[2]!.messages).at(-1)), { def: "Found 1 definition:\nsrc/hello.ts:2:17: export function greet(name) {" });
  assert.deepEqual(results(withoutCacheMarks(provider.requests[3]!.messages).at(-1)), { task: "greet is defined at src/hello.ts:2:17." });

  // A run whose list of built-in tools leaves LSP out: nor do Explore's.
  const { provider: listed } = await run(project, [{ text: "Hi." }], { builtinTools: ["Read", "Grep", "Agent"] });
  assert.match(String(listed.requests[0]!.tools?.find((tool) => tool.name === "Task")?.description), /^- Explore: .* \(Tools: Read, Glob, Grep, Bash, WebFetch, WebSearch\)$/m);
});

test("a bad server entry is reported naming the plugin, the server and the field, and the others load; a deny rule on Read keeps LSP from the file", async (t) => {
  const project = await tempProject(t);
  await withPlugin(project, {
    fake: fakeServer(),
    remote: { command: "x", transport: "socket", extensionToLanguage: { ".py": "python" } },
    noext: { command: "y" },
  });
  await project.write("secret/key.ts", "function key() {}\n");
  await project.settings({ permissions: { deny: ["Read(./secret/**)"] } });
  const { provider, events } = await run(project, [{ toolCalls: [{ id: "s", name: "LSP", input: { operation: "documentSymbol", filePath: "secret/key.ts" } }] }, { text: "ok" }]);
  const notices = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message);
  const lspFile = path.join(project.root, "plugins", "kit", ".lsp.json");
  assert.ok(notices.includes(`${lspFile} (remote): LSP server "remote" of plugin kit is not started: transport: "socket" is not supported (only "stdio")`), notices.join("\n"));
  assert.ok(notices.includes(`${lspFile} (noext): LSP server "noext" of plugin kit is not started: extensionToLanguage: required: an object such as { ".ts": "typescript" }`), notices.join("\n"));
  const got = results(withoutCacheMarks(provider.requests[1]!.messages).at(-1));
  assert.match(got.s!, /^ERROR .*denied/i);
});

test("results pointing into a file a deny rule keeps from Read name the place but do not quote its lines", async (t) => {
  const project = await tempProject(t);
  await withPlugin(project, { fake: fakeServer() });
  await project.write("src/hello.ts", GREET);
  await project.write("secret/key.ts", 'greet("the-hidden-line");\n');
  await project.settings({ permissions: { deny: ["Read(./secret/**)"] } });
  const { provider } = await run(project, [{ toolCalls: [{ id: "refs", name: "LSP", input: { operation: "findReferences", filePath: "src/hello.ts", line: 2, character: 17 } }] }, { text: "ok" }]);
  const got = results(withoutCacheMarks(provider.requests[1]!.messages).at(-1));
  assert.equal(got.refs, "Found 2 references in 2 files:\nsecret/key.ts:1:1\nsrc/hello.ts:2:17: export function greet(name) {");
});
