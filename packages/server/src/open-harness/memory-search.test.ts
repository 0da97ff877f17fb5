import { test } from "node:test";
import assert from "node:assert/strict";
import { searchMemory } from "./memory-search.ts";

const block = (label: string, value: string) => ({ label, value, read_only: false, updated_at: "t", scope: "project" });

test("blocks holding the query in any case, the one holding it most first, quoting the lines that hold it", () => {
  const blocks = [
    block("CLAUDE.md", "# Project\nUse pnpm.\nRun TESTS with pnpm test."),
    block(".claude/rules/tests.md", "Tests first.\nNo tests skipped.\nTests are fast."),
    block("AGENTS.md", "Nothing here."),
  ];
  const results = searchMemory(blocks, [], "tests", 10);
  assert.deepEqual(results, [
    { source: "block", label: ".claude/rules/tests.md", content: "Tests first.\nNo tests skipped.\nTests are fast.", matches: 3, relevance_score: 1 },
    { source: "block", label: "CLAUDE.md", content: "Run TESTS with pnpm test.", matches: 1, relevance_score: 0.333 },
  ]);
  assert.equal(searchMemory(blocks, [], "tests", 1).length, 1);
  assert.deepEqual(searchMemory(blocks, [], "yarn", 10), []);
  assert.equal(searchMemory([block("CLAUDE.md", "a\nb")], [], "a\nb", 10)[0].content, "a\nb");
});

test("archive entries are searched after the blocks, named by their id, ranked with them", () => {
  const entries = [
    { id: "b", content: "Deploys go out on Tuesdays.\nDeploys need two approvals.", created_at: "2026-02-01T00:00:00.000Z" },
    { id: "a", content: "Nothing about it.", created_at: "2026-01-01T00:00:00.000Z" },
  ];
  assert.deepEqual(searchMemory([block("CLAUDE.md", "Deploy from main.")], entries, "deploy", 10), [
    { source: "archive", id: "b", content: "Deploys go out on Tuesdays.\nDeploys need two approvals.", matches: 2, relevance_score: 1 },
    { source: "block", label: "CLAUDE.md", content: "Deploy from main.", matches: 1, relevance_score: 0.5 },
  ]);
});
