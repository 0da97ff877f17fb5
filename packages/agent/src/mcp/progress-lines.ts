// An MCP tool call's notifications/progress as lines of its live output, the way a Bash command's
// printed lines are: `[3/10] compiling`, `[42%] indexing`, `[3] compiling` or the message alone.
// Servers send what they like: the values are read here, one by one, and what cannot be read is
// left out rather than refused, so that a server's bad report never costs the call.

/** Longest message shown of one report; the rest is cut with "…". */
export const MAX_PROGRESS_MESSAGE_CHARS = 500;

/** Turns each report of one call into the text to hand to ToolContext.progress (a line ending in
 * "\n"), or undefined when the report says nothing new: no message and no readable number, or the
 * very line the previous report gave. */
export function progressLines(): (params: unknown) => string | undefined {
  let last: string | undefined;
  return (params) => {
    const line = progressLine(params);
    if (line === undefined || line === last) return undefined;
    last = line;
    return `${line}\n`;
  };
}

/** One report as a line, or undefined when it holds nothing to show. */
export function progressLine(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const { progress, total, message } = params as Record<string, unknown>;
  const count = readableNumber(progress);
  const text = typeof message === "string" ? oneLine(message) : "";
  const figure = count === undefined ? undefined : fraction(count, readableNumber(total));
  if (figure === undefined) return text || undefined;
  return text ? `${figure} ${text}` : figure;
}

/** `[3/10]` for whole numbers, `[42%]` for others, `[3]` without a total. A progress beyond its
 * total is shown as the total (a server that counts past its own estimate); a total of zero is
 * no total. */
function fraction(progress: number, total: number | undefined): string {
  if (total === undefined || total === 0) return `[${shortNumber(progress)}]`;
  const done = Math.min(progress, total);
  if (Number.isInteger(done) && Number.isInteger(total)) return `[${done}/${total}]`;
  return `[${Math.floor((done / total) * 100)}%]`;
}

/** A finite number of zero or more (progress counts up from nothing). */
function readableNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function shortNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
}

/** The message on one line (a report is one line of the output), control characters as spaces,
 * cut to MAX_PROGRESS_MESSAGE_CHARS. */
function oneLine(message: string): string {
  const flat = message.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  if (flat.length <= MAX_PROGRESS_MESSAGE_CHARS) return flat;
  let cut = MAX_PROGRESS_MESSAGE_CHARS;
  // Never end on half of a surrogate pair.
  if (/[\ud800-\udbff]/.test(flat[cut - 1])) cut--;
  return `${flat.slice(0, cut)}…`;
}
