// Ids a request names (run ids, tool call ids, user message and session ids, Last-Event-ID, paths):
// bounded before any lookup, and echoed in errors only in part, so that a megabyte of id gets a
// short refusal rather than a megabyte of error. The ids bodies carry are bounded by their schemas
// (@harness/protocol's idOfAtMost); a run id, which a path carries, here.

/** Longest run id: a query's requestId is at most this long, and the runner's own are UUIDs. */
export const MAX_RUN_ID_CHARS = 128;

/** Characters of an id shown in an error before it is cut. */
const SHOWN_CHARS = 40;

/** `id` quoted for an error message: whole when short, else its start, an ellipsis and its length. */
export function quoteId(id: string): string {
  if (id.length <= SHOWN_CHARS) return `"${id}"`;
  return `"${id.slice(0, SHOWN_CHARS)}…" (${id.length} characters)`;
}

/** `text` (a path, say) for an error message: whole when short, else cut as quoteId cuts. */
export function shorten(text: string): string {
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters)`;
}

/** Why `id`, given as `field`, is refused for its length, if it is. */
export function idLengthProblem(field: string, id: string | undefined, max: number): string | undefined {
  if (id === undefined || id.length <= max) return undefined;
  return `${field}: must be at most ${max} characters (it has ${id.length})`;
}
