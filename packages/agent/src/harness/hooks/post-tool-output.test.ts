import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { defineTool } from "../../define-tool.ts";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { builtinTools } from "../../tools/index.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

const hookGroup = (command: string, matcher: string) => [{ matcher, hooks: [{ type: "command", command }] }];
const printing = (output: unknown) => `cat > /dev/null\necho '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", ...(output as object) } })}'`;
const warnings = (events: AgentEvent[]) => events.filter((e) => e.type === "notice" && e.level === "warning").map((e) => (e as { message: string }).message);

test("a PostToolUse hook's updatedToolOutput is what the model and the UI see instead of the tool's output", async (t) => {
  const project = await tempProject(t);
  await project.write("secret.txt", "token=abc123\n");
  const redactRead = await project.hook("redact-read.sh", printing({ updatedToolOutput: "token=[redacted]", additionalContext: "Secrets are redacted" }));
  const shortenBash = await project.hook("shorten-bash.sh", printing({ updatedToolOutput: { stdout: "3 passed", stderr: "", interrupted: false, isImage: false } }));
  await project.settings({ hooks: { PostToolUse: [...hookGroup(redactRead, "Read"), ...hookGroup(shortenBash, "Bash")] } });
  const { provider, events } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_read", name: "Read", input: { file_path: "secret.txt" } },
          { id: "toolu_bash", name: "Bash", input: { command: "echo long test log" } },
        ],
      },
      { text: "ok" },
    ],
    { permissionMode: "bypassPermissions" },
  );

  const [read, bash] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(read.content, "token=[redacted]\n\n<system-reminder>\nSecrets are redacted\n</system-reminder>");
  assert.equal(bash.content, "3 passed");
  assert.equal(bash.is_error, undefined);
  const shown = events.filter((e) => e.type === "tool.completed").map((e) => (e as { output: string }).output);
  assert.deepEqual(shown.sort(), ["3 passed", "token=[redacted]"]);
  assert.ok(!JSON.stringify(events).includes("abc123"), "the original output is shown nowhere");
  assert.deepEqual(warnings(events), []);
});

test("an updatedToolOutput of the wrong shape is reported and the tool's own output stands", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "alpha\n");
  const objectForRead = await project.hook("object-for-read.sh", printing({ updatedToolOutput: { text: "nope" } }));
  const stringForBash = await project.hook("string-for-bash.sh", printing({ updatedToolOutput: "just a string" }));
  await project.settings({ hooks: { PostToolUse: [...hookGroup(objectForRead, "Read"), ...hookGroup(stringForBash, "Bash")] } });
  const { provider, events } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_read", name: "Read", input: { file_path: "a.txt" } }, { id: "toolu_bash", name: "Bash", input: { command: "echo ran" } }] }, { text: "ok" }],
    { permissionMode: "bypassPermissions" },
  );

  const [read, bash] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(read.content, "     1\talpha");
  assert.equal(bash.content, "ran");
  const said = warnings(events);
  assert.ok(
    said.some((m) => /PostToolUse hook.*updatedToolOutput for Read.*must be a string, got an object/.test(m)),
    said.join("\n"),
  );
  assert.ok(
    said.some((m) => /PostToolUse hook.*updatedToolOutput for Bash.*must be an object with a string "stdout", got a string/.test(m)),
    said.join("\n"),
  );
});

test("updatedMCPToolOutput replaces an MCP tool's result, as MCP content or text, and is ignored for other tools", async (t) => {
  const project = await tempProject(t);
  await project.write("a.txt", "alpha\n");
  const lookup = defineTool({
    name: "mcp__tickets__lookup",
    description: "Looks up a ticket.",
    parameters: z.object({ id: z.string() }),
    readOnly: true,
    execute: async ({ id }) => ({ content: `ticket ${id}: reporter alice@example.com` }),
  });
  const mcp = await project.hook("mcp.sh", printing({ updatedMCPToolOutput: [{ type: "text", text: "ticket 7: reporter [email]" }] }));
  const misplaced = await project.hook("misplaced.sh", printing({ updatedMCPToolOutput: "not for Read" }));
  await project.settings({ hooks: { PostToolUse: [...hookGroup(mcp, "mcp__tickets__.*"), ...hookGroup(misplaced, "Read")] } });
  const { provider, events } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_mcp", name: "mcp__tickets__lookup", input: { id: "7" } }, { id: "toolu_read", name: "Read", input: { file_path: "a.txt" } }] }, { text: "ok" }],
    { tools: [...builtinTools(), lookup], permissionMode: "bypassPermissions" },
  );

  const [ticket, read] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(ticket.content, "ticket 7: reporter [email]");
  assert.equal(read.content, "     1\talpha");
  assert.ok(
    warnings(events).some((m) => /updatedMCPToolOutput for Read.*only for MCP tools/.test(m)),
    warnings(events).join("\n"),
  );
});
