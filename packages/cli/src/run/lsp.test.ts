// `harness run --plugin-dir` with a plugin that declares a language server: the model's LSP calls
// reach the server, and what it answers comes back as the tool's result.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeLspServerCommand, startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

test("a plugin's language server answers the model's LSP calls in a run, and is shut down when the run ends", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        {
          toolUses: [
            { id: "toolu_def", name: "LSP", input: { operation: "goToDefinition", filePath: "src/main.ts", line: 2, character: 3 } },
            { id: "toolu_refs", name: "LSP", input: { operation: "findReferences", filePath: "src/lib.ts", line: 1, character: 10 } },
          ],
        },
        { text: "greet is defined in src/lib.ts." },
      ],
    }),
  );
  const dir = tempDir(t);
  const plugin = join(dir, "plugins", "tsls");
  mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
  const { command, args } = fakeLspServerCommand({ log: "${CLAUDE_PLUGIN_ROOT}/server.log" });
  writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "tsls", lspServers: "./servers.json" }));
  writeFileSync(join(plugin, "servers.json"), JSON.stringify({ typescript: { command, args, extensionToLanguage: { ".ts": "typescript" } } }));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "lib.ts"), "function greet() {}\n");
  writeFileSync(join(dir, "src", "main.ts"), "function main() {\n  greet();\n}\n");

  const { code, stdout, stderr } = await harness(["run", "--plugin-dir", "plugins/tsls", "--model", "claude-sonnet-4-6", "where is greet defined?"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: dir }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "greet is defined in src/lib.ts.\n");
  const tools = fake.requests[0]!.body.tools as { name: string }[];
  assert.ok(tools.some((tool) => tool.name === "LSP"), "the LSP tool is offered");
  const results = (fake.requests[1]!.body.messages as { content: unknown }[]).at(-1)!.content as { tool_use_id: string; content: unknown }[];
  const text = (id: string) => JSON.stringify(results.find((r) => r.tool_use_id === id)?.content);
  assert.match(text("toolu_def"), /Found 1 definition:\\nsrc\/lib\.ts:1:10: function greet\(\) \{\}/);
  assert.match(text("toolu_refs"), /Found 2 references in 2 files:\\nsrc\/lib\.ts:1:10: function greet\(\) \{\}\\nsrc\/main\.ts:2:3: greet\(\);/);
  const log = readFileSync(join(plugin, "server.log"), "utf8");
  assert.match(log, /"method":"shutdown"[\s\S]*"method":"exit"/);
});
