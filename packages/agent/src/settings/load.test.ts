import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { decide } from "../permissions/decide.ts";
import { tempWorkspace } from "../testing/fixtures.ts";
import { permissionContext } from "./context.ts";
import { loadSettings } from "./load.ts";
import { validateSettings } from "./validate.ts";

type Layout = { user?: unknown; project?: unknown; local?: unknown; managed?: unknown };

/** A home directory, a project and a managed settings path with the given files (objects are
 * written as JSON, strings as they are). */
async function setup(t: TestContext, files: Layout) {
  const dir = await tempWorkspace(t);
  const home = path.join(dir, "home");
  const project = path.join(dir, "project");
  const managedPath = path.join(dir, "etc", "managed-settings.json");
  const paths = {
    user: path.join(home, ".claude", "settings.json"),
    project: path.join(project, ".claude", "settings.json"),
    local: path.join(project, ".claude", "settings.local.json"),
    managed: managedPath,
  };
  await fs.mkdir(project, { recursive: true });
  for (const [scope, content] of Object.entries(files)) {
    const file = paths[scope as keyof typeof paths];
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return { home, project, managedPath, paths, load: () => loadSettings({ cwd: project, home, managedPath }) };
}

test("missing files are fine: empty settings, no diagnostics", async (t) => {
  const env = await setup(t, {});
  const loaded = await env.load();
  assert.deepEqual(loaded.settings, {});
  assert.deepEqual(loaded.sources, []);
  assert.deepEqual(loaded.diagnostics, []);
  assert.deepEqual(loaded.permissions, { allow: [], ask: [], deny: [], additionalDirectories: [] });
});

test("each scope is read from its own file", async (t) => {
  const env = await setup(t, {
    user: { model: "user-model" },
    project: { env: { FROM: "project" } },
    local: { enableAllProjectMcpServers: true },
    managed: { permissions: { deny: ["Bash(curl:*)"] } },
  });
  const loaded = await env.load();
  assert.deepEqual(
    loaded.sources.map((s) => [s.scope, s.path]),
    [["user", env.paths.user], ["project", env.paths.project], ["local", env.paths.local], ["managed", env.paths.managed]],
  );
  assert.deepEqual(loaded.settings, {
    model: "user-model",
    env: { FROM: "project" },
    enableAllProjectMcpServers: true,
    permissions: { deny: ["Bash(curl:*)"] },
  });
});

test("merge: managed > local > project > user for values; lists concatenate without duplicates", async (t) => {
  const env = await setup(t, {
    user: { model: "u", env: { A: "user", B: "user" }, permissions: { allow: ["Bash(ls:*)", "Read"], defaultMode: "plan" }, hooks: { Stop: [{ hooks: [{ type: "command", command: "u" }] }] } },
    project: { model: "p", env: { B: "project", C: "project" }, permissions: { allow: ["Read", "Bash(npm test:*)"], defaultMode: "acceptEdits" }, hooks: { Stop: [{ hooks: [{ type: "command", command: "p" }] }] } },
    local: { model: "l", env: { C: "local" }, hooks: { Stop: [{ hooks: [{ type: "command", command: "p" }] }], PreToolUse: [{ matcher: "Bash", hooks: [] }] } },
    managed: { env: { D: "managed" }, permissions: { deny: ["Bash(rm:*)"] } },
  });
  const { settings } = await env.load();
  assert.equal(settings.model, "l");
  assert.deepEqual(settings.env, { A: "user", B: "project", C: "local", D: "managed" });
  assert.deepEqual(settings.permissions, { allow: ["Bash(ls:*)", "Read", "Bash(npm test:*)"], defaultMode: "acceptEdits", deny: ["Bash(rm:*)"] });
  assert.deepEqual(settings.hooks, {
    Stop: [{ hooks: [{ type: "command", command: "u" }] }, { hooks: [{ type: "command", command: "p" }] }],
    PreToolUse: [{ matcher: "Bash", hooks: [] }],
  });
});

test("managed settings win over every other scope", async (t) => {
  const env = await setup(t, { local: { model: "local", permissions: { defaultMode: "bypassPermissions" } }, managed: { model: "managed", permissions: { defaultMode: "default" } } });
  const loaded = await env.load();
  assert.equal(loaded.settings.model, "managed");
  assert.equal(loaded.permissions.defaultMode, "default");
});

test("invalid JSON: a diagnostic with the position, the file skipped, other scopes still load", async (t) => {
  const env = await setup(t, { user: { model: "u" }, project: '{\n  "model": "p",\n  "env": { "A": }\n}' });
  const loaded = await env.load();
  assert.equal(loaded.settings.model, "u");
  assert.deepEqual(loaded.sources.map((s) => s.scope), ["user"]);
  assert.equal(loaded.diagnostics.length, 1);
  assert.equal(loaded.diagnostics[0].file, env.paths.project);
  assert.equal(loaded.diagnostics[0].key, undefined);
  assert.match(loaded.diagnostics[0].message, /invalid JSON.*line 3 column 17/);
});

test("a trailing comma is reported with its line", async (t) => {
  const env = await setup(t, { local: '{\n  "model": "x",\n}\n' });
  const [diagnostic] = (await env.load()).diagnostics;
  assert.match(diagnostic.message, /invalid JSON.*line 3/);
});

test("an invalid key is dropped with a diagnostic naming it; the rest of the file loads", async (t) => {
  const env = await setup(t, {
    project: {
      model: "p",
      permissions: { allow: ["Bash(npm test:*)", "Read", 5, "bash(ls)"], defaultMode: "yolo", deny: "Bash(rm:*)" },
      env: { GOOD: "1", BAD: 2 },
      hooks: { PreToolUse: [{ matcher: "Bash" }, { matcher: "Edit", hooks: [] }] },
      enableAllProjectMcpServers: "yes",
      somethingNew: { kept: true },
    },
  });
  const loaded = await env.load();
  const byKey = Object.fromEntries(loaded.diagnostics.map((d) => [d.key, d.message]));
  assert.ok(loaded.diagnostics.every((d) => d.file === env.paths.project));
  assert.equal(byKey["permissions.allow[2]"], "expected string, got number 5");
  assert.match(byKey["permissions.allow[3]"], /"bash" is not a tool name/);
  assert.match(byKey["permissions.defaultMode"], /expected one of "default", "acceptEdits".*got "yolo"/);
  assert.match(byKey["permissions.deny"], /expected array, got the string "Bash\(rm:\*\)"/);
  assert.equal(byKey["env.BAD"], "expected string, got number 2");
  assert.equal(byKey["hooks.PreToolUse[0]"], '"hooks" must be a list of hooks, got nothing; the group is left out');
  assert.match(byKey.enableAllProjectMcpServers, /expected boolean/);
  assert.equal(loaded.diagnostics.length, 7);

  assert.deepEqual(loaded.settings, {
    model: "p",
    permissions: { allow: ["Bash(npm test:*)", "Read"] },
    env: { GOOD: "1" },
    hooks: { PreToolUse: [{ matcher: "Edit", hooks: [] }] },
    somethingNew: { kept: true },
  });
  assert.deepEqual(loaded.permissions.allow.map((r) => r.text), ["Bash(npm test:*)", "Read"]);
});

test("a file that is not an object is reported and ignored; an empty file is empty settings", async (t) => {
  const env = await setup(t, { user: "[1, 2]", project: "" });
  const loaded = await env.load();
  assert.deepEqual(loaded.diagnostics, [{ file: env.paths.user, message: "expected a JSON object, got an array" }]);
  assert.deepEqual(loaded.settings, {});
});

test("projectRoot decides where project and local settings are read", async (t) => {
  const env = await setup(t, { project: { model: "root" } });
  const sub = path.join(env.project, "packages", "app");
  await fs.mkdir(sub, { recursive: true });
  const fromSub = await loadSettings({ cwd: sub, home: env.home });
  assert.equal(fromSub.settings.model, undefined);
  const withRoot = await loadSettings({ cwd: sub, projectRoot: env.project, home: env.home });
  assert.equal(withRoot.settings.model, "root");
});

test("rules keep their base directory: project root for project rules, ~/.claude for user rules", async (t) => {
  const env = await setup(t, {
    user: { permissions: { allow: ["Read(/agents/**)", "Bash(npm test:*)"] } },
    project: { permissions: { allow: ["Edit(/src/**)", "Bash(npm test:*)"], additionalDirectories: ["../shared", "~/notes"] } },
  });
  const loaded = await env.load();
  assert.deepEqual(
    loaded.permissions.allow.map((r) => [r.text, r.root]),
    [
      ["Read(/agents/**)", path.join(env.home, ".claude")],
      ["Bash(npm test:*)", path.join(env.home, ".claude")],
      ["Edit(/src/**)", env.project],
      ["Bash(npm test:*)", env.project],
    ],
  );
  assert.equal(loaded.permissions.allow[2].source, env.paths.project);
  assert.deepEqual(loaded.permissions.additionalDirectories, [path.join(path.dirname(env.project), "shared"), path.join(env.home, "notes")]);

  const sub = path.join(env.project, "pkg");
  const ctx = permissionContext(loaded, { cwd: sub, home: env.home });
  assert.equal(ctx.mode, "default");
  const editSrc = decide({ name: "Edit", input: { file_path: path.join(env.project, "src", "a.ts") } }, ctx);
  assert.equal(editSrc.behavior, "allow");
  assert.equal(editSrc.rule, "Edit(/src/**)");
  assert.equal(decide({ name: "Edit", input: { file_path: path.join(sub, "src", "a.ts") } }, ctx).behavior, "ask");
  assert.equal(decide({ name: "Read", input: { file_path: path.join(env.home, ".claude", "agents", "x.md") } }, ctx).behavior, "allow");
  assert.equal(decide({ name: "Read", input: { file_path: path.join(env.home, "notes", "todo.md") } }, ctx).behavior, "allow");
});

test("the client's mode overrides defaultMode from settings", async (t) => {
  const env = await setup(t, { project: { permissions: { defaultMode: "acceptEdits" } } });
  const loaded = await env.load();
  assert.equal(permissionContext(loaded, { cwd: env.project, home: env.home }).mode, "acceptEdits");
  assert.equal(permissionContext(loaded, { cwd: env.project, home: env.home, mode: "plan" }).mode, "plan");
});

test("a hook group with a matcher or hook list of the wrong kind is dropped whole, with one message; variables no program can take are dropped", () => {
  const { settings, diagnostics } = validateSettings(
    {
      hooks: {
        PreToolUse: [
          { matcher: ["Bash"], hooks: [{ type: "command", command: "exit 2" }] },
          { matcher: "Write", hooks: [{ type: "command", command: "echo ok" }] },
        ],
        Stop: [{ hooks: "echo done" }],
      },
      env: { GOOD: "1", BAD: "a\0b", "A=B": "x" },
    },
    "/p/.claude/settings.json",
  );
  assert.deepEqual(settings.hooks, { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "echo ok" }] }], Stop: [] });
  assert.deepEqual(settings.env, { GOOD: "1" });
  assert.deepEqual(
    diagnostics.map((d) => `${d.key}: ${d.message}`),
    [
      'hooks.PreToolUse[0]: "matcher" must be a string, got an array; the group is left out',
      'hooks.Stop[0]: "hooks" must be a list of hooks, got the string "echo done"; the group is left out',
      "env.BAD: an environment variable's value must not hold a NUL character",
      `env["A=B"]: an environment variable's name must not be empty or hold "=" or a NUL character`,
    ],
  );
});

test("a settings file nested thousands of levels deep is skipped with a message naming it; the others load", async (t) => {
  const env = await setup(t, { user: { model: "u" } });
  await fs.mkdir(path.dirname(env.paths.project), { recursive: true });
  await fs.writeFile(env.paths.project, `{"model":"deep","x":${"[".repeat(3000)}${"]".repeat(3000)}}`);
  const loaded = await env.load();
  assert.equal(loaded.settings.model, "u");
  assert.deepEqual(loaded.diagnostics.map((d) => [d.file, d.message]), [[env.paths.project, "the JSON nests more than 100 levels deep"]]);
});

test("a project's settings cannot turn approvals off: bypassPermissions there is dropped and said; the user's still counts", async (t) => {
  const env = await setup(t, {
    project: { permissions: { defaultMode: "bypassPermissions", allow: ["Bash(npm test:*)"] } },
    local: { permissions: { defaultMode: "bypassPermissions" } },
  });
  const loaded = await env.load();
  assert.equal(loaded.permissions.defaultMode, undefined);
  assert.equal(loaded.settings.permissions?.defaultMode, undefined);
  assert.deepEqual(loaded.permissions.allow.map((r) => r.text), ["Bash(npm test:*)"], "the rest of the file still holds");
  assert.deepEqual(loaded.diagnostics.map((d) => [d.file, d.key]), [[env.paths.project, "permissions.defaultMode"], [env.paths.local, "permissions.defaultMode"]]);
  assert.match(loaded.diagnostics[0].message, /"bypassPermissions" is ignored in a project's settings/);
  const ctx = permissionContext(loaded, { cwd: env.project, home: env.home });
  assert.equal(ctx.mode, "default");
  assert.equal(decide({ name: "Bash", input: { command: "rm -rf build" } }, ctx).behavior, "ask");

  const project = await setup(t, { project: { permissions: { defaultMode: "acceptEdits" } }, user: { permissions: { defaultMode: "bypassPermissions" } } });
  assert.equal((await project.load()).permissions.defaultMode, "acceptEdits", "other modes a project may choose");
  const user = await setup(t, { user: { permissions: { defaultMode: "bypassPermissions" } } });
  assert.equal((await user.load()).permissions.defaultMode, "bypassPermissions");
});

test("a settings file with rules by the hundred thousand loads, its bad entries each reported", async (t) => {
  const allow = Array.from({ length: 200_000 }, (_, i) => `Bash(tool-${i}:*)`);
  const env = await setup(t, { user: { permissions: { allow, deny: Array(150_000).fill(42) } } });
  const loaded = await env.load();
  assert.equal(loaded.permissions.allow.length, 200_000);
  assert.ok(loaded.diagnostics.length >= 1, "the numbers among the deny rules are reported");
});

for (const [what, content, problem] of [
  ["not valid JSON", '{"permissions": {"deny": ["Bash"]},}', /invalid JSON/],
  ["not an object", '["Bash"]', /expected a JSON object/],
] as const) {
  test(`a managed settings file that is ${what} is a policy problem that names it; the other scopes still load`, async (t) => {
    const env = await setup(t, { managed: content, user: { permissions: { allow: ["Bash"] } } });
    const loaded = await env.load();
    assert.ok(loaded.policyProblem, "the broken policy is said");
    assert.ok(loaded.policyProblem.includes(env.managedPath), loaded.policyProblem);
    assert.match(loaded.policyProblem, problem);
    assert.deepEqual(loaded.permissions.allow.map((rule) => rule.text), ["Bash"]);
  });
}

test("a managed settings file that parses, even with a malformed key, or none at all, is no policy problem", async (t) => {
  const env = await setup(t, { managed: { permissions: { deny: "Bash" } } });
  assert.equal((await env.load()).policyProblem, undefined);
  const none = await setup(t, {});
  assert.equal((await none.load()).policyProblem, undefined);
});

test("a project that is the home directory: ~/.claude/settings.json is read once, as the user's settings", async (t) => {
  const env = await setup(t, {
    user: { permissions: { defaultMode: "bypassPermissions", deny: ["Read(/secrets/**)"] }, hooks: { Stop: [{ hooks: [{ type: "command", command: "echo stop" }] }] } },
  });
  await fs.mkdir(path.join(env.home, ".claude"), { recursive: true });
  await fs.writeFile(path.join(env.home, ".claude", "settings.local.json"), JSON.stringify({ model: "local" }));
  const loaded = await loadSettings({ cwd: env.home, home: env.home });
  assert.deepEqual(
    loaded.sources.map((s) => [s.scope, s.path]),
    [["user", env.paths.user], ["local", path.join(env.home, ".claude", "settings.local.json")]],
  );
  assert.deepEqual(loaded.diagnostics, [], "the user's bypassPermissions is no project's");
  assert.equal(loaded.permissions.defaultMode, "bypassPermissions");
  assert.deepEqual(loaded.permissions.deny.map((r) => [r.text, r.root]), [["Read(/secrets/**)", path.join(env.home, ".claude")]]);
  assert.equal(loaded.settings.hooks?.Stop?.length, 1);
  assert.equal(loaded.settings.model, "local");
  // The same through another name for the home directory.
  const linked = path.join(path.dirname(env.home), "home-link");
  await fs.symlink(env.home, linked);
  const viaLink = await loadSettings({ cwd: linked, home: env.home });
  assert.deepEqual(viaLink.sources.map((s) => s.scope), ["user", "local"]);
});

test("availableModels: the scopes' lists join, but a managed list is the allowlist, which no other scope widens", async (t) => {
  const joined = await setup(t, { user: { availableModels: ["sonnet"] }, project: { availableModels: ["haiku", "sonnet"] }, local: { model: "haiku" } });
  assert.deepEqual((await joined.load()).availableModels, ["sonnet", "haiku"]);
  const managed = await setup(t, { user: { availableModels: ["opus"] }, local: { availableModels: ["opus"] }, managed: { availableModels: ["claude-haiku-4-5"] } });
  assert.deepEqual((await managed.load()).availableModels, ["claude-haiku-4-5"]);
  assert.equal((await (await setup(t, { user: { model: "opus" } })).load()).availableModels, undefined, "no list, no limit");
});

test("an availableModels that is not a list of model names is a diagnostic naming the file; in the managed settings the run does not start", async (t) => {
  const env = await setup(t, { user: { availableModels: "sonnet" }, project: { availableModels: ["sonnet", 4, " "] } });
  const loaded = await env.load();
  const said = loaded.diagnostics.map((d) => `${d.file} ${d.key}: ${d.message}`);
  assert.deepEqual(said, [
    `${env.paths.user} availableModels: expected array, got the string "sonnet"`,
    `${env.paths.project} availableModels[1]: expected string, got number 4`,
    `${env.paths.project} availableModels[2]: a model name must not be empty`,
  ]);
  assert.equal(loaded.policyProblem, undefined);
  const managed = await setup(t, { managed: { availableModels: { sonnet: true } } });
  const refused = await managed.load();
  assert.equal(refused.policyProblem, `the managed settings ${managed.managedPath}: availableModels: expected array, got an object; a run does not start without the machine's policy`);
});
