import assert from "node:assert/strict";
import { test } from "node:test";
import { instructionsLoadedFields } from "./instructions-loaded.ts";

const start = { reason: "session_start" } as const;

test("a memory file's scope is its memory_type; a directory above the project is the project's", () => {
  assert.deepEqual(instructionsLoadedFields({ path: "/home/u/.claude/CLAUDE.md", scope: "user", content: "x" }, start), { file_path: "/home/u/.claude/CLAUDE.md", memory_type: "User", load_reason: "session_start" });
  assert.equal(instructionsLoadedFields({ path: "/repo/CLAUDE.md", scope: "parent", content: "x" }, start)?.memory_type, "Project");
  assert.equal(instructionsLoadedFields({ path: "/p/CLAUDE.local.md", scope: "local", content: "x" }, start)?.memory_type, "Local");
});

test("an AGENTS.md read as such is not told of; one a CLAUDE.md imports is, as an include", () => {
  assert.equal(instructionsLoadedFields({ path: "/p/AGENTS.md", scope: "project", content: "x" }, start), undefined);
  assert.deepEqual(instructionsLoadedFields({ path: "/p/AGENTS.md", scope: "project", content: "x", importedFrom: "/p/CLAUDE.md" }, start), {
    file_path: "/p/AGENTS.md",
    memory_type: "Project",
    load_reason: "include",
    parent_file_path: "/p/CLAUDE.md",
  });
});

test("a file that joins later names the file whose use brought it in; a rule its paths brought in, them", () => {
  const later = { reason: "nested_traversal", trigger: "/p/src/api/x.ts" } as const;
  assert.deepEqual(instructionsLoadedFields({ path: "/p/.claude/rules/api.md", scope: "project", content: "x", globs: ["src/api/**"] }, later), {
    file_path: "/p/.claude/rules/api.md",
    memory_type: "Project",
    load_reason: "path_glob_match",
    globs: ["src/api/**"],
    trigger_file_path: "/p/src/api/x.ts",
  });
  assert.equal(instructionsLoadedFields({ path: "/p/src/CLAUDE.md", scope: "project", content: "x" }, later)?.load_reason, "nested_traversal");
});
