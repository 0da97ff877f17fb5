// `harness run --debug` shows how things are reached, never the credentials in their URLs: an MCP
// server's command line, a hook's command, the model's base URL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../packages/cli/src/test-support.ts";

test("the debug log hides the user, password and query of every URL in MCP command lines and hook commands", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "hi" }] }));
  const dir = tempDir(t);
  const mcp = { mcpServers: { remote: { command: "false", args: ["mcp-remote", "https://bob:hunter2@mcp.example.com/sse?token=SECRET1"] } } };
  const settings = {
    hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "curl -s 'https://u:SECRET2@127.0.0.1:9/x?t=SECRET3' || true" }] }] },
  };
  const base = new URL(fake.url);
  base.username = "gateway";
  base.password = "SECRET4";
  const result = await harness(["run", "--debug", "--mcp-config", JSON.stringify(mcp), "--settings", JSON.stringify(settings), "--", "hi"], {
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: base.href,
  }, { cwd: dir }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /\[mcp\] server remote starting: false mcp-remote https:\/\/\*\*\*@mcp\.example\.com\/sse\?\*\*\*/);
  assert.match(result.stderr, /\[hooks\] UserPromptSubmit: command "curl -s 'https:\/\/\*\*\*@127\.0\.0\.1:9\/x\?\*\*\*' \|\| true" exited 0/);
  assert.doesNotMatch(result.stderr, /SECRET|hunter2/);
});
