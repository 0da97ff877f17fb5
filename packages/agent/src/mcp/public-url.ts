// How a remote MCP server's URL is shown (in errors, /mcp, the debug log): its origin and path,
// never the credentials or the query a URL may carry (`https://user:pw@host/mcp?token=…`).

/** `url` without its user, password, query and fragment; a URL that does not parse is named only
 * as such. */
export function publicUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(an unreadable URL)";
  }
}

/** `text` with every occurrence of `url` shown as publicUrl shows it. */
export function withPublicUrl(text: string, url: string): string {
  return text.split(url).join(publicUrl(url));
}
