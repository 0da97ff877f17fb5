// `harness run` takes the command line the Claude Agent SDK starts Claude Code's executable with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseArgs } from "../../args.ts";

const STREAM = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];

test("the Agent SDK's command line parses: the flags with a meaning here are taken, Claude Code's own accepted", () => {
  const command = parseArgs([
    "run",
    ...STREAM,
    "--thinking=adaptive",
    "--thinking-display=summarized",
    "--effort=xhigh",
    "--max-thinking-tokens=2048",
    "--max-turns=3",
    "--task-budget=1000",
    "--model=claude-sonnet-4-6",
    "--betas=context-1m",
    "--debug-file=/tmp/debug.log",
    "--debug",
    "--permission-prompt-tool=stdio",
    "--permission-prompts=rich",
    "--channels=server",
    "--allowedTools=Read,Bash(git status)",
    "--tools=default",
    "--setting-sources=",
    "--permission-mode=default",
    "--allow-dangerously-skip-permissions",
    "--include-hook-events",
    "--include-partial-messages",
    "--session-mirror",
    "--project-config-root=/work/project",
    "--add-dir=/work/other",
    "--await-initialize",
    "--plugin-dir=/plugins/a",
    "--plugin-dir-no-mcp=/plugins/b",
    "--resume-session-at=abc",
    "--resume-drops-turn=1",
    "--initialize-fields=settings",
    "--managed-settings-in-initialize",
  ]);
  assert.equal(command.kind, "run", JSON.stringify(command));
  if (command.kind !== "run") return;
  assert.equal(command.inputFormat, "stream-json");
  assert.equal(command.permissionPromptTool, "stdio");
  assert.equal(command.allowBypass, true);
  assert.equal(command.effort, "high", "xhigh runs as high");
  assert.equal(command.maxThinkingTokens, 2048);
  assert.equal(command.maxTurns, 3);
  assert.equal(command.projectConfigRoot, "/work/project");
  assert.deepEqual(command.pluginDirs, ["/plugins/a", "/plugins/b"]);
  assert.equal(command.model, "claude-sonnet-4-6");
  assert.equal(command.includePartialMessages, true);
});

test("permission prompts over stdio go only with stream-json input; a bad --effort is said", () => {
  assert.deepEqual(parseArgs(["run", "--permission-prompt-tool", "stdio", "go"]), {
    kind: "usage-error",
    message: "--permission-prompt-tool stdio needs --input-format stream-json: the approvals are asked on its control protocol",
    topic: "run",
  });
  assert.deepEqual(parseArgs(["run", "--effort", "huge", "go"]), { kind: "usage-error", message: '--effort must be one of low, medium, high, max (or xhigh), not "huge"', topic: "run" });
});

test("--managed-settings keeps what restricts, apart from --disallowedTools', and says what it leaves out; JSON that is not, or a malformed restriction, is refused", () => {
  const command = parseArgs(["run", ...STREAM, "--disallowedTools", "Read", "--managed-settings", '{"permissions":{"deny":["Bash(rm:*)"],"ask":["WebFetch"],"allow":["Bash"]},"sandbox":{"enabled":true},"model":"m"}']);
  assert.deepEqual(command.kind === "run" && command.disallowedTools, ["Read"]);
  assert.deepEqual(command.kind === "run" && command.managedSettings, {
    settings: { permissions: { deny: ["Bash(rm:*)"], ask: ["WebFetch"] }, sandbox: { enabled: true } },
    note: "--managed-settings: permissions.allow, model are not applied: from the Agent SDK's managed settings the run takes only what restricts it, as Claude Code does",
  });
  const notJson = parseArgs(["run", ...STREAM, "--managed-settings", "{deny}"]);
  assert.match(notJson.kind === "usage-error" ? notJson.message : "", /^--managed-settings: the value is not valid JSON/);
  const badRule = parseArgs(["run", ...STREAM, "--managed-settings", '{"permissions":{"deny":["Bash("]}}']);
  assert.match(badRule.kind === "usage-error" ? badRule.message : "", /^--managed-settings: permissions\.deny: /);
  const notList = parseArgs(["run", ...STREAM, "--managed-settings", '{"permissions":{"deny":"Bash"}}']);
  assert.equal(notList.kind === "usage-error" && notList.message, '--managed-settings: permissions.deny must be a list of permission rules, such as ["Bash", "Read(./secrets/**)"], not "Bash"');
  const badLock = parseArgs(["run", ...STREAM, "--managed-settings", '{"allowManagedHooksOnly":"yes"}']);
  assert.equal(badLock.kind === "usage-error" && badLock.message, '--managed-settings: allowManagedHooksOnly: must be true or false, not the string "yes"');
  const badEntry = parseArgs(["run", ...STREAM, "--managed-settings", '{"deniedMcpServers":[{"name":"x"}]}']);
  assert.match(badEntry.kind === "usage-error" ? badEntry.message : "", /^--managed-settings: deniedMcpServers\[0\]: must have exactly one of "serverName"/);
});

test("--managed-settings holding a restriction Claude Code takes but harness does not enforce is refused, naming it", () => {
  const parsed = parseArgs(["run", ...STREAM, "--managed-settings", '{"sandbox":{"network":{"allowManagedDomainsOnly":true}},"model":"m"}']);
  assert.equal(parsed.kind === "usage-error" && parsed.message, "--managed-settings: sandbox.network.allowManagedDomainsOnly: a restriction harness does not enforce; leave it out rather than have the run go on without it");
  const loose = parseArgs(["run", ...STREAM, "--managed-settings", '{"sandbox":{"network":{"allowManagedDomainsOnly":false}},"disableAllHooks":"true"}']);
  assert.deepEqual(loose.kind === "run" && loose.managedSettings, {
    settings: { allowManagedHooksOnly: true },
    note: "--managed-settings: sandbox.network.allowManagedDomainsOnly is not applied: from the Agent SDK's managed settings the run takes only what restricts it, as Claude Code does",
  });
});
