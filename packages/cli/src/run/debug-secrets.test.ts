// `harness run --debug`: what an MCP server is started with and says, and what a hook runs, shown
// with their secrets hidden and the names the user debugs with (command, flag, server) kept.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { SECRET_PROCESS_ENV, SECRET_SETTINGS_ENV, secretMcpServers, startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** The debug log's lines in `stderr` (one may go on over indented lines), without the run's
 * notices, which are the run's output rather than its log. */
function debugLines(stderr: string): string {
  let inLog = false;
  return stderr
    .split("\n")
    .filter((line) => (inLog = / \[DEBUG\] /.test(line) || (inLog && line.startsWith("  "))))
    .join("\n");
}

test("--debug hides the secrets of an MCP server's arguments, env, headers and stderr, and of a hook's command, keeping the flags' names", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: toolThenText("Bash", { command: "echo hi" }, "It printed hi.") }));
  const dir = tempDir(t);
  const settings = join(dir, "settings.json");
  const hook = 'true --token=hooktoken-s3cret-10 -H "Authorization: Bearer hookbearer-s3cret-11" -H "Authorization: Bearer $HOOK_TOKEN"';
  writeFileSync(settings, JSON.stringify({ env: SECRET_SETTINGS_ENV, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] } }));
  const mcp = JSON.stringify({ mcpServers: secretMcpServers(dir) });
  const args = ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--allowedTools", "Bash(echo:*)", "--settings", settings, "--mcp-config", mcp, "--output-format", "json", "--debug", "--", "say hi"];
  const { code, stderr } = await harness(args, { ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: fake.url, ...SECRET_PROCESS_ENV }).result;
  assert.equal(code, 0, stderr);
  const log = debugLines(stderr);
  assert.doesNotMatch(log, /s3cret/, "no secret");
  const has = (pattern: RegExp) => assert.match(log, pattern);
  has(/\[mcp\] server leaky starting: \S*node\S* \S*leaky-server\.mjs --api-key \*\*\* --token=\*\*\* -H Authorization: Bearer \*\*\* --header X-Api-Key:\*\*\* --verbose$/m);
  has(/\[mcp\] server leaky stderr: args: --api-key \*\*\* --token=\*\*\* -H Authorization: Bearer \*\*\* --header X-Api-Key:\*\*\* --verbose$/m);
  has(/\[mcp\] server leaky stderr: credential: \*\*\*$/m);
  has(/\[mcp\] server leaky stderr: settings token: \*\*\*$/m);
  has(/\[mcp\] server leaky stderr: password: \*\*\*$/m);
  has(/\[mcp\] server leaky stderr: upstream refused \*\*\* and \*\*\*$/m);
  has(/\[mcp\] server remote starting: http http:\/\/127\.0\.0\.1:9\/mcp$/m);
  has(/\[hooks\] PreToolUse on Bash: command "true --token=\*\*\* -H \\"Authorization: Bearer \*\*\*\\" -H \\"Authorization: Bearer \$HOOK_TOKEN\\"" exited 0/);
});
