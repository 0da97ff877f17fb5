import { test } from "node:test";
import assert from "node:assert/strict";
import { agentAsLoaded, agentFileText, changedAgentText, EntryName, yamlScalar } from "./agent-files.ts";

test("a file made from fields reads back, through the runs' loader, as those fields, whatever their text", async () => {
  for (const description of ["Reviews code", "Use when: the user asks", "true", "- a list?", "quotes \" and 'single' # not a comment", "two\nlines", "ünïcode ✓", " padded "]) {
    const text = agentFileText({ name: "reviewer", description, systemPrompt: "Review.\n\n---\nMore.", model: "claude-haiku-4-5", tools: ["Read", "Bash(git diff:*)"], skills: ["lint"] });
    const agent = await agentAsLoaded(text, "reviewer.md");
    assert.deepEqual([agent.name, agent.description, agent.systemPrompt, agent.model, agent.tools, agent.skills], ["reviewer", description.trim(), "Review.\n\n---\nMore.", "claude-haiku-4-5", ["Read", "Bash(git diff:*)"], ["lint"]], description);
  }
  assert.equal(yamlScalar("plain words"), "plain words");
  assert.equal(yamlScalar("yes"), '"yes"');
});

test("a change of frontmatter keys keeps the file's other keys, comments and body", async () => {
  const text = "---\n# who it is\nname: reviewer\ndescription: >\n  Reviews code\n  carefully\ntools:\n- Read\n- Grep\ncolor: blue\n---\nThe prompt.\n";
  const changed = changedAgentText(text, { name: "critic", description: "Criticises", model: "haiku" });
  assert.equal(changed, "---\n# who it is\nname: critic\ndescription: Criticises\ntools:\n- Read\n- Grep\ncolor: blue\nmodel: haiku\n---\nThe prompt.\n");
  const agent = await agentAsLoaded(changed, "critic.md");
  assert.deepEqual([agent.name, agent.description, agent.tools, agent.model, agent.systemPrompt], ["critic", "Criticises", ["Read", "Grep"], "haiku", "The prompt."]);
  assert.equal(changedAgentText(text, { systemPrompt: "New one." }).endsWith("color: blue\n---\n\nNew one.\n"), true);
});

test("what the loader would not read is refused naming why; names are single words", async () => {
  await assert.rejects(agentAsLoaded("---\nname: x\n---\nBody.", "x.md"), /would not load as written: description missing/);
  for (const bad of ["", "a/b", "..", "a..b", ".x", "x".repeat(65), "a b", "k:x"]) assert.equal(EntryName.safeParse(bad).success, false, JSON.stringify(bad));
  for (const good of ["code-reviewer", "Explore2", "a.b_c"]) assert.equal(EntryName.safeParse(good).success, true, good);
});
