import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { callMeetsIf, parseIfCondition } from "./if-condition.ts";
import { ifRule } from "./testing.ts";

const scope = { cwd: "/work/project", projectDir: "/work/project", home: "/home/me" };
const bash = (command: string) => ({ name: "Bash", input: { command } });
const meets = (condition: string, call: { name: string; input: Record<string, unknown> }) => callMeetsIf(ifRule(condition), call, scope);

describe("callMeetsIf: Bash", () => {
  const table: [string, string, boolean][] = [
    ["Bash(git *)", "git push", true],
    ["Bash(git *)", "FOO=bar git push", true],
    ["Bash(git *)", "npm test && git push", true],
    ["Bash(git *)", "echo $(git log)", true],
    ["Bash(git *)", "echo `git log`", true],
    ["Bash(git *)", "bash -c 'git push'", true],
    ["Bash(git *)", "echo $(date)", false],
    ["Bash(git *)", "gitk", false],
    ["Bash(git commit *)", "git commit -m x", true],
    ["Bash(git commit *)", "echo hi", false],
    ["Bash(git commit *)", "git status", false],
    ["Bash(git commit:*)", "cd sub && git commit -am fix", true],
    // A pattern naming more than the program cannot tell what $(…), backticks or $VAR spell.
    ["Bash(git push *)", "echo $(date)", true],
    ["Bash(git push *)", "git push $REMOTE", true],
    ["Bash(git push *)", "echo plain", false],
    // A program only known at run time, or a line that cannot be parsed, starts the hook.
    ["Bash(git *)", "$CMD push", true],
    ["Bash(git *)", "echo 'unclosed", true],
    ["Bash", "echo anything", true],
    ["Bash(*)", "echo anything", true],
  ];
  for (const [condition, command, expected] of table) {
    test(`${condition} ${expected ? "is" : "is not"} met by ${command}`, () => {
      assert.equal(meets(condition, bash(command)), expected);
    });
  }

  test("a Bash call with no command line meets any Bash rule", () => {
    assert.equal(meets("Bash(git *)", { name: "Bash", input: {} }), true);
  });
});

describe("callMeetsIf: other tools", () => {
  test("a path rule is met where the call's file matches, relative paths starting at the agent's cwd", () => {
    assert.equal(meets("Edit(*.ts)", { name: "Edit", input: { file_path: "/work/project/src/a.ts" } }), true);
    assert.equal(meets("Edit(*.ts)", { name: "Edit", input: { file_path: "src/a.ts" } }), true);
    assert.equal(meets("Edit(*.ts)", { name: "Edit", input: { file_path: "/work/project/src/a.js" } }), false);
    assert.equal(meets("Edit(src/**)", { name: "Edit", input: { file_path: "/work/project/src/deep/a.js" } }), true);
    assert.equal(meets("Edit(src/**)", { name: "Edit", input: { file_path: "/work/project/lib/a.js" } }), false);
  });

  test("one rule names one tool: Edit(…) is not met by Write, nor Bash(…) by anything but Bash", () => {
    assert.equal(meets("Edit(*.ts)", { name: "Write", input: { file_path: "/work/project/a.ts", content: "" } }), false);
    assert.equal(meets("Write(*.ts)", { name: "Write", input: { file_path: "/work/project/a.ts", content: "" } }), true);
    assert.equal(meets("Bash(git *)", { name: "Read", input: { file_path: "/work/project/git" } }), false);
    assert.equal(meets("Read", { name: "Bash", input: { command: "cat a" } }), false);
  });

  test("a tool name alone is met by every call of the tool; an MCP server's name by each of its tools", () => {
    assert.equal(meets("Read", { name: "Read", input: { file_path: "/anywhere" } }), true);
    assert.equal(meets("mcp__github", { name: "mcp__github__create_issue", input: {} }), true);
    assert.equal(meets("mcp__github__create_issue", { name: "mcp__github__list_issues", input: {} }), false);
    assert.equal(meets("Agent", { name: "Task", input: { subagent_type: "x" } }), true);
  });

  test("WebFetch and Task rules match as permission rules do", () => {
    assert.equal(meets("WebFetch(domain:example.com)", { name: "WebFetch", input: { url: "https://example.com/a" } }), true);
    assert.equal(meets("WebFetch(domain:example.com)", { name: "WebFetch", input: { url: "https://other.org/" } }), false);
    assert.equal(meets("Task(reviewer)", { name: "Task", input: { subagent_type: "Reviewer" } }), true);
    assert.equal(meets("Task(reviewer)", { name: "Task", input: { subagent_type: "planner" } }), false);
  });
});

const problemOf = (value: unknown) => {
  const parsed = parseIfCondition(value);
  return "problem" in parsed ? parsed.problem : undefined;
};

describe("parseIfCondition", () => {
  test("a rule that parses comes back with its text, trimmed, and its tool and specifier", () => {
    assert.deepEqual(parseIfCondition(" Bash(git commit *) "), { text: "Bash(git commit *)", rule: { tool: "Bash", specifier: "git commit *" } });
    assert.deepEqual(parseIfCondition("Edit(*.ts)"), { text: "Edit(*.ts)", rule: { tool: "Edit", specifier: "*.ts" } });
    assert.deepEqual(parseIfCondition("mcp__github"), { text: "mcp__github", rule: { tool: "mcp__github" } });
  });

  test("anything else is named with why", () => {
    assert.match(problemOf("Bash(git commit *") ?? "", /"Bash\(git commit \*" is not a permission rule: .*no closing parenthesis/);
    assert.match(problemOf("bash(git *)") ?? "", /is not a tool name/);
    assert.match(problemOf("Bash(git *) && Edit(*.ts)") ?? "", /holds more than one rule; an "if" takes one/);
    assert.match(problemOf("Bash(git *), Bash(npm *)") ?? "", /holds more than one rule/);
    assert.match(problemOf("") ?? "", /must be one permission rule .* got ""/);
    assert.match(problemOf(["Bash(git *)"]) ?? "", /must be one permission rule .* got \["Bash\(git \*\)"\]/);
  });
});
