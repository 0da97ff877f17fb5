// How an http hook's URL is named in messages (the hook's run and the settings' URL policy both
// name it), apart from the http runner so that checking the policy does not load it.

/** The URL as messages show it: its origin, the path cut to its first part. Credentials, a query
 * and a path may all hold secrets (a chat service's webhook URL is its own password). */
export function labelOf(url: string): string {
  try {
    const parsed = new URL(url);
    const parts = parsed.pathname.split("/").filter(Boolean);
    const rest = (parts.length > 1 ? "/…" : "") + (parsed.search ? "?…" : "");
    return `${parsed.origin}/${parts[0] ?? ""}${rest}`;
  } catch {
    return "an http hook's URL";
  }
}
