// A machine's managed settings that cannot be read or parsed stop the run (Claude Code fails
// closed): the administrator's policy does not silently stop applying.
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { runInProject, tempProject } from "../../testing/project.ts";

test("a run whose managed settings are not valid JSON ends in an error naming the file, before any model call or tool", async (t) => {
  const project = await tempProject(t);
  const managed = await project.writeHome("managed-settings.json", '{"permissions": {"deny": ["Bash"]},}');
  await project.settings({ permissions: { allow: ["Bash"] } }, "user");
  const { result, provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "touch made.txt" } }] }, { text: "done" }], {
    permissionMode: "bypassPermissions",
  });
  assert.equal(result.stopReason, "error");
  assert.ok(result.errorMessage?.includes(managed), result.errorMessage);
  assert.match(result.errorMessage!, /invalid JSON/);
  assert.equal(provider.requests.length, 0);
  assert.equal(await project.exists("made.txt"), false);
});

test("a run whose managed settings cannot be read (a directory in the file's place) ends in an error naming the file", async (t) => {
  const project = await tempProject(t);
  const managed = path.join(project.home, "managed-settings.json");
  await fs.mkdir(managed);
  await fs.writeFile(path.join(managed, "x"), "");
  const { result, provider } = await runInProject(project, [{ text: "done" }]);
  assert.equal(result.stopReason, "error");
  assert.ok(result.errorMessage?.includes(managed), result.errorMessage);
  assert.equal(provider.requests.length, 0);
});
