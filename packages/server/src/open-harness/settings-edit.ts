// Changing a JSON configuration file of a session's workspace (.claude/settings.json, .mcp.json) as
// Claude Code's own commands do: the file read fresh, one entry changed, every other key kept as it
// was, and the whole written back atomically (beside it, then renamed over it) by the files routes'
// writer, so that the file is confined to the workspace as theirs are (a link out is refused). A
// file that is not a JSON object is never written over. Changes of one file are made one at a time.
import path from "node:path";
import { isJsonObject, parseJsonText } from "@harness/agent/json-text";
import { isWithin, realPathOf } from "@harness/agent/real-paths";
import { userConfigDir, userConfigFile } from "@harness/agent/user-config-dir";
import { ApiError } from "./errors.ts";
import { inTurn } from "./one-at-a-time.ts";
import { writeFileAt, type SessionCheck } from "./workspace-files.ts";
import { confined, openConfined, refusalOf } from "./workspace-paths.ts";

/** A file of at most this many bytes is read to be changed; a configuration file is far smaller. */
const MAX_BYTES = 8 * 1024 * 1024;

/** The text of the file `relative` of the workspace `root`, undefined when there is none; read
 * where confined() finds it, never through a link out of the workspace. */
export async function readWorkspaceText(root: string, relative: string): Promise<string | undefined> {
  try {
    const real = await confined(root, relative);
    const handle = await openConfined(root, real, relative);
    if (!handle) return undefined;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new ApiError(409, "conflict", `${relative} is not a regular file; it was left as it is`);
      if (stats.size > MAX_BYTES) throw new ApiError(409, "conflict", `${relative} is larger than ${MAX_BYTES / 1024 / 1024} MiB: no configuration file is; it was left as it is`);
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw refusalOf(error, relative);
  }
}

/** The JSON object in `text` (`{}` for no file or a blank one); a 409 naming `relative` when the
 * file holds something else: it is left as it is, for its owner to mend. */
export function jsonObjectOf(text: string | undefined, relative: string): Record<string, unknown> {
  if (text === undefined) return {};
  const parsed = parseJsonText(text);
  if (parsed.kind === "error") throw new ApiError(409, "invalid_settings_file", `${relative} is not valid JSON (${parsed.message.replace(/^invalid JSON: /, "")}); it was left as it is: mend it first`);
  if (parsed.kind !== "ok" || !isJsonObject(parsed.value)) throw new ApiError(409, "invalid_settings_file", `${relative} does not hold a JSON object; it was left as it is: mend it first`);
  return parsed.empty ? parsed.value : withExactNumbers(text, parsed.value);
}

type RawJson = (text: string) => unknown;
const rawJSON = (JSON as unknown as { rawJSON?: RawJson }).rawJSON;

/** `value` parsed again from `text`, each number a double cannot hold as written (an id beyond
 * 2^53) kept as its own text, so that the file written back does not change it. */
function withExactNumbers(text: string, value: Record<string, unknown>): Record<string, unknown> {
  if (!rawJSON) return value;
  const raw = rawJSON;
  return JSON.parse(text.replace(/^\uFEFF/, ""), (_key: string, parsed: unknown, context?: { source?: string }) =>
    typeof parsed === "number" && context?.source !== undefined && String(parsed) !== context.source ? raw(context.source) : parsed,
  ) as Record<string, unknown>;
}

/** Reads the JSON object of `relative` in the workspace `root`, makes its new value with `change`
 * (which throws to leave the file as it is, or answers undefined to leave it unchanged) and writes
 * it back, indented by two spaces as Claude Code writes it. What `change` returns besides. */
export async function editJsonFile<T>(
  root: string,
  relative: string,
  stillThere: SessionCheck,
  change: (value: Record<string, unknown>) => { value?: Record<string, unknown>; result: T },
): Promise<T> {
  return inTurn(path.join(root, relative), async () => {
    const value = jsonObjectOf(await readWorkspaceText(root, relative), relative);
    const { value: next, result } = change(value);
    if (next !== undefined) await writeFileAt(root, relative, new TextEncoder().encode(`${JSON.stringify(next, null, 2)}\n`), true, stillThere);
    return result;
  });
}

/** Where `file` (absolute) is in the workspace `root`, or a 409 saying that it is outside it: the
 * runs read it there, but this API writes in the workspace only. The user's own configuration
 * (~/.claude, ~/.claude.json) is refused (403) wherever the workspace is: a workspace that is the
 * home directory (or leads there through a link) has it inside. */
export function inWorkspace(root: string, file: string, what: string, home: string): string {
  // As written and where it leads: a workspace may be the home directory through a link.
  const mine = (at: string, real: (p: string) => string) => isWithin(real(path.resolve(at)), real(userConfigDir(home))) || real(path.resolve(at)) === real(userConfigFile(home));
  if (mine(file, (p) => p) || mine(file, realPathOf)) {
    throw new ApiError(403, "forbidden", `${what} is the user's own configuration (~/.claude, ~/.claude.json), which is read only over this API`);
  }
  const relative = path.relative(root, file);
  if (relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new ApiError(409, "conflict", `${what} is outside the session's workspace (the runs read it from the project's root above it), and this API writes in the workspace only`);
  }
  return relative.split(path.sep).join("/");
}
