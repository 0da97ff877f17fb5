import assert from "node:assert/strict";
import { test } from "node:test";
import { tempProject } from "../../testing/project.ts";
import { slashCommandsBeforeStart, slashCommandUsageBeforeStart } from "./before-start.ts";

test("before a run starts, the names it will take after / are the built-ins, the user's and the project's commands, the skills a user may invoke and a plugin's", async (t) => {
  const project = await tempProject(t);
  await project.writeHome(".claude/commands/standup.md", "Write my standup.");
  await project.write(".claude/commands/deploy.md", "---\ndescription: Deploy to staging\n---\nDeploy.");
  await project.write(".claude/commands/release/notes.md", "Draft the notes.");
  await project.write(".claude/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint the code\n---\nLint.");
  await project.write(".claude/skills/hidden/SKILL.md", "---\nname: hidden\ndescription: Only for the model\nuser-invocable: false\n---\nHidden.");
  await project.write("dev/tools/commands/hi.md", "Say hi.");
  const names = await slashCommandsBeforeStart({ cwd: project.root, home: project.home, pluginDirs: ["dev/tools"] });
  for (const name of ["help", "compact", "clear", "context", "cost", "init", "review", "standup", "deploy", "release:notes", "lint", "tools:hi"]) assert.ok(names.includes(name), `${name} in ${names.join(" ")}`);
  assert.ok(!names.includes("hidden"), "a skill the user may not invoke is left out");
  assert.deepEqual(names, [...new Set(names)].sort(), "sorted, each once");
});

test("a project whose settings cannot be read still has the built-ins and its commands", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/settings.json", "{ not json");
  await project.write(".claude/commands/deploy.md", "Deploy.");
  const names = await slashCommandsBeforeStart({ cwd: project.root, home: project.home });
  assert.ok(names.includes("help") && names.includes("deploy"), names.join(" "));
});

test("before a run starts, the argument hints of the commands and skills that have one are known by name", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/commands/deploy.md", "---\nargument-hint: [env] [--dry-run]\n---\nDeploy.");
  await project.write(".claude/commands/plain.md", "Plain.");
  await project.write(".claude/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint the code\nargument-hint: <path>\n---\nLint.");
  const { names, hints } = await slashCommandUsageBeforeStart({ cwd: project.root, home: project.home });
  assert.ok(names.includes("deploy") && names.includes("plain"), names.join(" "));
  assert.deepEqual(Object.fromEntries(hints), { deploy: "[env] [--dry-run]", lint: "<path>" });
});
