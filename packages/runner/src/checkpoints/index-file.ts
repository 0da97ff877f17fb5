// The checkpoint index: which snapshot (git tree) and which backend belong to each user message.
// A small JSON file in the state directory, replaced atomically on every change.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const EntrySchema = z.object({
  /** The workspace's tree before the run; absent when no snapshot could be taken. */
  tree: z.string().optional(),
  /** The run has changed nothing yet: the next snapshot taken is this message's too. */
  pending: z.literal(true).optional(),
  /** The backend that ran the query (its own rewind, if it has one, is used first). */
  backend: z.string(),
  createdAt: z.string(),
});
const IndexSchema = z.object({ version: z.literal(1), messages: z.record(z.string(), EntrySchema) });

export type CheckpointEntry = z.infer<typeof EntrySchema>;
export type CheckpointIndex = z.infer<typeof IndexSchema>;

export const INDEX_FILE = "checkpoints.json";

/** The index in `stateDir`; empty when there is none yet. A file that cannot be read or parsed is
 * reported and treated as empty (its checkpoints are lost, later ones work again). */
export async function readIndex(stateDir: string): Promise<{ index: CheckpointIndex; problem?: string }> {
  let text: string;
  try {
    text = await readFile(join(stateDir, INDEX_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { index: emptyIndex() };
    return { index: emptyIndex(), problem: `cannot read ${INDEX_FILE}: ${(error as Error).message}` };
  }
  try {
    const parsed = IndexSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { index: parsed.data };
    return { index: emptyIndex(), problem: `${INDEX_FILE} is not a checkpoint index: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  } catch (error) {
    return { index: emptyIndex(), problem: `${INDEX_FILE} is not JSON: ${(error as Error).message}` };
  }
}

export async function writeIndex(stateDir: string, index: CheckpointIndex): Promise<void> {
  const file = join(stateDir, INDEX_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  const text = JSON.stringify(index);
  try {
    await writeFile(temp, text);
  } catch (error) {
    // The directory is made on the first write (or again, if it was removed meanwhile).
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(stateDir, { recursive: true });
    await writeFile(temp, text);
  }
  await rename(temp, file);
}

export function emptyIndex(): CheckpointIndex {
  return { version: 1, messages: {} };
}
