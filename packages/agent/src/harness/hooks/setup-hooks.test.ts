// The hooks a run's set-up keeps, in one table: which scopes' hooks run under the managed settings'
// locks (disableAllHooks, allowManagedHooksOnly) and a user's or project's disableAllHooks; whether
// skills' and agent files' hooks stay; what /hooks lists; and the http hooks allowedHttpHookUrls
// leaves out, each said once.
import assert from "node:assert/strict";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { tempProject, type TempProject } from "../../testing/project.ts";
import { createAgentResources } from "../resources.ts";
import { loadRunSetup, type RunSetup } from "../setup/setup.ts";

const hook = (command: string) => ({ UserPromptSubmit: [{ hooks: [{ type: "command", command }] }] });
const frontmatterHook = (command: string) => `hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: ${command}\n`;

/** A project with a hook in the managed, user and project settings, a skill and an agent file with
 * one each; `settings` adds to each scope's. */
async function hookedProject(t: TestContext, settings: { managed?: object; user?: object; project?: object } = {}): Promise<TempProject> {
  const project = await tempProject(t);
  await project.writeHome("managed-settings.json", JSON.stringify({ hooks: hook("managed"), ...settings.managed }));
  await project.settings({ hooks: hook("user"), ...settings.user }, "user");
  await project.settings({ hooks: hook("project"), ...settings.project });
  await project.write(".claude/skills/guard/SKILL.md", `---\ndescription: Guard\n${frontmatterHook("skill")}---\nBe careful.\n`);
  await project.write(".claude/agents/reviewer.md", `---\nname: reviewer\ndescription: Reviews\n${frontmatterHook("agent")}---\nReview.\n`);
  return project;
}

async function setUp(t: TestContext, project: TempProject): Promise<{ setup: RunSetup; notices: string[] }> {
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const notices: string[] = [];
  const setup = await loadRunSetup(
    { prompt: "p", cwd: project.root, home: project.home, managedSettingsPath: path.join(project.home, "managed-settings.json"), signal: new AbortController().signal, emit: () => {} },
    resources,
    (_level, message) => notices.push(message),
  );
  if ("refused" in setup) assert.fail(setup.refused);
  return { setup, notices };
}

/** What of the set-up the hooks' restriction decides. */
async function reach(t: TestContext, settings: Parameters<typeof hookedProject>[1]) {
  const { setup } = await setUp(t, await hookedProject(t, settings));
  const commands = (setup.hooks.UserPromptSubmit ?? []).flatMap((group) => group.hooks.map((h) => (h.type === "command" ? h.command : h.type)));
  return {
    commands,
    listed: setup.inventory.hookFiles.length,
    restricted: setup.inventory.hooksRestricted,
    skillHooks: setup.skills.find((skill) => skill.name === "guard")?.hooks !== undefined,
    agentHooks: setup.agents.find((agent) => agent.name === "reviewer")?.hooks !== undefined,
  };
}

test("with no lock every scope's hooks run, and skills' and agent files' hooks stay", async (t) => {
  assert.deepEqual(await reach(t, {}), { commands: ["user", "project", "managed"], listed: 3, restricted: undefined, skillHooks: true, agentHooks: true });
});

test("the managed settings' disableAllHooks stops every hook, and /hooks says so", async (t) => {
  assert.deepEqual(await reach(t, { managed: { disableAllHooks: true } }), { commands: [], listed: 0, restricted: "all", skillHooks: false, agentHooks: false });
});

test("allowManagedHooksOnly keeps the managed settings' hooks only; skills' and agent files' hooks go", async (t) => {
  assert.deepEqual(await reach(t, { managed: { allowManagedHooksOnly: true } }), { commands: ["managed"], listed: 1, restricted: "managed", skillHooks: false, agentHooks: false });
});

test("a project's disableAllHooks leaves the managed settings' hooks running, and no skill's or agent file's", async (t) => {
  assert.deepEqual(await reach(t, { project: { disableAllHooks: true } }), { commands: ["managed"], listed: 1, restricted: "managed", skillHooks: false, agentHooks: false });
});

test("a managed disableAllHooks: false over a project's true lets every hook run", async (t) => {
  assert.deepEqual(await reach(t, { managed: { disableAllHooks: false }, project: { disableAllHooks: true } }), {
    commands: ["user", "project", "managed"],
    listed: 3,
    restricted: undefined,
    skillHooks: true,
    agentHooks: true,
  });
});

test("allowedHttpHookUrls holds the hooks that run and those /hooks lists; each hook left out is said once", async (t) => {
  const project = await tempProject(t);
  const http = (url: string) => ({ type: "http", url });
  await project.writeHome("managed-settings.json", JSON.stringify({ allowedHttpHookUrls: ["https://ok.example/*"], httpHookAllowedEnvVars: ["TOKEN"] }));
  await project.settings({ hooks: { Stop: [{ hooks: [http("https://ok.example/user"), http("https://no.example/user")] }] } }, "user");
  await project.settings({
    hooks: {
      Stop: [{ hooks: [http("https://no.example/project"), { type: "command", command: "echo kept" }] }],
      PreToolUse: [{ matcher: "Bash", hooks: [{ ...http("https://ok.example/pre"), allowedEnvVars: ["TOKEN", "SECRET"] }] }],
    },
  });
  const { setup, notices } = await setUp(t, project);

  const shown = (config: RunSetup["hooks"]) => Object.entries(config).map(([event, groups]) => [event, groups!.flatMap((group) => group.hooks.map((h) => (h.type === "http" ? `${h.url} ${h.allowedEnvVars ?? ""}` : h.type)))]);
  assert.deepEqual(shown(setup.hooks), [
    ["Stop", ["https://ok.example/user ", "command"]],
    ["PreToolUse", ["https://ok.example/pre TOKEN"]],
  ]);
  assert.deepEqual(
    setup.inventory.hookFiles.map(({ file, config }) => [path.basename(path.dirname(path.dirname(file))), shown(config)]),
    [
      [path.basename(project.home), [["Stop", ["https://ok.example/user "]]]],
      [path.basename(project.root), [["Stop", ["command"]], ["PreToolUse", ["https://ok.example/pre TOKEN"]]]],
    ],
  );
  const left = notices.filter((message) => /is left out: allowedHttpHookUrls/.test(message));
  assert.deepEqual(left.sort(), ["project", "user"].map((name) => `The Stop http hook to https://no.example/${name} is left out: allowedHttpHookUrls does not list its URL.`));
});
