import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { discoverSkills } from "../skills/discover.ts";
import { discoverCommands } from "./discover.ts";
import { expandSlashCommand } from "./expand.ts";
import { slashCommandHelp } from "./help.ts";
import { writeHomeAndProject } from "../testing/home-and-project.ts";

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "commands-"));
});
after(() => rm(root, { recursive: true, force: true }));

let n = 0;
async function setup(files: Record<string, string>) {
  const { home, projectRoot } = await writeHomeAndProject(path.join(root, `c${++n}`), files);
  const { commands, diagnostics } = await discoverCommands({ home, projectRoot });
  const { skills } = await discoverSkills({ home, projectRoot });
  return { commands, diagnostics, skills, projectRoot };
}

describe("discoverCommands", () => {
  test("project and user commands, namespaced by subfolder; the user's wins on a clash", async () => {
    const s = await setup({
      "home/.claude/commands/review.md": "User review",
      "home/.claude/commands/mine.md": "---\ndescription: Mine only\n---\nDo my thing",
      "project/.claude/commands/review.md": "---\ndescription: Project review\nallowed-tools: Bash\n---\nReview",
      "project/.claude/commands/check.md": "---\ndescription: Review code\nargument-hint: <file>\nallowed-tools: Read, Grep\nmodel: claude-haiku\n---\nReview $ARGUMENTS",
      "project/.claude/commands/frontend/component.md": "# Create a component\nCreate component $0 in $1.",
      "project/.claude/commands/frontend/forms/field.md": "Field",
      "project/.claude/commands/notes.txt": "not a command",
    });
    assert.deepEqual(s.diagnostics, []);
    assert.deepEqual(
      s.commands.map((c) => [c.name, c.scope, c.description]),
      [
        ["check", "project", "Review code"],
        ["frontend:component", "project", "Create a component"],
        ["frontend:forms:field", "project", "Field"],
        ["mine", "user", "Mine only"],
        ["review", "user", "User review"],
      ],
    );
    assert.equal(expandSlashCommand("/review", s).prompt, "User review", "the user's /review, not the repository's");
    const review = s.commands.find((c) => c.name === "check")!;
    assert.deepEqual([review.argumentHint, review.allowedTools, review.model, review.body], ["<file>", ["Read", "Grep"], "claude-haiku", "Review $ARGUMENTS"]);
  });

  test("the argument hints of Claude Code's documented commands load as written, and so do their commands", async () => {
    const s = await setup({
      "project/.claude/commands/commit.md": "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\nargument-hint: [message]\ndescription: Create a git commit\n---\nCommit: $ARGUMENTS",
      "project/.claude/commands/review-pr.md": "---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Review pull request\nallowed-tools: [Read, Grep]\n---\nReview PR #$0",
      "project/.claude/commands/old.md": "---\ndescription: [WIP] Not finished\n---\nOld",
    });
    assert.deepEqual(s.diagnostics, []);
    assert.deepEqual(
      s.commands.map((c) => [c.name, c.argumentHint, c.description, c.allowedTools]),
      [
        ["commit", "[message]", "Create a git commit", ["Bash(git add:*)", "Bash(git status:*)"]],
        ["old", undefined, "[WIP] Not finished", undefined],
        ["review-pr", "[pr-number] [priority] [assignee]", "Review pull request", ["Read", "Grep"]],
      ],
    );
    assert.match(slashCommandHelp(s), /\/review-pr \[pr-number\] \[priority\] \[assignee\] — Review pull request/);
  });

  test("a link to a folder above is not followed; a link to another folder is", async () => {
    const { home, projectRoot } = await writeHomeAndProject(path.join(root, `c${++n}`), {
      "project/.claude/commands/deploy.md": "Deploy",
      "project/.claude/commands/team/lint.md": "Lint",
      "project/shared/release.md": "Release",
    });
    const dir = path.join(projectRoot, ".claude", "commands");
    symlinkSync(".", path.join(dir, "l0"));
    symlinkSync("..", path.join(dir, "team", "up"));
    symlinkSync(path.join(projectRoot, "shared"), path.join(dir, "shared"));
    const { commands, diagnostics } = await discoverCommands({ home, projectRoot });
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(commands.filter((c) => c.scope === "project").map((c) => c.name), ["deploy", "shared:release", "team:lint"]);
  });

  test("a command with broken frontmatter is skipped with a diagnostic", async () => {
    const s = await setup({ "project/.claude/commands/bad.md": "---\ndescription: [oops\n---\nbody", "project/.claude/commands/good.md": "ok" });
    assert.deepEqual(s.commands.map((c) => c.name), ["good"]);
    assert.equal(s.diagnostics.length, 1);
    assert.match(s.diagnostics[0]!.message, /Command \/bad skipped: invalid YAML/);
  });
});

describe("expandSlashCommand", () => {
  test("$ARGUMENTS and positional $0/$1 are substituted; model and allowed tools come along", async () => {
    const s = await setup({
      "project/.claude/commands/fix-issue.md": "---\nmodel: claude-opus\nallowed-tools: Bash(gh issue view:*)\n---\nFix issue #$0 with priority $1. Full request: $ARGUMENTS",
    });
    assert.deepEqual(expandSlashCommand("/fix-issue 123 high", s), {
      kind: "command",
      name: "fix-issue",
      prompt: "Fix issue #123 with priority high. Full request: 123 high",
      shellCommands: [],
      model: "claude-opus",
      allowedTools: ["Bash(gh issue view:*)"],
    });
  });

  test("namespaced commands; arguments appended when the body has no placeholder; @file left alone", async () => {
    const s = await setup({
      "project/.claude/commands/frontend/component.md": "Create a React component named $0.",
      "project/.claude/commands/explain.md": "Explain @src/app.ts simply.",
    });
    assert.equal(expandSlashCommand("/frontend:component Button", s).prompt, "Create a React component named Button.");
    const explain = expandSlashCommand("/explain  focus on the loop ", s);
    assert.equal(explain.kind, "command");
    assert.equal(explain.prompt, "Explain @src/app.ts simply.\n\nARGUMENTS: focus on the loop");
    assert.equal(expandSlashCommand("/explain", s).prompt, "Explain @src/app.ts simply.");
  });

  test("`!` shell commands are reported and left in the text, not run", async () => {
    const s = await setup({ "project/.claude/commands/commit.md": "Status: !`git status`\n\n```!\ngit diff HEAD\n```\nWrite a commit message." });
    const expansion = expandSlashCommand("/commit", s);
    assert.equal(expansion.kind, "command");
    if (expansion.kind !== "command") return;
    assert.deepEqual(expansion.shellCommands, ["git diff HEAD", "git status"]);
    assert.match(expansion.prompt, /Status: !`git status`/);
  });

  test("built-ins: /compact with instructions, /clear, /help — even when a custom command has the name", async () => {
    const s = await setup({ "project/.claude/commands/compact.md": "custom compact" });
    assert.deepEqual(expandSlashCommand("/compact keep the API decisions", s), { kind: "builtin", name: "compact", prompt: "keep the API decisions" });
    assert.deepEqual(expandSlashCommand("  /clear", s), { kind: "builtin", name: "clear", prompt: "" });
    assert.deepEqual(expandSlashCommand("/help", s), { kind: "builtin", name: "help", prompt: "" });
    assert.deepEqual(s.diagnostics.map((d) => [path.basename(d.file), d.message]), [["compact.md", "Command /compact is a built-in command; this file is never used. Rename it to use it."]]);
    assert.ok(!s.commands.some((c) => c.name === "compact"), "not listed either");
  });

  test("a user-invocable skill answers to /name with its base directory", async () => {
    const s = await setup({
      "project/.claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy\ndisable-model-invocation: true\nmodel: claude-haiku\n---\nDeploy to $0.",
      "project/.claude/skills/background/SKILL.md": "---\nname: background\ndescription: Knowledge\nuser-invocable: false\n---\nFacts.",
    });
    const expansion = expandSlashCommand("/deploy staging", s);
    assert.deepEqual(expansion, {
      kind: "skill",
      name: "deploy",
      prompt: `Base directory for this skill: ${path.join(s.projectRoot, ".claude", "skills", "deploy")}\n\nDeploy to staging.`,
      shellCommands: [],
      model: "claude-haiku",
    });
    assert.deepEqual(expandSlashCommand("/background", s), { kind: "none", name: "background", prompt: "/background" });
  });

  test("unknown commands, paths and ordinary text are sent as typed", async () => {
    const s = await setup({});
    assert.deepEqual(expandSlashCommand("/frobnicate now", s), { kind: "none", name: "frobnicate", prompt: "/frobnicate now" });
    assert.deepEqual(expandSlashCommand("/usr/bin/env is odd", s), { kind: "none", name: "", prompt: "/usr/bin/env is odd" });
    assert.deepEqual(expandSlashCommand("fix /compact handling", s), { kind: "none", name: "", prompt: "fix /compact handling" });
    assert.deepEqual(expandSlashCommand("/", s), { kind: "none", name: "", prompt: "/" });
  });
});

test("slashCommandHelp lists built-ins, commands and user-invocable skills", async () => {
  const s = await setup({
    "project/.claude/commands/review.md": "---\ndescription: Review code\nargument-hint: <file>\n---\nReview",
    "home/.claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDFs\n---\nx",
  });
  const help = slashCommandHelp(s);
  assert.match(help, /^Built-in commands:\n {2}\/compact \[instructions\] — /);
  assert.match(help, /Custom commands and skills:\n {2}\/pdf — PDFs \(user skill\)\n {2}\/review <file> — Review code \(project command\)$/);
});

test("/init is a built-in prompt for writing CLAUDE.md, listed by /help; a user's own /init replaces it", async () => {
  const bare = await setup({});
  const init = expandSlashCommand("/init the build scripts", bare);
  assert.equal(init.kind, "command");
  assert.match(init.kind === "command" ? init.prompt : "", /^Look through this repository and write a CLAUDE\.md at its root[\s\S]*\n\nFocus on: the build scripts$/);
  assert.match(slashCommandHelp(bare), /^ {2}\/init \[what to focus on\] — Write \(or improve\) a CLAUDE\.md/m);

  const own = await setup({ "project/.claude/commands/init.md": "---\ndescription: Our own init\n---\nSet up the dev database" });
  const mine = expandSlashCommand("/init", own);
  assert.equal(mine.kind === "command" ? mine.prompt : "", "Set up the dev database");
  const help = slashCommandHelp(own);
  assert.doesNotMatch(help, /Write \(or improve\) a CLAUDE\.md/);
  assert.match(help, /\/init — Our own init \(project command\)/);
});

test("/review and /security-review are built-in prompts that change no file", async () => {
  const bare = await setup({});
  const pr = expandSlashCommand("/review 123", bare);
  assert.match(pr.kind === "command" ? pr.prompt : "", /Which change: "123"\. For a pull request, read it with `gh pr view`/);
  const branch = expandSlashCommand("/review", bare);
  assert.match(branch.kind === "command" ? branch.prompt : "", /Which change: the current branch's changes\./);
  const security = expandSlashCommand("/security-review", bare);
  assert.match(security.kind === "command" ? security.prompt : "", /^Review the pending changes of this repository for security problems, and change no file\./);
  assert.match(slashCommandHelp(bare), /\/review \[pull request number or branch\] — [\s\S]*\/security-review — /);
});
