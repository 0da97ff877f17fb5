// An http hook's header values are the run's secrets: what its notices show hides them, as it does
// an MCP server's headers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runInProject, tempProject } from "../../testing/project.ts";

test("a failing hook's notice quoting an http hook's header values shows them as ***, its plain headers as they are", async (t) => {
  const project = await tempProject(t);
  const quoting = await project.hook("quote.sh", "cat > /dev/null\necho 'the key hookkey-s3cret-1 and the bearer hookbearer0s3cret0token2 were refused for text/plain' >&2\nexit 1");
  const http = { type: "http", url: "http://127.0.0.1:9/hook", headers: { "X-Api-Key": "hookkey-s3cret-1", "X-Forward": "hookbearer0s3cret0token2", Accept: "text/plain" } };
  await project.settings({ hooks: { Stop: [{ hooks: [http] }], UserPromptSubmit: [{ hooks: [{ type: "command", command: quoting }] }] } });
  const { events } = await runInProject(project, [{ text: "ok" }]);

  const notices = events.flatMap((e) => (e.type === "notice" ? [e.message] : []));
  assert.ok(notices.some((n) => n.includes("the key *** and the bearer *** were refused for text/plain")), notices.join(" | "));
  assert.doesNotMatch(JSON.stringify(events), /s3cret/);
});
