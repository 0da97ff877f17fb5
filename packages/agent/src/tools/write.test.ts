import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { writeTool } from "./write.ts";

test("Write creates missing parent directories and says the file was created", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(writeTool, { file_path: "deep/er/new.txt", content: "one\ntwo\n" }, cwd);
  assert.deepEqual(out, { content: "Created deep/er/new.txt (2 lines)." });
  assert.equal(await fs.readFile(path.join(cwd, "deep/er/new.txt"), "utf8"), "one\ntwo\n");
});

test("Write to a directory that cannot be made fails with the reason (under /proc it used to hang)", { skip: process.platform !== "linux" }, async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(writeTool, { file_path: "/proc/harness-nowhere/below/a.txt", content: "x" }, cwd);
  assert.equal(out.isError, true);
  assert.match(out.content, /ENOENT.*\/proc\/harness-nowhere/);
});

test("Write replaces an existing file and says it was overwritten", async (t) => {
  const cwd = await tempWorkspace(t);
  const file = path.join(cwd, "a.txt");
  await fs.writeFile(file, "old content that is longer");
  const out = await callTool(writeTool, { file_path: file, content: "new" }, cwd);
  assert.deepEqual(out, { content: "Overwrote a.txt (1 line)." });
  assert.equal(await fs.readFile(file, "utf8"), "new");
});

test("Write refuses a directory and reports bad arguments", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.mkdir(path.join(cwd, "dir"));
  const dir = await callTool(writeTool, { file_path: "dir", content: "x" }, cwd);
  assert.equal(dir.isError, true);
  assert.match(dir.content, /dir is a directory/);
  const slash = await callTool(writeTool, { file_path: "out/", content: "x" }, cwd);
  assert.equal(slash.isError, true);
  assert.match(slash.content, /^out\/ ends with a slash/);
  await assert.rejects(fs.stat(path.join(cwd, "out")), "nothing was written");

  const missing = await callTool(writeTool, { file_path: "a.txt" }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /missing required parameter "content"/);
});
