import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { tempWorkspace } from "../../testing/fixtures.ts";
import { NOT_READ_MESSAGE } from "../file-state.ts";
import { notebookEditTool } from "./notebook-edit.ts";
import { readTool } from "../read.ts";
import { createToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";

type Cell = { cell_type: string; id?: string; source: string | string[]; outputs?: unknown[]; execution_count?: number | null; metadata?: object };

async function setup(t: TestContext, cells: Cell[], minor = 5) {
  const cwd = await tempWorkspace(t);
  const file = path.join(cwd, "nb.ipynb");
  await fs.writeFile(file, JSON.stringify({ nbformat: 4, nbformat_minor: minor, metadata: { kernelspec: { name: "python3" } }, cells }));
  const state = createToolState();
  const call = (input: Record<string, unknown>) => callWithState(notebookEditTool, { notebook_path: "nb.ipynb", ...input }, cwd, state);
  await callWithState(readTool, { file_path: "nb.ipynb" }, cwd, state);
  const load = async () => JSON.parse(await fs.readFile(file, "utf8")) as { cells: Cell[]; metadata: object; nbformat_minor: number };
  return { cwd, file, state, call, load };
}

const cells: Cell[] = [
  { cell_type: "markdown", id: "title", metadata: {}, source: "# Analysis" },
  { cell_type: "code", id: "load", metadata: {}, source: ["import pandas\n", "df = load()"], execution_count: 1, outputs: [{ output_type: "stream", name: "stdout", text: "ok\n" }] },
];

test("NotebookEdit replaces a cell's source, clearing a code cell's outputs, and keeps the rest of the notebook", async (t) => {
  const { call, load, file } = await setup(t, cells);
  const out = await call({ cell_id: "load", new_source: "df = load(fast=True)" });
  assert.deepEqual(out, { content: "Updated cell load of nb.ipynb." });
  const nb = await load();
  assert.deepEqual(nb.cells[1], { cell_type: "code", id: "load", metadata: {}, source: ["df = load(fast=True)"], execution_count: null, outputs: [] });
  assert.deepEqual(nb.cells[0], cells[0]);
  assert.deepEqual(nb.metadata, { kernelspec: { name: "python3" } });
  assert.ok((await fs.readFile(file, "utf8")).endsWith("}\n"));

  await call({ cell_id: "load", new_source: "a = 1\nb = 2\n" });
  assert.deepEqual((await load()).cells[1].source, ["a = 1\n", "b = 2\n"], "a list of lines, each with its newline");
  const retyped = await call({ cell_id: "load", new_source: "Now *markdown*", cell_type: "markdown" });
  assert.equal(retyped.isError, undefined);
  assert.deepEqual((await load()).cells[1], { cell_type: "markdown", id: "load", metadata: {}, source: ["Now *markdown*"] });
});

test("NotebookEdit inserts after a cell or at the start, and deletes cells", async (t) => {
  const { call, load } = await setup(t, cells);
  const after = await call({ cell_id: "title", new_source: "x = 1", cell_type: "code", edit_mode: "insert" });
  assert.match(after.content, /^Inserted code cell [0-9a-f]{8} after cell title of nb\.ipynb\.$/);
  const first = await call({ new_source: "Intro", cell_type: "markdown", edit_mode: "insert" });
  assert.match(first.content, /^Inserted markdown cell [0-9a-f]{8} at the start of nb\.ipynb\.$/);
  let nb = await load();
  assert.deepEqual(nb.cells.map((c) => c.source), [["Intro"], "# Analysis", ["x = 1"], ["import pandas\n", "df = load()"]]);
  assert.deepEqual({ ...nb.cells[2], id: "" }, { cell_type: "code", id: "", metadata: {}, source: ["x = 1"], execution_count: null, outputs: [] });

  const deleted = await call({ cell_id: "title", new_source: "", edit_mode: "delete" });
  assert.deepEqual(deleted, { content: "Deleted cell title from nb.ipynb." });
  nb = await load();
  assert.deepEqual(nb.cells.map((c) => c.source), [["Intro"], ["x = 1"], ["import pandas\n", "df = load()"]]);
});

test("NotebookEdit names cells without ids by position and gives old notebooks no ids", async (t) => {
  const { call, load } = await setup(t, cells.map(({ id: _id, ...cell }) => cell), 4);
  assert.deepEqual(await call({ cell_id: "cell-1", new_source: "print(2)" }), { content: "Updated cell cell-1 of nb.ipynb." });
  const inserted = await call({ cell_id: "cell-0", new_source: "y", cell_type: "markdown", edit_mode: "insert" });
  assert.deepEqual(inserted, { content: "Inserted markdown cell cell-1 after cell cell-0 of nb.ipynb." });
  const nb = await load();
  assert.deepEqual(nb.cells.map((c) => [c.id, c.source]), [[undefined, "# Analysis"], [undefined, ["y"]], [undefined, ["print(2)"]]]);
});

test("NotebookEdit explains what is wrong with a call", async (t) => {
  const { call, cwd, load } = await setup(t, cells);
  const unknown = await call({ cell_id: "nope", new_source: "x" });
  assert.deepEqual(unknown, { content: 'No cell with id "nope" in nb.ipynb. The cells are: title, load.', isError: true });
  const noType = await call({ cell_id: "title", new_source: "x", edit_mode: "insert" });
  assert.match(noType.content, /cell_type is required to insert a cell/);
  const noId = await call({ new_source: "x" });
  assert.match(noId.content, /cell_id is required to replace a cell/);
  const badMode = await call({ cell_id: "title", new_source: "x", edit_mode: "append" });
  assert.match(badMode.content, /parameter "edit_mode" must be one of "replace", "insert", "delete"/);
  assert.deepEqual((await load()).cells, cells);

  await fs.writeFile(path.join(cwd, "plain.py"), "x = 1\n");
  const notNotebook = await callWithState(notebookEditTool, { notebook_path: "plain.py", cell_id: "a", new_source: "x" }, cwd, createToolState());
  assert.match(notNotebook.content, /plain\.py is not a Jupyter notebook \(\.ipynb\)\. Use Edit/);

  const unread = await callWithState(notebookEditTool, { notebook_path: "nb.ipynb", cell_id: "title", new_source: "x" }, cwd, createToolState());
  assert.deepEqual(unread, { content: NOT_READ_MESSAGE, isError: true });
});

test("NotebookEdit changes only the edited cell's lines of a notebook saved by Jupyter (keys sorted, one-space indent)", async (t) => {
  const cwd = await tempWorkspace(t);
  const file = path.join(cwd, "nb.ipynb");
  const saved = {
    cells: [
      { cell_type: "markdown", id: "a", metadata: {}, source: ["# A"] },
      { cell_type: "markdown", id: "b", metadata: { tags: [] }, source: ["old"] },
    ],
    metadata: { kernelspec: { display_name: "Python 3", name: "python3" } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  const before = `${JSON.stringify(saved, null, 1)}\n`;
  await fs.writeFile(file, before);
  const state = createToolState();
  await callWithState(readTool, { file_path: "nb.ipynb" }, cwd, state);
  const out = await callWithState(notebookEditTool, { notebook_path: "nb.ipynb", cell_id: "b", new_source: "new" }, cwd, state);
  assert.equal(out.isError, undefined, out.content);
  const after = await fs.readFile(file, "utf8");
  const changed = after.split("\n").filter((line, i) => line !== before.split("\n")[i]);
  assert.deepEqual(changed, ['    "new"'], "only the source line differs");
});
