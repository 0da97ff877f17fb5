// What a server lists that cannot be used is left out and named, the rest used: prompts and
// resources, read from a stand-in for a connected client.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { McpConnection } from "./connection.ts";
import { listAllPrompts } from "./prompts.ts";
import { resourceTools } from "./resources.ts";

/** A connected server whose answer to every list request is `answer`. */
function connectionAnswering(name: string, capabilities: Record<string, unknown>, answer: unknown): McpConnection {
  const client = { getServerCapabilities: () => capabilities, request: async () => answer };
  return { config: { name }, client, state: "connected" } as unknown as McpConnection;
}

const options = { signal: new AbortController().signal, timeout: 1_000 };

test("malformed prompts are left out, each named; the others are listed with their arguments", async () => {
  const connection = connectionAnswering("x", { prompts: {} }, {
    prompts: [
      { name: "good", arguments: [{ name: "file", required: true }, { name: "focus" }] },
      { description: "no name" },
      { name: "bad-args", arguments: "file" },
      { name: "nameless-arg", arguments: [{ required: true }] },
      "not an object",
    ],
  });
  const { prompts, skipped } = await listAllPrompts(connection, options);
  assert.deepEqual(prompts, [{ name: "good", arguments: [{ name: "file", required: true }, { name: "focus", required: false }] }]);
  assert.deepEqual(skipped, ['a prompt without a "name"', 'prompt bad-args: "arguments" must be a list', 'prompt nameless-arg: an argument without a "name"', 'a prompt without a "name"']);
});

test("a resource listed without a uri or a name is left out and said; the others are listed", async () => {
  const connection = connectionAnswering("docs", { resources: {} }, { resources: [{ uri: "docs://a", name: "a", mimeType: "text/plain" }, { name: "no uri" }, 7] });
  const [list] = resourceTools(() => [connection], { callTimeoutMs: 1_000, maxOutputChars: 10_000 });
  const output = await list!.execute({}, { cwd: "/", signal: options.signal, toolUseId: "toolu_1" });
  assert.equal(output.isError, undefined);
  const [json, ...notes] = output.content.split("\n\n");
  assert.deepEqual(JSON.parse(json!), [{ server: "docs", uri: "docs://a", name: "a", mimeType: "text/plain" }]);
  assert.deepEqual(notes.join("\n").split("\n"), [
    'MCP server docs listed a resource without a "uri" and a "name"; it is left out.',
    'MCP server docs listed a resource without a "uri" and a "name"; it is left out.',
  ]);
});
