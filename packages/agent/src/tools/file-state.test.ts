import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { tempWorkspace } from "../testing/fixtures.ts";
import { editTool } from "./edit.ts";
import { MODIFIED_MESSAGE, NOT_READ_MESSAGE } from "./file-state.ts";
import { multiEditTool } from "./multi-edit.ts";
import { readTool } from "./read.ts";
import { createToolState } from "./state.ts";
import { callWithState } from "./test-helpers.ts";
import { writeTool } from "./write.ts";

async function setup(t: TestContext, content = "alpha\nbeta\ngamma\n") {
  const cwd = await tempWorkspace(t);
  const file = path.join(cwd, "notes.txt");
  await fs.writeFile(file, content);
  const state = createToolState();
  const call = (tool: typeof readTool, input: Record<string, unknown>) => callWithState(tool, input, cwd, state);
  return { cwd, file, state, call, read: () => fs.readFile(file, "utf8") };
}

test("Edit, MultiEdit and Write refuse an existing file that was not read", async (t) => {
  const { call, read } = await setup(t);
  const edit = await call(editTool, { file_path: "notes.txt", old_string: "beta", new_string: "BETA" });
  assert.deepEqual(edit, { content: NOT_READ_MESSAGE, isError: true });
  const multi = await call(multiEditTool, { file_path: "notes.txt", edits: [{ old_string: "beta", new_string: "BETA" }] });
  assert.deepEqual(multi, { content: NOT_READ_MESSAGE, isError: true });
  const write = await call(writeTool, { file_path: "notes.txt", content: "replaced\n" });
  assert.deepEqual(write, { content: NOT_READ_MESSAGE, isError: true });
  assert.equal(await read(), "alpha\nbeta\ngamma\n");
  assert.equal(NOT_READ_MESSAGE, "File has not been read yet. Read it first before writing to it.");
});

test("After a Read, edits go through, and each successful write counts as the latest read", async (t) => {
  const { call, read } = await setup(t);
  await call(readTool, { file_path: "notes.txt", offset: 2, limit: 1 });
  assert.equal((await call(editTool, { file_path: "notes.txt", old_string: "beta", new_string: "BETA" })).isError, undefined);
  assert.equal((await call(editTool, { file_path: "notes.txt", old_string: "gamma", new_string: "GAMMA" })).isError, undefined);
  assert.equal((await call(multiEditTool, { file_path: "notes.txt", edits: [{ old_string: "alpha", new_string: "ALPHA" }] })).isError, undefined);
  assert.equal((await call(writeTool, { file_path: "notes.txt", content: (await read()) + "delta\n" })).isError, undefined);
  assert.equal(await read(), "ALPHA\nBETA\nGAMMA\ndelta\n");
});

test("A file changed on disk since it was read is refused until it is read again", async (t) => {
  const { call, read, file } = await setup(t);
  await call(readTool, { file_path: "notes.txt" });
  await fs.writeFile(file, "alpha\nbeta (changed by the user)\ngamma\n");
  const edit = await call(editTool, { file_path: "notes.txt", old_string: "gamma", new_string: "GAMMA" });
  assert.deepEqual(edit, { content: MODIFIED_MESSAGE, isError: true });
  const write = await call(writeTool, { file_path: "notes.txt", content: "clobbered\n" });
  assert.deepEqual(write, { content: MODIFIED_MESSAGE, isError: true });
  assert.match(MODIFIED_MESSAGE, /^File has been modified since read.*Read it again/);
  assert.equal(await read(), "alpha\nbeta (changed by the user)\ngamma\n");

  await call(readTool, { file_path: "notes.txt" });
  assert.equal((await call(editTool, { file_path: "notes.txt", old_string: "gamma", new_string: "GAMMA" })).isError, undefined);
  assert.equal(await read(), "alpha\nbeta (changed by the user)\nGAMMA\n");
});

test("A file whose time changed but whose content did not may still be edited", async (t) => {
  const { call, read, file } = await setup(t);
  await call(readTool, { file_path: "notes.txt" });
  const later = new Date(Date.now() + 60_000);
  await fs.utimes(file, later, later);
  assert.equal((await call(editTool, { file_path: "notes.txt", old_string: "beta", new_string: "BETA" })).isError, undefined);
  assert.equal(await read(), "alpha\nBETA\ngamma\n");
});

test("New files need no read, and nothing is checked without a tool state", async (t) => {
  const { call, read, cwd } = await setup(t);
  assert.equal((await call(writeTool, { file_path: "fresh/new.txt", content: "new\n" })).content, "Created fresh/new.txt (1 line).");
  assert.equal((await call(editTool, { file_path: "other.txt", old_string: "", new_string: "x" })).content, "Created other.txt.");
  // Having written them, the agent may change them again without reading.
  assert.equal((await call(editTool, { file_path: "fresh/new.txt", old_string: "new", new_string: "newer" })).isError, undefined);
  assert.equal(await fs.readFile(path.join(cwd, "fresh/new.txt"), "utf8"), "newer\n");

  const stateless = await callWithState(editTool, { file_path: "notes.txt", old_string: "beta", new_string: "B" }, cwd, undefined);
  assert.equal(stateless.isError, undefined);
  assert.equal(await read(), "alpha\nB\ngamma\n");
});

test("Edits of one file in the same reply run one after the other and both land", async (t) => {
  const { call, read } = await setup(t);
  await call(readTool, { file_path: "notes.txt" });
  const results = await Promise.all([
    call(editTool, { file_path: "notes.txt", old_string: "alpha", new_string: "ALPHA" }),
    call(editTool, { file_path: "notes.txt", old_string: "gamma", new_string: "GAMMA" }),
    call(multiEditTool, { file_path: "notes.txt", edits: [{ old_string: "beta", new_string: "BETA" }] }),
  ]);
  assert.deepEqual(results.map((r) => r.isError), [undefined, undefined, undefined]);
  assert.equal(await read(), "ALPHA\nBETA\nGAMMA\n");
});
