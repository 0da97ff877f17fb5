// What `harness run` loads before its first model request is part of its start time: the wire
// protocol's schemas, for one, cost it about 20 ms and serve only the server and the runner process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textInWords } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** Modules no headless run needs: the wire protocol's schemas (the package index pulls them all in),
 * the server, and the JSON Schema validator (about a hundred files), which only a run with an output
 * schema (--json-schema) uses. */
const NOT_FOR_A_RUN = [/\/packages\/protocol\/src\/(index|wire|runner|runner-control|frames)\.ts$/, /\/packages\/server\//, /\/packages\/session\//, /\/node_modules\/ajv\//];

/** Modules a text run without plugins never uses: the Agent SDK's stream-json protocol (its input,
 * control requests, messages, partial messages and opening, and the policy tier of
 * --managed-settings), which only --output-format/--input-format stream-json and that flag use, and
 * the plugin loader, which only enabledPlugins in the settings or --plugin-dir use, and the language
 * servers' client and the LSP tool, which only a plugin that declares language servers uses. */
const NOT_FOR_A_TEXT_RUN = [
  /\/packages\/cli\/src\/(stream-[a-z-]+|sdk-managed)\.ts$/,
  /\/packages\/agent\/src\/plugins\/(discover|load-plugin|manifest)\.ts$/,
  /\/packages\/agent\/src\/(lsp|tools\/lsp)\/[a-z-]+\.ts$/,
];

/** Modules a run with no hooks, no MCP server and no compaction never uses: the agent package's
 * index (which names every module of the agent) and its test code; the hook runners, which only a
 * run with a hook configured for an event that fires uses; the MCP client, which only a run with an
 * MCP server (or a sub-agent that defines one) uses; and the summarizer, which only a run whose
 * conversation is compacted (/compact, or close to the context window) uses. Also the MCP prompts'
 * and resources' clients, which only a run with a connected server uses, and what only a call of
 * one tool uses: Grep's search engines, WebFetch's fetching and HTML conversion, Read's notebook
 * rendering. And the sandbox's runtime, which only a run whose settings turn the sandbox on uses,
 * and the sub-agent spawner, which only a Task call (or a forked skill) uses; the built-in
 * commands and reports, which only /compact, /clear and the reports (/cost, /context, /mcp…) use; and the approver of
 * --permission-prompt-tool. */
const NOT_FOR_A_PLAIN_RUN = [
  /\/packages\/agent\/src\/(index|testing\/[a-z-]+)\.ts$/,
  /\/packages\/agent\/src\/hooks\/(run-hooks|hook-run|hook-output|combine|spawn-hook|http-hook|prompt-hook|callback-hook)\.ts$/,
  /\/packages\/agent\/src\/(mcp\/(manager|prompts|mcp-tool|resources)|harness\/mcp\/subagent-mcp)\.ts$/,
  /\/packages\/agent\/src\/tools\/(grep-js|grep-rg|grep-search|walk|fetch-page|html-to-markdown|read-notebook)\.ts$/,
  /\/packages\/agent\/src\/compaction\/(compact|summary-prompt|render-transcript)\.ts$/,
  /\/packages\/agent\/src\/(sandbox\/(runtime|git-config-paths)|subagents\/spawn-subagent)\.ts$/,
  /\/packages\/agent\/src\/harness\/(commands\/builtin|reports\/usage|reports\/inspect|permissions\/prompt-tool)\.ts$/,
];

/** Runs `harness args…` in `dir` (as HOME and working directory), answering the module URLs the
 * process resolved, one per module load. From the sources (HARNESS_BUNDLE=0): the startup bundle
 * splits its code where the sources import dynamically, so what a run leaves unloaded here it
 * leaves unloaded there too, but the bundle's files do not name the modules they hold. */
async function modulesOf(dir: string, args: string[], env: Record<string, string>) {
  const log = join(dir, "modules.txt");
  const hook = join(dir, "record.mjs");
  writeFileSync(
    hook,
    `import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r; } });
`,
  );
  const result = await harness(args, { ...env, HOME: dir, HARNESS_BUNDLE: "0", NODE_OPTIONS: `--import ${hook}` }, { cwd: dir }).result;
  return { ...result, loaded: readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

test("harness run loads neither the wire protocol's schemas, nor the server, nor the JSON Schema validator", async (t) => {
  const dir = tempDir(t);
  const fake = await withFake(t, startFakeAnthropic({ respond: () => textInWords("done") }));
  const { code, stderr, loaded } = await modulesOf(dir, ["run", "hello"], { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 0, stderr);
  assert.ok(loaded.some((url) => url.endsWith("/packages/llm/src/anthropic/provider.ts")), "the record covers the run's own modules");
  assert.deepEqual(
    loaded.filter((url) => NOT_FOR_A_RUN.some((pattern) => pattern.test(url))),
    [],
  );
});

test("a plain text harness run loads neither the stream-json protocol, nor the plugin loader, nor the hooks, MCP and compaction it has no use for", async (t) => {
  const dir = tempDir(t);
  const fake = await withFake(t, startFakeAnthropic({ respond: () => textInWords("done") }));
  const { code, stdout, stderr, loaded } = await modulesOf(dir, ["run", "hello"], { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /done/);
  assert.ok(loaded.some((url) => url.endsWith("/packages/agent/src/harness/setup/setup.ts")), "the record covers the run's setup");
  assert.deepEqual(
    [...new Set(loaded.filter((url) => [...NOT_FOR_A_TEXT_RUN, ...NOT_FOR_A_PLAIN_RUN].some((pattern) => pattern.test(url))))],
    [],
  );
});

test("a harness run its flags refuse ends before it loads the agent package's index (the whole agent)", async (t) => {
  const { code, stderr, loaded } = await modulesOf(tempDir(t), ["run", "--max-budget-usd", "abc", "hello"], { ANTHROPIC_API_KEY: "test" });
  assert.notEqual(code, 0);
  assert.match(stderr, /--max-budget-usd/);
  assert.ok(loaded.some((url) => url.endsWith("/packages/cli/src/run/run.ts")), "the record covers the run's own modules");
  assert.deepEqual(
    loaded.filter((url) => url.endsWith("/packages/agent/src/index.ts")),
    [],
  );
});
