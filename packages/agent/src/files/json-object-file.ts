// Reading a JSON configuration file that is about to be changed and written back whole (settings
// files, ~/.claude.json, .mcp.json): read fresh, not through the loader's cache, and refused unless
// it holds a JSON object, so that a file that cannot be understood is never written over.
import { readFileSync } from "node:fs";
import { isJsonObject, parseJsonText } from "../config/json-text.ts";

/** Why a file cannot be changed. `reason` says it of the file ("is not valid JSON …"); the message
 * names the file before it. */
export class JsonObjectFileError extends Error {
  readonly reason: string;
  constructor(file: string, reason: string) {
    super(`${file} ${reason}`);
    this.reason = reason;
  }
}

/** The object in `file` and the text it was read from; undefined when there is no file, `{}` when it
 * is blank. A byte-order mark is skipped, as the settings are loaded. Anything else throws a
 * JsonObjectFileError. */
export function readJsonObjectFile(file: string): { value: Record<string, unknown>; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new JsonObjectFileError(file, `cannot be read (${(error as Error).message})`);
  }
  const parsed = parseJsonText(text);
  if (parsed.kind === "error") throw new JsonObjectFileError(file, `is not valid JSON (${parsed.message.replace(/^invalid JSON: /, "")}); it was left as it is`);
  if (parsed.kind !== "ok" || !isJsonObject(parsed.value)) throw new JsonObjectFileError(file, "does not hold a JSON object; it was left as it is");
  return { value: parsed.value, text };
}
