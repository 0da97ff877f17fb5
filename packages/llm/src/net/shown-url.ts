// A service's URL as messages may show it. A gateway's URL can carry its credentials (a user and
// password, a key in the query string); a failed run's message reaches every client of the session
// and the server's log, so they are replaced by "***".

/** `url` with any user name and password, and the query string, replaced by "***". */
export function shownURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^/?#]*@/, "//***@").replace(/\?.*$/, "?***");
  }
  const credentials = parsed.username !== "" || parsed.password !== "";
  parsed.username = "";
  parsed.password = "";
  const query = parsed.search !== "";
  parsed.search = "";
  parsed.hash = "";
  let shown = parsed.href;
  if (credentials) shown = shown.replace("//", "//***@");
  if (query) shown += "?***";
  // new URL adds a "/" to a bare origin; the URL as configured had none.
  return !url.includes("?") && !url.endsWith("/") && shown.endsWith("/") ? shown.slice(0, -1) : shown;
}

/** A URL in free text (a command line, a shell command): it ends at white space, a quote, a
 * backslash (a quote escaped in JSON) or an angle bracket. Its scheme is of 64 characters at most:
 * unbounded, a long run of words and dots (`a.a.a.…`) would be read again from each dot. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,63}:\/\/[^\s"'`<>\\]+/gi;

/** A URL shown already: its credentials, if any, and its query hidden ("***", or "…" as an http
 * hook's label has it). Shown again, its "…" would read as a query and its path be escaped. */
const SHOWN_ALREADY = /^[^:]+:\/\/(?:\*\*\*@)?[^/?#@]*(?:\/[^?#]*)?(?:\?(?:\*\*\*|…))?$/;

/** `text` with each URL in it that carries a user, password or query string shown as shownURL
 * shows it; the other URLs (those shown already among them), and the rest of the text, as they are. */
export function withShownURLs(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => ((/^[^:]+:\/\/[^/?#]*@/.test(url) || url.includes("?")) && !SHOWN_ALREADY.test(url) ? shownURL(url) : url));
}
