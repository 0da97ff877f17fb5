import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { tempWorkspace } from "../testing/fixtures.ts";
import { loadAgentDefinitions } from "./load-agents.ts";
import { parseAgentFile } from "./parse-agent-file.ts";

async function writeAgent(root: string, file: string, text: string): Promise<string> {
  const dir = path.join(root, ".claude", "agents");
  await fs.mkdir(dir, { recursive: true });
  const full = path.join(dir, file);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, text);
  return full;
}

test("agents load from the user and project directories, the project's replacing the user's by name", async (t) => {
  const home = await tempWorkspace(t);
  const project = await tempWorkspace(t);
  await writeAgent(home, "reviewer.md", "---\nname: reviewer\ndescription: User reviewer\n---\nYou review as the user likes.\n");
  await writeAgent(home, "tester.md", "---\nname: tester\ndescription: Writes tests\ntools: Read, Write, Bash\nmodel: haiku\n---\nYou write tests.\n");
  const projectFile = await writeAgent(
    project,
    "reviewer.md",
    "---\nname: reviewer\ndescription: Project reviewer\ntools:\n  - Read\n  - Grep\nmodel: claude-opus-4-1\npermissionMode: plan\nmaxTurns: 7\ncolor: blue\n---\n\nYou review code for this project.\n\nBe strict.\n",
  );
  await writeAgent(project, "notes.txt", "not an agent");

  const { agents, diagnostics } = await loadAgentDefinitions({ home, projectRoot: project });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    agents.map((a) => [a.name, a.source]),
    [
      ["general-purpose", "built-in"],
      ["Explore", "built-in"],
      ["Plan", "built-in"],
      ["reviewer", "project"],
      ["tester", "user"],
    ],
  );
  const reviewer = agents.find((a) => a.name === "reviewer");
  assert.deepEqual(reviewer, {
    name: "reviewer",
    description: "Project reviewer",
    systemPrompt: "You review code for this project.\n\nBe strict.",
    tools: ["Read", "Grep"],
    model: "claude-opus-4-1",
    permissionMode: "plan",
    maxTurns: 7,
    source: "project",
    file: projectFile,
  });
  const tester = agents.find((a) => a.name === "tester");
  assert.deepEqual(tester?.tools, ["Read", "Write", "Bash"]);
  assert.equal(tester?.model, "haiku");
});

test("a project agent can replace a built-in one, and built-ins can be left out", async (t) => {
  const home = await tempWorkspace(t);
  const project = await tempWorkspace(t);
  await writeAgent(project, "explore.md", "---\nname: Explore\ndescription: Our explorer\n---\nExplore our way.\n");
  const all = await loadAgentDefinitions({ home, projectRoot: project });
  const explore = all.agents.filter((a) => a.name === "Explore");
  assert.equal(explore.length, 1);
  assert.equal(explore[0].description, "Our explorer");
  assert.equal(explore[0].tools, undefined);

  const custom = await loadAgentDefinitions({ home, projectRoot: project, includeBuiltins: false });
  assert.deepEqual(custom.agents.map((a) => a.name), ["Explore"]);
});

test("bad agent files become diagnostics naming the file and key, and the good ones still load", async (t) => {
  const home = await tempWorkspace(t);
  const project = await tempWorkspace(t);
  const noName = await writeAgent(project, "a-no-name.md", "---\ndescription: Lacks a name\n---\nPrompt.\n");
  const badTools = await writeAgent(project, "b-bad-tools.md", "---\nname: bad-tools\ndescription: Tools is a number\ntools: 42\nmodel: [sonnet]\n---\nPrompt.\n");
  const badYaml = await writeAgent(project, "c-bad-yaml.md", "---\nname: broken\ndescription: [unclosed\n---\nPrompt.\n");
  const noFront = await writeAgent(project, "d-no-frontmatter.md", "Just a prompt, no frontmatter.\n");
  const badMode = await writeAgent(project, "e-bad-mode.md", "---\nname: e\ndescription: Mode\npermissionMode: yolo\nmaxTurns: 0\n---\nPrompt.\n");
  const spaced = await writeAgent(project, "f-spaced.md", "---\nname: code reviewer\ndescription: Has a space\n---\nPrompt.\n");
  const empty = await writeAgent(project, "g-empty-body.md", "---\nname: empty\ndescription: No prompt\n---\n\n");
  const unclosed = await writeAgent(project, "h-unclosed.md", "---\nname: open\ndescription: Never closed\nPrompt.\n");
  await writeAgent(project, "z-good.md", "---\nname: good\ndescription: Works\n---\nI work.\n");

  const { agents, diagnostics } = await loadAgentDefinitions({ home, projectRoot: project, includeBuiltins: false });
  assert.deepEqual(agents.map((a) => a.name), ["good"]);
  const find = (file: string, key?: string) => diagnostics.find((d) => d.file === file && d.key === key);

  assert.match(find(noName, "name")?.message ?? "", /name missing: every agent file needs a "name"/);
  assert.match(find(badTools, "tools")?.message ?? "", /tools must be a comma-separated list .* but got number 42/);
  assert.match(find(badTools, "model")?.message ?? "", /model must be sonnet, opus, haiku, inherit or a model id, but got a list/);
  assert.match(find(badYaml)?.message ?? "", /invalid YAML in the frontmatter/);
  assert.match(find(noFront)?.message ?? "", /no frontmatter/);
  assert.match(find(badMode, "permissionMode")?.message ?? "", /permissionMode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, but got string "yolo"/);
  assert.match(find(badMode, "maxTurns")?.message ?? "", /maxTurns must be at least 1/);
  assert.match(find(spaced, "name")?.message ?? "", /single word/);
  assert.match(find(empty)?.message ?? "", /no body/);
  assert.match(find(unclosed)?.message ?? "", /the frontmatter has no closing "---" line/);
});

test("two files of one directory with the same name: the first (by file name) wins, the second is reported", async (t) => {
  const home = await tempWorkspace(t);
  const project = await tempWorkspace(t);
  await writeAgent(project, "a.md", "---\nname: twin\ndescription: First\n---\nOne.\n");
  const second = await writeAgent(project, "b.md", "---\nname: twin\ndescription: Second\n---\nTwo.\n");
  const { agents, diagnostics } = await loadAgentDefinitions({ home, projectRoot: project, includeBuiltins: false });
  assert.deepEqual(agents.map((a) => a.description), ["First"]);
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0].file, second);
  assert.equal(diagnostics[0].key, "name");
});

test("missing agent directories are not an error", async (t) => {
  const home = await tempWorkspace(t);
  const { agents, diagnostics } = await loadAgentDefinitions({ home, projectRoot: path.join(home, "nowhere") });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(agents.map((a) => a.name), ["general-purpose", "Explore", "Plan"]);
});

test("a description with colons in it, as shared agent files often have, is read as text", () => {
  const text = "---\nname: helper\ndescription: Use this agent for X. Examples: <example>Context: the user asks</example>\ntools: Read, Grep\n---\nHelp.\n";
  const parsed = parseAgentFile(text, "/x/helper.md", "project");
  assert.ok(parsed.ok);
  assert.equal(parsed.agent.description, "Use this agent for X. Examples: <example>Context: the user asks</example>");
  assert.deepEqual(parsed.agent.tools, ["Read", "Grep"]);
});

test("tool lists: '*' and an absent key mean every tool, an empty list means none", () => {
  const parse = (tools: string) => parseAgentFile(`---\nname: a\ndescription: d\n${tools}\n---\nBody.\n`, "/a.md", "user");
  const star = parse('tools: "*"');
  const absent = parse("");
  const none = parse("tools: []");
  const denied = parse("disallowedTools: Bash, Write");
  assert.ok(star.ok && absent.ok && none.ok && denied.ok);
  assert.equal(star.agent.tools, undefined);
  assert.equal(absent.agent.tools, undefined);
  assert.deepEqual(none.agent.tools, []);
  assert.deepEqual(denied.agent.disallowedTools, ["Bash", "Write"]);
});

test("the lenient reading of colons keeps numbers as numbers", () => {
  const parsed = parseAgentFile("---\nname: a\ndescription: Use it: always\nmaxTurns: 5\n---\nBody.\n", "/a.md", "user");
  assert.ok(parsed.ok);
  assert.equal(parsed.agent.maxTurns, 5);
  assert.equal(parsed.agent.description, "Use it: always");
});

test("agents sorted into folders load too; hidden folders are not entered", async (t) => {
  const home = await tempWorkspace(t);
  const project = await tempWorkspace(t);
  await writeAgent(project, "review/security.md", "---\nname: security\ndescription: Checks for holes\n---\nLook for holes.\n");
  await writeAgent(project, "review/deep/perf.md", "---\nname: perf\ndescription: Finds slow code\n---\nMeasure.\n");
  await writeAgent(project, ".drafts/draft.md", "---\nname: draft\ndescription: Not yet\n---\nx\n");
  const { agents, diagnostics } = await loadAgentDefinitions({ home, projectRoot: project, includeBuiltins: false });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(agents.map((a) => a.name).sort(), ["perf", "security"]);
});

test("an agent file's bad Stop hook is named as the file says it (Stop), and a bad SubagentStop beside it is named too", () => {
  const command = "          command: ./check.sh\n";
  const parsed = parseAgentFile(
    `---\nname: a\ndescription: d\nhooks:\n  SubagentStop: oops\n  Stop:\n    - hooks:\n        - type: command\n${command}    - hooks:\n        - type: command\n---\nBody.\n`,
    "/a.md",
    "project",
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.warnings.map((w) => w.key), ["hooks.SubagentStop", "hooks.Stop[1].hooks[0].command"]);
  assert.deepEqual(parsed.agent.hooks, { Stop: [{ hooks: [{ type: "command", command: "./check.sh" }] }] }, "its good Stop hook is kept (as a sub-agent it runs as SubagentStop)");
});

test("an agent file's hooks of the main thread's events (SessionStart, UserPromptSubmit, SessionEnd, StopFailure) are kept, for when it runs as the main thread", () => {
  const group = "    - hooks:\n        - type: command\n          command: ./x.sh\n";
  const events = ["SessionStart", "UserPromptSubmit", "SessionEnd", "StopFailure", "PreToolUse"];
  const parsed = parseAgentFile(`---\nname: a\ndescription: d\nhooks:\n${events.map((e) => `  ${e}:\n${group}`).join("")}---\nBody.\n`, "/a.md", "project");
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.warnings, []);
  assert.deepEqual(Object.keys(parsed.agent.hooks ?? {}), events);
});
