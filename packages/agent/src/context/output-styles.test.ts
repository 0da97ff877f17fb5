import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_SYSTEM_PROMPT } from "../system-prompt.ts";
import { systemText } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";

const notices = (events: { type: string; message?: string }[]) => events.filter((e) => e.type === "notice").map((e) => e.message ?? "");

test("a built-in output style keeps the coding instructions, drops the answering rules and adds its own text at the end", async (t) => {
  const project = await tempProject(t);
  await project.settings({ outputStyle: "explanatory" });
  const { provider } = await runInProject(project, [{ text: "ok" }]);
  const system = systemText(provider.requests[0]);
  assert.match(system, /# How to work\n/);
  assert.match(system, /# Git\n/);
  assert.match(system, /# Using tools\n/);
  assert.doesNotMatch(system, /# How to answer\n/);
  assert.match(system, /# Output style: Explanatory\nBesides doing the task, help the user understand the code\./);
  assert.ok(system.indexOf("# Output style") > system.indexOf("# Git"), "the style comes after the default's sections");
});

test("a custom output style from .claude/output-styles replaces the coding instructions unless it keeps them; the project's wins over the user's", async (t) => {
  const project = await tempProject(t);
  await project.writeHome(".claude/output-styles/writer.md", "---\nname: Writer\n---\nUSER-WRITER-STYLE");
  await project.write(".claude/output-styles/writer.md", "---\ndescription: Helps with prose\n---\nYou help the user write clear English prose. PROJECT-WRITER-STYLE");
  await project.settings({ outputStyle: "Writer" }, "local");
  const { provider } = await runInProject(project, [{ text: "ok" }]);
  const system = systemText(provider.requests[0]);
  assert.match(system, /# Output style: writer\nYou help the user write clear English prose\. PROJECT-WRITER-STYLE/);
  assert.doesNotMatch(system, /USER-WRITER-STYLE/);
  assert.doesNotMatch(system, /# How to work|# Git|# How to answer/);
  assert.match(system, /# Instructions from the user and the project/, "where instructions come from stays");

  await project.write(".claude/output-styles/writer.md", "---\nkeep-coding-instructions: true\n---\nPROJECT-WRITER-STYLE");
  const kept = systemText((await runInProject(project, [{ text: "ok" }])).provider.requests[0]);
  assert.match(kept, /# How to work\n[\s\S]*# Git\n[\s\S]*# Output style: writer\nPROJECT-WRITER-STYLE/);
});

test("an output style that does not exist, or a broken one, is a warning and the default prompt is used", async (t) => {
  const project = await tempProject(t);
  await project.write(".claude/output-styles/broken.md", "---\nname: [unclosed\n---\nBROKEN-STYLE");
  await project.settings({ outputStyle: "Pirate" });
  const missing = await runInProject(project, [{ text: "ok" }]);
  assert.ok(systemText(missing.provider.requests[0]).startsWith(BASE_SYSTEM_PROMPT));
  assert.ok(
    notices(missing.events).some((m) => /outputStyle.*no output style is named "Pirate" \(there are: Default, Explanatory, Learning, Proactive\); the default style is used/.test(m)),
    notices(missing.events).join("\n"),
  );
  assert.ok(notices(missing.events).some((m) => /broken\.md: invalid YAML in the frontmatter.*this output style is not used/.test(m)));

  await project.settings({ outputStyle: 7 });
  const wrongType = await runInProject(project, [{ text: "ok" }]);
  assert.ok(systemText(wrongType.provider.requests[0]).startsWith(BASE_SYSTEM_PROMPT));
  assert.ok(notices(wrongType.events).some((m) => /outputStyle/.test(m)), notices(wrongType.events).join("\n"));

  await project.settings({ outputStyle: "default" });
  const chosenDefault = await runInProject(project, [{ text: "ok" }]);
  assert.ok(systemText(chosenDefault.provider.requests[0]).startsWith(BASE_SYSTEM_PROMPT));
  assert.ok(!notices(chosenDefault.events).some((m) => /outputStyle/.test(m)));
});

test("a system prompt the run gives replaces the style too", async (t) => {
  const project = await tempProject(t);
  await project.settings({ outputStyle: "Proactive" });
  const { provider } = await runInProject(project, [{ text: "ok" }], { systemPrompt: "OWN-PROMPT" });
  const system = systemText(provider.requests[0]);
  assert.ok(system.startsWith("OWN-PROMPT"));
  assert.doesNotMatch(system, /Output style/);
});
