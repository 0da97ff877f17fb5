import assert from "node:assert/strict";
import { test } from "node:test";
import { findImports } from "./markdown-imports.ts";

test("finds relative, home, absolute and bare imports in prose", () => {
  const text = "See @README.md for an overview.\n- git workflow @docs/git.md\n@~/.claude/mine.md\nAlso @/etc/team.md and @./local.md, @../up.md";
  assert.deepEqual(findImports(text), ["README.md", "docs/git.md", "~/.claude/mine.md", "/etc/team.md", "./local.md", "../up.md"]);
});

test("ignores fenced code blocks and inline code spans", () => {
  const text = [
    "Install with `npm i @types/node` first.",
    "```sh",
    "npm i @scope/pkg",
    "```",
    "~~~",
    "@inside-tilde.md",
    "~~~",
    "Use ``a `@nested` span`` too, then @real.md",
  ].join("\n");
  assert.deepEqual(findImports(text), ["real.md"]);
});

test("an unclosed fence hides the rest of the file; an unmatched backtick does not", () => {
  assert.deepEqual(findImports("@before.md\n```\n@after.md"), ["before.md"]);
  assert.deepEqual(findImports("a ` lone backtick @here.md"), ["here.md"]);
});

test("email addresses, decorations and fragments are handled", () => {
  assert.deepEqual(findImports("mail me@example.com, or @#channel, @@twice, @(x)"), []);
  assert.deepEqual(findImports("@guide.md#setup and @my\\ notes.md"), ["guide.md", "my notes.md"]);
});
