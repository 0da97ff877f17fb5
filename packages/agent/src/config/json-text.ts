// JSON configuration text (settings, .mcp.json, ~/.claude.json) parsed with messages a user can act
// on: where a syntax error is (line and column), and a limit on nesting.

export type JsonFile =
  | { kind: "missing" }
  /** `empty`: the text was blank, and `value` is `{}`. */
  | { kind: "ok"; value: unknown; empty?: true }
  | { kind: "error"; message: string };

/** Whether `value` is a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deeper JSON is refused: no settings nest like this, and copying and merging it would run out
 * of stack. */
export const MAX_JSON_DEPTH = 100;

/** How deeply arrays and objects nest in `value` (0 for a scalar), counting no further than `limit`. */
function depthOf(value: unknown, limit: number): number {
  if (typeof value !== "object" || value === null) return 0;
  if (limit === 0) return 1;
  let deepest = 0;
  for (const item of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(item, limit - 1));
    if (deepest >= limit) break;
  }
  return 1 + deepest;
}

/** `text` parsed, a byte-order mark skipped; an empty text is `{}`. */
export function parseJsonText(text: string): JsonFile {
  text = text.replace(/^\uFEFF/, "");
  if (text.trim() === "") return { kind: "ok", value: {}, empty: true };
  try {
    const value: unknown = JSON.parse(text);
    if (depthOf(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return { kind: "error", message: `the JSON nests more than ${MAX_JSON_DEPTH} levels deep` };
    return { kind: "ok", value };
  } catch (error) {
    // V8 quotes the surrounding text ("…" is not valid JSON); the position says more on one line.
    const message = (error as Error).message.replace(/^(Unexpected token '.+?'), .*is not valid JSON$/s, "$1").replace(/\s+/g, " ");
    const where = /\(line \d+ column \d+\)/.test(message) ? "" : locate(text, message);
    return { kind: "error", message: `invalid JSON: ${message}${where}` };
  }
}

function locate(text: string, message: string): string {
  const position = /position (\d+)/.exec(message);
  const offset = position !== null ? Number(position[1]) : /end of JSON input/.test(message) ? text.length : firstErrorOffset(text);
  if (offset === undefined) return "";
  const before = text.slice(0, offset).split("\n");
  return ` (line ${before.length} column ${before[before.length - 1].length + 1})`;
}

/** The offset of the first JSON syntax error, found by a minimal scanner. */
function firstErrorOffset(text: string): number | undefined {
  let i = 0;
  const blank = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const value = (): boolean => {
    blank();
    const c = text[i];
    if (c === "{") return container("}", true);
    if (c === "[") return container("]", false);
    if (c === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (literal === null) return false;
    i += literal[0].length;
    return true;
  };
  const string = (): boolean => {
    const match = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/.exec(text.slice(i));
    if (match === null) return false;
    i += match[0].length;
    return true;
  };
  const container = (close: string, object: boolean): boolean => {
    i++;
    blank();
    if (text[i] === close) {
      i++;
      return true;
    }
    for (;;) {
      if (object) {
        blank();
        if (!string()) return false;
        blank();
        if (text[i] !== ":") return false;
        i++;
      }
      if (!value()) return false;
      blank();
      if (text[i] === ",") i++;
      else if (text[i] === close) {
        i++;
        return true;
      } else return false;
    }
  };
  if (!value()) return i;
  blank();
  return i < text.length ? i : undefined;
}
