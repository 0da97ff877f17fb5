// Claude Code's ANTHROPIC_CUSTOM_HEADERS: headers added to every request to Anthropic's API (a
// gateway's own), one "Name: Value" to a line.

export const CUSTOM_HEADERS_VARIABLE = "ANTHROPIC_CUSTOM_HEADERS";

/** A header name as HTTP allows it (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The headers of `text` (blank lines skipped), or what is wrong with the first line that is none. */
export function parseCustomHeaders(text: string | undefined): { headers: Record<string, string> } | { problem: string } {
  const headers: Record<string, string> = {};
  for (const line of (text ?? "").split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name) || /[\0\r\n]/.test(value)) {
      return { problem: `${CUSTOM_HEADERS_VARIABLE} must hold one "Name: Value" header to a line, got ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line)}` };
    }
    headers[name] = value;
  }
  return { headers };
}

/** What is wrong with ANTHROPIC_CUSTOM_HEADERS in `env`, if anything. */
export function customHeadersProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const parsed = parseCustomHeaders(env[CUSTOM_HEADERS_VARIABLE]);
  return "problem" in parsed ? [parsed.problem] : [];
}
