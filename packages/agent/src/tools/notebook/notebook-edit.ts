import { randomBytes } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import { editableText, readWholeFile, refuseWrite, withFileLock, writeTracked } from "../file-state.ts";
import { cellIdOf, findCell, type Notebook, type NotebookCell, notebookHasCellIds, parseNotebook, serializeNotebook } from "./notebook.ts";
import { displayPath, errorCode, errorText, resolvePath } from "../paths.ts";

const description = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb).

Usage:
- Read the notebook first; it shows every cell's id. Editing a notebook that was not read, or that changed on disk since, is refused.
- cell_id names the cell: its id as Read showed it (cells without their own id are "cell-0", "cell-1" and so on, by position).
- edit_mode "replace" (default) sets the cell's source to new_source; replacing a code cell clears its outputs and execution count. cell_type changes the cell's type.
- edit_mode "insert" adds a new cell after cell_id, or at the start without cell_id; cell_type ("code" or "markdown") is required.
- edit_mode "delete" removes cell_id (new_source is ignored).`;

export const notebookEditTool = defineTool({
  name: "NotebookEdit",
  description,
  parameters: z.strictObject({
    notebook_path: z.string().min(1).describe("The path of the notebook to edit, absolute or relative to the shell's current directory"),
    cell_id: z.string().optional().describe("The id of the cell to edit; for insert, the new cell goes after it (or first when omitted)"),
    new_source: z.string().describe("The new source of the cell"),
    cell_type: z.enum(["code", "markdown"]).optional().describe("The cell's type; required for insert, defaults to the current type for replace"),
    edit_mode: z.enum(["replace", "insert", "delete"]).optional().describe("replace (default), insert or delete"),
  }),
  precheck: (args, { cwd, state }) => refuseWrite(state, resolvePath(cwd, args.notebook_path)),
  async execute(args, { cwd, state }) {
    const target = resolvePath(cwd, args.notebook_path);
    const shown = displayPath(cwd, target);
    if (path.extname(target).toLowerCase() !== ".ipynb") {
      return { content: `${shown} is not a Jupyter notebook (.ipynb). Use Edit for other files.`, isError: true };
    }
    const mode = args.edit_mode ?? "replace";
    if (mode === "insert" && !args.cell_type) return { content: "cell_type is required to insert a cell: give \"code\" or \"markdown\".", isError: true };
    if (mode !== "insert" && args.cell_id === undefined) return { content: `cell_id is required to ${mode} a cell. Read the notebook to see the cell ids.`, isError: true };
    return withFileLock(state, target, async () => {
      let current: Buffer;
      try {
        current = await readWholeFile(target, shown);
      } catch (error) {
        if (errorCode(error) === "ENOENT") return { content: `Notebook does not exist: ${shown}. Create it with Write first.`, isError: true };
        return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
      }
      const refusal = await refuseWrite(state, target, current);
      if (refusal) return { content: refusal, isError: true };
      const text = editableText(current, shown);
      if (!text.ok) return { content: text.error, isError: true };
      const parsed = parseNotebook(text.text, shown);
      if ("error" in parsed) return { content: parsed.error, isError: true };
      const changed = applyCellEdit(parsed.notebook, { ...args, mode }, shown);
      if ("error" in changed) return { content: changed.error, isError: true };
      try {
        await writeTracked(state, target, text.bom + serializeNotebook(parsed.notebook));
      } catch (error) {
        return { content: `Cannot write ${shown}: ${errorText(error)}`, isError: true };
      }
      return { content: changed.report };
    });
  },
});

type CellEdit = { cell_id?: string; new_source: string; cell_type?: "code" | "markdown"; mode: "replace" | "insert" | "delete" };

/** Changes `notebook` in place. */
function applyCellEdit(notebook: Notebook, edit: CellEdit, shown: string): { report: string } | { error: string } {
  let index = -1;
  if (edit.cell_id !== undefined) {
    index = findCell(notebook, edit.cell_id);
    if (index === -1) {
      const ids = notebook.cells.map((cell, i) => cellIdOf(cell, i));
      const known = ids.length > 0 ? `The cells are: ${ids.slice(0, 50).join(", ")}${ids.length > 50 ? ", …" : ""}.` : "The notebook has no cells.";
      return { error: `No cell with id ${JSON.stringify(edit.cell_id)} in ${shown}. ${known}` };
    }
  }
  if (edit.mode === "delete") {
    const [removed] = notebook.cells.splice(index, 1);
    return { report: `Deleted cell ${cellIdOf(removed, index)} from ${shown}.` };
  }
  if (edit.mode === "insert") {
    const cell = newCell(edit.cell_type ?? "code", edit.new_source, notebookHasCellIds(notebook) ? uniqueId(notebook) : undefined);
    notebook.cells.splice(index + 1, 0, cell);
    const where = index === -1 ? "at the start" : `after cell ${edit.cell_id}`;
    return { report: `Inserted ${cell.cell_type} cell ${cellIdOf(cell, index + 1)} ${where} of ${shown}.` };
  }
  const cell = notebook.cells[index];
  const type = edit.cell_type ?? cell.cell_type;
  // In the form the cell had: Jupyter writes a source as a list of lines.
  const source = Array.isArray(cell.source) ? sourceLines(edit.new_source) : edit.new_source;
  const replaced: NotebookCell = { ...cell, cell_type: type, source };
  if (type === "code") {
    replaced.outputs = [];
    replaced.execution_count = null;
  } else {
    delete replaced.outputs;
    delete replaced.execution_count;
  }
  notebook.cells[index] = replaced;
  return { report: `Updated cell ${cellIdOf(replaced, index)} of ${shown}.` };
}

/** A cell as Jupyter writes one: keys in order, the source as a list of lines. */
function newCell(type: "code" | "markdown", text: string, id: string | undefined): NotebookCell {
  const source = sourceLines(text);
  const named = id !== undefined ? { id } : {};
  return type === "code"
    ? { cell_type: "code", execution_count: null, ...named, metadata: {}, outputs: [], source }
    : { cell_type: "markdown", ...named, metadata: {}, source };
}

/** "a\nb" → ["a\n", "b"]: each line keeps its newline. */
function sourceLines(text: string): string[] {
  return text === "" ? [] : (text.match(/[^\n]*\n|[^\n]+$/g) ?? []);
}

function uniqueId(notebook: Notebook): string {
  const taken = new Set(notebook.cells.map((cell) => cell.id));
  let id = randomBytes(4).toString("hex");
  while (taken.has(id)) id = randomBytes(4).toString("hex");
  return id;
}
