// CLAUDE_ENV_FILE with the sandbox on, through bubblewrap for real, as a server runs sessions: the
// file a conversation's SessionStart hook writes holds for its own sandboxed commands, and the
// commands of another workspace cannot read it.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { ToolResultBlock } from "@harness/llm";
import { createAgentResources } from "../harness/resources.ts";
import { withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import { sandboxUnavailable, stopSandbox } from "./runtime.ts";
import { sandboxTmpRoot } from "./tmp-dir.ts";

const unavailable = await sandboxUnavailable();
if (unavailable && process.env.CI) throw new Error(`the sandbox's tests need it to run here: ${unavailable}`);
const skip = unavailable ? `the sandbox cannot run here: ${unavailable}` : false;
after(stopSandbox);

function onlyResult(run: Awaited<ReturnType<typeof runInProject>>): ToolResultBlock {
  const message = withoutCacheMarks(run.provider.requests[1].messages).at(-1);
  assert.ok(message && typeof message.content !== "string");
  const [result] = message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
  assert.ok(result);
  return result;
}

test("a session's CLAUDE_ENV_FILE holds for its sandboxed commands and is hidden from another workspace's", { skip }, async (t) => {
  // What a server hides from every session's commands but for their own workspace.
  const sandboxHidden = [sandboxTmpRoot()];
  const first = await tempProject(t);
  const hook = await first.hook("env.sh", `cat > /dev/null\necho 'export SESSION_TOKEN=tok-first' >> "$CLAUDE_ENV_FILE"\necho "$CLAUDE_ENV_FILE" > "$CLAUDE_PROJECT_DIR/env-file-path"`);
  await first.settings({ sandbox: { enabled: true }, hooks: { SessionStart: [{ hooks: [{ type: "command", command: hook }] }] } });
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const own = await runInProject(first, [{ toolCalls: [{ id: "toolu_own", name: "Bash", input: { command: 'echo "token: $SESSION_TOKEN"' } }] }, { text: "ok" }], { resources, sandboxHidden });
  assert.equal(onlyResult(own).content, "token: tok-first");
  const file = (await first.read("env-file-path")).trim();

  const second = await tempProject(t);
  await second.settings({ sandbox: { enabled: true } });
  const other = await runInProject(second, [{ toolCalls: [{ id: "toolu_other", name: "Bash", input: { command: `cat '${file}'` } }] }, { text: "ok" }], { sandboxHidden });
  const result = onlyResult(other);
  assert.equal(result.is_error, true);
  assert.doesNotMatch(String(result.content), /tok-first/);
});
