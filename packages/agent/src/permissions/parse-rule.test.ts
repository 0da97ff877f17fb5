import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRule, ruleText, toPermissionRules } from "./parse-rule.ts";

test("tool-wide rules and rules with a specifier", () => {
  assert.deepEqual(parseRule("Bash"), { tool: "Bash" });
  assert.deepEqual(parseRule("  Bash(npm run test:*) "), { tool: "Bash", specifier: "npm run test:*" });
  assert.deepEqual(parseRule("Read(./src/**)"), { tool: "Read", specifier: "./src/**" });
  assert.deepEqual(parseRule("WebFetch(domain:example.com)"), { tool: "WebFetch", specifier: "domain:example.com" });
  assert.deepEqual(parseRule("mcp__github__get_issue"), { tool: "mcp__github__get_issue" });
  assert.deepEqual(parseRule("mcp__github__*"), { tool: "mcp__github__*" });
});

test("a registered tool's name is a rule; a built-in's in the wrong case, or a name of other characters, is not", () => {
  assert.deepEqual(parseRule("lookup_order"), { tool: "lookup_order" });
  assert.deepEqual(parseRule("get-weather"), { tool: "get-weather" });
  for (const text of ["bash", "webfetch", "task", "my tool", "1st", "mcp__"]) assert.ok("error" in parseRule(text), text);
});

test("empty parentheses and (*) mean every use", () => {
  assert.deepEqual(parseRule("Bash()"), { tool: "Bash" });
  assert.deepEqual(parseRule("Bash(*)"), { tool: "Bash" });
});

test("escaped parentheses are literal", () => {
  assert.deepEqual(parseRule("Bash(echo \\(hi\\))"), { tool: "Bash", specifier: "echo (hi)" });
  assert.equal(ruleText({ tool: "Bash", specifier: "echo (hi)" }), "Bash(echo \\(hi\\))");
});

test("bad rules are reported with what is wrong", () => {
  const error = (text: string) => {
    const parsed = parseRule(text);
    assert.ok("error" in parsed, `expected "${text}" to be rejected`);
    return parsed.error;
  };
  assert.match(error(""), /empty/);
  assert.match(error("bash(ls)"), /not a tool name.*uppercase/);
  assert.match(error("Bash(ls"), /closing parenthesis/);
  assert.match(error("Bash(npm:* test)"), /only works at the end/);
  assert.match(error("WebFetch(https://example.com)"), /domain:<host>/);
  assert.match(error("WebFetch(domain:)"), /domain:<host>/);
  assert.match(error("Read(.env:*)"), /only for Bash/);
  assert.match(error("mcp__github(x)"), /MCP rules take no parentheses/);
});

test("toPermissionRules keeps the base directory and source with each rule", () => {
  const { rules, errors } = toPermissionRules(["Edit(/src/**)", "nope("], { root: "/p", source: "/p/.claude/settings.json" });
  assert.deepEqual(rules, [{ tool: "Edit", specifier: "/src/**", text: "Edit(/src/**)", root: "/p", source: "/p/.claude/settings.json" }]);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].text, "nope(");
});
