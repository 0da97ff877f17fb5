// What managed settings lock, as in Claude Code: bypassPermissions, hooks of other scopes, and
// permission rules of other scopes.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";

const managed = (project: TempProject, settings: object) => project.writeHome("managed-settings.json", JSON.stringify(settings));
const notices = (events: AgentEvent[]) => events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message);

test("disableBypassPermissionsMode: a run asked for bypassPermissions asks as in default mode, and cannot be switched to it", async (t) => {
  const project = await tempProject(t);
  await managed(project, { permissions: { disableBypassPermissionsMode: "disable" } });
  const { result, events } = await runInProject(project, [{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "touch made.txt" } }] }, { text: "done" }], { permissionMode: "bypassPermissions" });
  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.exists("made.txt"), false, "with nobody to approve, default mode refuses the command");
  assert.ok(notices(events).some((m) => /bypassPermissions is turned off by the settings/.test(m)), notices(events).join("\n"));
});

test("allowManagedHooksOnly: only the managed settings' hooks run", async (t) => {
  const project = await tempProject(t);
  const projectHook = await project.hook("mark.sh", `touch "$CLAUDE_PROJECT_DIR/project-hook-ran"`);
  await project.settings({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: projectHook }] }] } });
  await managed(project, { allowManagedHooksOnly: true, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch "${project.root}/managed-hook-ran"` }] }] } });
  await runInProject(project, [{ text: "hi" }]);
  assert.equal(await project.exists("managed-hook-ran"), true);
  assert.equal(await project.exists("project-hook-ran"), false);
});

test("allowManagedHooksOnly: a project's disableAllHooks does not silence the managed hooks", async (t) => {
  const project = await tempProject(t);
  await project.settings({ disableAllHooks: true });
  await managed(project, { allowManagedHooksOnly: true, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch "${project.root}/managed-hook-ran"` }] }] } });
  await runInProject(project, [{ text: "hi" }]);
  assert.equal(await project.exists("managed-hook-ran"), true);
});

test("a project's or user's disableAllHooks turns off their hooks but not the managed settings' hooks", async (t) => {
  const project = await tempProject(t);
  const projectHook = await project.hook("mark.sh", `touch "$CLAUDE_PROJECT_DIR/project-hook-ran"`);
  await project.settings({ disableAllHooks: true, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: projectHook }] }] } });
  await project.settings({ disableAllHooks: true }, "user");
  await managed(project, { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch "${project.root}/managed-hook-ran"` }] }] } });
  await runInProject(project, [{ text: "hi" }]);
  assert.equal(await project.exists("managed-hook-ran"), true);
  assert.equal(await project.exists("project-hook-ran"), false);
});

test("the managed settings' disableAllHooks turns off every hook, the managed ones included", async (t) => {
  const project = await tempProject(t);
  const projectHook = await project.hook("mark.sh", `touch "$CLAUDE_PROJECT_DIR/project-hook-ran"`);
  await project.settings({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: projectHook }] }] } });
  await managed(project, { disableAllHooks: true, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch "${project.root}/managed-hook-ran"` }] }] } });
  await runInProject(project, [{ text: "hi" }]);
  assert.equal(await project.exists("managed-hook-ran"), false);
  assert.equal(await project.exists("project-hook-ran"), false);
});

test("allowManagedPermissionRulesOnly: a skill's or a command's allowed-tools add no rule either", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/skills/helper/SKILL.md", "---\nname: helper\ndescription: helps\nallowed-tools: Bash\n---\nDo it.");
  await project.write(".claude/commands/go.md", "---\nallowed-tools: Bash\n---\nGo.");
  await managed(project, { allowManagedPermissionRulesOnly: true, permissions: { allow: ["Bash(echo:*)"] } });
  await runInProject(project, [
    { toolCalls: [{ id: "s1", name: "Skill", input: { skill: "helper" } }] },
    { toolCalls: [{ id: "b1", name: "Bash", input: { command: "touch made.txt" } }] },
    { text: "done" },
  ]);
  assert.equal(await project.exists("made.txt"), false);
  await runInProject(project, [{ toolCalls: [{ id: "b2", name: "Bash", input: { command: "touch command.txt" } }] }, { text: "done" }], { prompt: "/go" });
  assert.equal(await project.exists("command.txt"), false);
});

test("allowManagedPermissionRulesOnly: the other scopes' rules do not count", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { allow: ["Bash(touch:*)"] } });
  await managed(project, { allowManagedPermissionRulesOnly: true, permissions: { allow: ["Bash(echo:*)"] } });
  const { provider } = await runInProject(project, [
    {
      toolCalls: [
        { id: "toolu_touch", name: "Bash", input: { command: "touch made.txt" } },
        { id: "toolu_echo", name: "Bash", input: { command: "echo allowed" } },
      ],
    },
    { text: "done" },
  ]);
  assert.equal(await project.exists("made.txt"), false);
  assert.match(JSON.stringify(provider.requests[1].messages), /allowed/);
});

test("allowManagedPermissionRulesOnly: the run's allowed tools (--allowedTools) add no rule; its disallowed tools still refuse", async (t) => {
  const project = await tempProject(t);
  await managed(project, { allowManagedPermissionRulesOnly: true, permissions: { allow: ["Bash(echo:*)"] } });
  const { provider, events } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_touch", name: "Bash", input: { command: "touch made.txt" } },
          { id: "toolu_echo", name: "Bash", input: { command: "echo refused-too" } },
        ],
      },
      { text: "done" },
    ],
    { rules: { allow: ["Bash(touch:*)"], deny: ["Bash(echo refused-too)"] } },
  );
  assert.equal(await project.exists("made.txt"), false);
  assert.doesNotMatch(JSON.stringify(provider.requests[1].messages), /"refused-too\\n"/);
  assert.ok(notices(events).some((m) => /allowed tools .*allowManagedPermissionRulesOnly/.test(m)), notices(events).join("\n"));
});
