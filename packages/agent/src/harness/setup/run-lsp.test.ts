// A plugin language server's env values are the run's secrets, as an MCP server's are: what the
// run shows (notices, errors) hides them, started or not.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fakeLspServerCommand } from "@harness/test-utils";
import { runInProject, tempProject } from "../../testing/project.ts";

test("a failing hook's notice quoting a language server's env values shows them as ***, its plain values as they are", async (t) => {
  const project = await tempProject(t);
  const { command, args } = fakeLspServerCommand();
  const env = { LSP_API_TOKEN: "lsptok-s3cret-1", LICENSE: "lsplicense0s3cret0value2", MODE: "strict" };
  await project.write("plugins/kit/.claude-plugin/plugin.json", JSON.stringify({ name: "kit" }));
  await project.write("plugins/kit/.lsp.json", JSON.stringify({ fake: { command, args, env, extensionToLanguage: { ".ts": "typescript" } } }));
  const quoting = await project.hook("quote.sh", "cat > /dev/null\necho 'the token lsptok-s3cret-1 and the license lsplicense0s3cret0value2 were refused in strict mode' >&2\nexit 1");
  await project.settings({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: quoting }] }] } });
  const { events } = await runInProject(project, [{ text: "ok" }], { pluginDirs: [path.join(project.root, "plugins", "kit")] });

  const notices = events.flatMap((e) => (e.type === "notice" ? [e.message] : []));
  assert.ok(notices.some((n) => n.includes("the token *** and the license *** were refused in strict mode")), notices.join(" | "));
  assert.doesNotMatch(JSON.stringify(events), /s3cret/);
});
