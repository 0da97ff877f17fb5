// Jupyter notebooks (.ipynb, nbformat 4) as Read and NotebookEdit see them.
import { z } from "zod";

const sourceSchema = z.union([z.string(), z.array(z.string())]);

const cellSchema = z.looseObject({
  cell_type: z.string(),
  id: z.string().optional(),
  source: sourceSchema,
  outputs: z.array(z.unknown()).optional(),
});

const notebookSchema = z.looseObject({
  cells: z.array(cellSchema),
  nbformat: z.number().int().optional(),
  nbformat_minor: z.number().int().optional(),
  metadata: z.looseObject({}).optional(),
});

export type NotebookCell = z.infer<typeof cellSchema>;
export type Notebook = z.infer<typeof notebookSchema>;

export function parseNotebook(text: string, shown: string): { notebook: Notebook } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `${shown} is not a valid notebook: it is not JSON (${error instanceof Error ? error.message : String(error)}).` };
  }
  const parsed = notebookSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? ` at ${issue.path.map(String).join(".")}` : "";
    return { error: `${shown} is not a valid Jupyter notebook${where}: ${issue.message}.` };
  }
  // The object as parsed, not the schema's copy (which orders keys as the schema lists them): a
  // notebook written back keeps every key where it was, so one edited cell is a one-cell diff.
  return { notebook: json as Notebook };
}

/** A cell's id: its own (nbformat 4.5+), or "cell-N" from its position (counting from 0). */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return cell.id ?? `cell-${index}`;
}

/** The position of the cell named by `id`: its own id, or the "cell-N" form. -1 when none. */
export function findCell(notebook: Notebook, id: string): number {
  const own = notebook.cells.findIndex((cell) => cell.id === id);
  if (own !== -1) return own;
  const positional = /^cell-(\d+)$/.exec(id);
  if (!positional) return -1;
  const index = Number(positional[1]);
  return index < notebook.cells.length ? index : -1;
}

export function sourceText(source: string | string[]): string {
  return typeof source === "string" ? source : source.join("");
}

/** Cells get ids from nbformat 4.5 on; older notebooks must not gain them. */
export function notebookHasCellIds(notebook: Notebook): boolean {
  return (notebook.nbformat ?? 0) > 4 || ((notebook.nbformat ?? 0) === 4 && (notebook.nbformat_minor ?? 0) >= 5);
}

/** Serialised the way Jupyter writes notebooks: one-space indentation and a final newline. */
export function serializeNotebook(notebook: Notebook): string {
  return `${JSON.stringify(notebook, null, 1)}\n`;
}
