import assert from "node:assert/strict";
import { test } from "node:test";
import { parseArguments, substituteArguments } from "./arguments.ts";
import { releaseArguments } from "../commands/shell-syntax.ts";
import { parseFrontmatter } from "../frontmatter.ts";
import { toolListField } from "./frontmatter-fields.ts";

test("parseArguments splits like a shell, keeps $VAR literal", () => {
  assert.deepEqual(parseArguments(`SearchBar "search bar" 'it''s' a\\ b $HOME`), ["SearchBar", "search bar", "its", "a b", "$HOME"]);
  assert.deepEqual(parseArguments("   "), []);
  assert.deepEqual(parseArguments(`say "hi`), ["say", `"hi`], "unbalanced quotes: plain split");
  assert.deepEqual(parseArguments(`x "" y`), ["x", "", "y"]);
});

test("$ARGUMENTS, $ARGUMENTS[N] and $N (from 0), named arguments; missing ones are empty", () => {
  const body = "Migrate $0 from $1 to $2 ($ARGUMENTS[0]); all: $ARGUMENTS; missing: [$5]";
  assert.equal(substituteArguments(body, 'SearchBar React "Vue 3"'), 'Migrate SearchBar from React to Vue 3 (SearchBar); all: SearchBar React "Vue 3"; missing: []');
  assert.equal(substituteArguments("Fix $issue on $branch-x, not $issues", "42 hotfix", { names: ["issue", "branch"] }), "Fix 42 on hotfix-x, not $issues");
});

test("a body without placeholders gets the arguments appended; none when there are no arguments", () => {
  assert.equal(substituteArguments("Review the code.\n", "src/app.ts"), "Review the code.\n\nARGUMENTS: src/app.ts");
  assert.equal(substituteArguments("Review the code.", ""), "Review the code.");
  assert.equal(substituteArguments("Review the code.", "x", { appendIfNoPlaceholder: false }), "Review the code.");
  assert.equal(substituteArguments("Cost: $ARGUMENTS", "$1 $&"), "Cost: $1 $&", "replacement text is taken literally");
});

test("an argument goes in as typed: a placeholder in it is not substituted again", () => {
  assert.equal(substituteArguments("Fix $issue on $branch", "'$branch' main", { names: ["issue", "branch"] }), "Fix $branch on main");
  assert.equal(substituteArguments("First: $0", "'$ARGUMENTS' x"), "First: $ARGUMENTS");
  assert.equal(substituteArguments("First: $ARGUMENTS[0], then $1", "'$1' x"), "First: $1, then x");
  assert.equal(substituteArguments("Log ${CLAUDE_SESSION_ID}: $ARGUMENTS", "${CLAUDE_SESSION_ID}", { values: { CLAUDE_SESSION_ID: "s-1" } }), "Log s-1: ${CLAUDE_SESSION_ID}");
  assert.equal(substituteArguments("Log ${CLAUDE_SESSION_ID}.", "x", { values: { CLAUDE_SESSION_ID: "s-1" } }), "Log s-1.\n\nARGUMENTS: x", "a value is not an argument's placeholder");
});

test("an argument held for a body's ! commands comes back whole, private-use characters included", () => {
  const args = "a \uE000b\uE001 \uE000\uE001 `c`\nd \uE002";
  assert.equal(releaseArguments(substituteArguments("!`echo $ARGUMENTS` $0", args, { hold: true })), `!\`echo ${args}\` a`);
  assert.doesNotMatch(substituteArguments("$ARGUMENTS", args, { hold: true }), /[`\n]/);
});

test("parseFrontmatter: none, empty, CRLF, not a mapping", () => {
  assert.deepEqual(parseFrontmatter("plain"), { ok: true, data: {}, body: "plain", present: false });
  assert.deepEqual(parseFrontmatter("---\n---\nbody"), { ok: true, data: {}, body: "body", present: true });
  assert.deepEqual(parseFrontmatter("\uFEFF---\r\ndescription: d\r\n---\r\nbody"), { ok: true, data: { description: "d" }, body: "body", present: true });
  const list = parseFrontmatter("---\n- a\n---\nbody");
  assert.equal(list.ok, false);
});

test("parseFrontmatter: values that are not YAML on their own are text; a flow list over several lines is kept", () => {
  const front = parseFrontmatter("---\nname: x\ntools: [Read,\n  Grep]\nargument-hint: [a] [b]\ndescription: *bold* claim: yes\n---\nbody");
  assert.deepEqual(front, { ok: true, data: { name: "x", tools: ["Read", "Grep"], "argument-hint": "[a] [b]", description: "*bold* claim: yes" }, body: "body", present: true });
});

test("named arguments: the longest name wins where one is a prefix of another", () => {
  assert.equal(substituteArguments("$old-name → $new-name ($old)", "A B C", { names: ["old", "old-name", "new-name"] }), "B → C (A)");
});

test("allowed-tools: list, comma-separated or space-separated; rules keep their inner separators", () => {
  assert.deepEqual(toolListField({ t: "Bash(git add:*), Bash(npm run build) , Read" }, "t"), { value: ["Bash(git add:*)", "Bash(npm run build)", "Read"] });
  assert.deepEqual(toolListField({ t: "Read Grep Bash(git status:*)" }, "t"), { value: ["Read", "Grep", "Bash(git status:*)"] });
  assert.deepEqual(toolListField({ t: ["Read", " Write "] }, "t"), { value: ["Read", "Write"] });
  assert.deepEqual(toolListField({ t: 3 }, "t"), { error: "t must be a list of tool names" });
});
