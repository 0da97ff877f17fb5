/** Longest tool output, in characters, that enters the conversation. */
export const MAX_TOOL_OUTPUT_CHARS = 30_000;

/** Keeps the beginning of an over-long output and says how much was cut. */
export function truncateOutput(text: string, limit = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= limit) return text;
  const cut = text.length - limit;
  return `${text.slice(0, limit)}\n\n[Output truncated: ${cut.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters were cut. Narrow the request to see the rest.]`;
}
