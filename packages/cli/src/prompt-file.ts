// The files of --system-prompt-file and --append-system-prompt-file: read whole, as UTF-8, where
// the command is given (relative paths from the current directory, as claude reads them).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export type PromptFile = { ok: true; text: string } | { ok: false; message: string };

/** The text of `path`, or one line naming `flag` and the file that could not be read. */
export function readPromptFile(flag: string, path: string): PromptFile {
  const full = resolve(path);
  try {
    return { ok: true, text: readFileSync(full, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : (error as Error).message;
    return { ok: false, message: `${flag}: cannot read ${full}: ${why}` };
  }
}
