// Globs as regular expressions over "/"-separated paths: the one converter behind permission rules'
// path patterns and claudeMdExcludes, and the test of whether a path has a wildcard at all. Beside
// them, the plainer patterns of the URL allowlists (urlPatternRegExp).
import { escapeRegExp } from "./permissions/tool-names.ts";

export type GlobOptions = {
  /** `{a,b}` as alternatives (claudeMdExcludes); otherwise braces are plain characters, as in
   * gitignore-style permission rules. */
  braces?: boolean;
};

/** The source of a regular expression for `glob` (to be anchored by the caller): `*` and `?` stay
 * within one name, names that start with a dot included; `**` spans names (`**` alone, a leading
 * `**` + "/" and a trailing "/" + `**` may also match nothing); `[...]` is a class (`[!...]`
 * negated); a backslash makes the next character plain. */
export function globToRegExp(glob: string, options: GlobOptions = {}): string {
  if (glob === "**") return ".*";
  let out = "";
  let braces = 0;
  let i = 0;
  while (i < glob.length) {
    const atSegmentStart = i === 0 || glob[i - 1] === "/";
    if (atSegmentStart && glob.startsWith("**/", i)) {
      out += "(?:.*/)?";
      i += 3;
    } else if (glob.startsWith("/**", i) && i + 3 === glob.length) {
      out += "(?:/.*)?";
      i += 3;
    } else if (glob[i] === "*") {
      while (glob[i] === "*") i++;
      out += "[^/]*";
    } else if (glob[i] === "?") {
      out += "[^/]";
      i++;
    } else if (glob[i] === "[") {
      const cls = classAt(glob, i);
      if (!cls) {
        out += "\\[";
        i++;
      } else {
        out += cls.source;
        i = cls.end;
      }
    } else if (glob[i] === "\\" && i + 1 < glob.length) {
      out += escapeRegExp(glob[i + 1]);
      i += 2;
    } else if (options.braces && (glob[i] === "{" || (braces > 0 && (glob[i] === "}" || glob[i] === ",")))) {
      if (glob[i] === "{") braces++;
      else if (glob[i] === "}") braces--;
      out += glob[i] === "{" ? "(?:" : glob[i] === "}" ? ")" : "|";
      i++;
    } else {
      out += escapeRegExp(glob[i]);
      i++;
    }
  }
  // An alternative left open runs to the end.
  return out + ")".repeat(braces);
}

/** The class that opens at `glob[start]` ("["), as a regular expression matching one character of
 * a name, and the index after its "]"; undefined when no "]" closes it (the "[" is then plain). As
 * in gitignore: a leading "!" or "^" negates it, a "]" right after the opening (and negation) is one
 * of its characters, a backslash makes the next character plain, and no class matches "/", not
 * even through a range that spans it. */
function classAt(glob: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  const negated = glob[i] === "!" || glob[i] === "^";
  if (negated) i++;
  let body = "";
  for (let first = true; i < glob.length; first = false) {
    let c = glob[i];
    if (c === "]" && !first) return { source: negated ? `[^/${body}]` : `(?!/)[${body}]`, end: i + 1 };
    if (c === "\\" && i + 1 < glob.length) c = glob[++i];
    else if (c === "-" && !first && glob[i + 1] !== "]") {
      body += "-";
      i++;
      continue;
    }
    // Inside a class only these mean anything to a regular expression.
    body += /[\\\]^-]/.test(c) ? `\\${c}` : c;
    i++;
  }
  return undefined;
}

/** Whether globToRegExp reads some character of `glob` as a wildcard: an unescaped `*`, `?` or
 * `[` (braces aside, which only claudeMdExcludes reads). Without one, `glob` is the path
 * unescapeGlob gives. */
export function hasGlob(glob: string): boolean {
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "*" || glob[i] === "?" || glob[i] === "[") return true;
  }
  return false;
}

/** `glob` with its escapes undone: each backslash gives way to the character it escapes. */
export function unescapeGlob(glob: string): string {
  return glob.replace(/\\(.)/gs, "$1");
}

/** An allowedHttpHookUrls or serverUrl pattern, anchored at both ends: `*` matches any run of
 * characters and every other character stands for itself. Unlike a glob's, this `*` crosses names,
 * so `https://hooks.example.com/*` covers every path of that host and `http://localhost:*` every
 * port and path, as Claude Code documents; and `?` (a query) and `[` (an IPv6 host) are the URL's
 * own characters, not wildcards. In the pattern's authority (`scheme://host:port`) a `*` stays
 * within it: it matches no `/`, `?`, `#`, `@` or backslash, so that `https://*.example.com/hook`
 * does not cover `https://evil.net/a.example.com/hook`, nor `http://localhost:*` a URL whose user
 * part is `localhost:x` and whose host is another (`http://localhost:x@evil.net/`). A pattern that
 * ends in its authority's `*` still covers any path after it. */
export function urlPatternRegExp(pattern: string): RegExp {
  const scheme = pattern.indexOf("://");
  if (scheme < 0) return new RegExp(`^${starred(pattern, ".*")}$`);
  const end = pattern.slice(scheme + 3).search(/[/?#]/);
  const authority = end < 0 ? pattern : pattern.slice(0, scheme + 3 + end);
  const rest = end < 0 ? "" : pattern.slice(scheme + 3 + end);
  const withinAuthority = "[^/?#@\\\\]*";
  const tail = end < 0 && authority.endsWith("*") ? "(?:[/?#].*)?" : "";
  return new RegExp(`^${starred(authority, withinAuthority)}${tail}${starred(rest, ".*")}$`);
}

/** A URL's scheme and user part (`https://` and `user:pw@`). The user part runs to the last "@"
 * before the path, as a URL parser reads it. */
const USER_PART = /^([a-z][a-z\d+.-]*:\/\/)([^/?#]*@)?/i;

/** Whether the allowlist entry `pattern` (from urlPatternRegExp) lets `url` through: it matches the
 * URL as written, less any user part, and the URL names the host it seems to. Credentials in front
 * of an allowed host (`https://user:pw@hooks.example.com/a`, sent as Basic auth) leave it that host;
 * `https://hooks.example.com@evil.net/a` is a URL of evil.net. A backslash, which a URL parser reads
 * as a slash, lets nothing through. */
export function urlAllowedBy(pattern: RegExp, url: string): boolean {
  if (url.includes("\\")) return false;
  const parts = USER_PART.exec(url);
  if (!parts?.[2]) return pattern.test(url);
  const bare = parts[1] + url.slice(parts[0].length);
  try {
    if (new URL(bare).host !== new URL(url).host) return false;
  } catch {
    return false;
  }
  return pattern.test(bare);
}

/** Whether the denylist entry `pattern` (from urlPatternRegExp) stops `url`: it matches the URL as
 * written, or as a URL parser reads it (without its user part, its port left out or named), so that
 * no spelling of a denied host gets past it. */
export function urlDeniedBy(pattern: RegExp, url: string): boolean {
  if (pattern.test(url)) return true;
  const read = readUrl(url);
  return read !== undefined && (pattern.test(read.plain) || (read.withPort !== undefined && pattern.test(read.withPort)));
}

/** `url` as a URL parser reads it, without its user part: as it would be written plainly (a default
 * port left out), and with its port named. Undefined when it is not a URL. */
function readUrl(url: string): { plain: string; withPort?: string } | undefined {
  let read: URL;
  try {
    read = new URL(url);
  } catch {
    return undefined;
  }
  const rest = `${read.pathname}${read.search}${read.hash}`;
  const port = read.port || DEFAULT_PORTS[read.protocol];
  return { plain: `${read.protocol}//${read.host}${rest}`, ...(port !== undefined && { withPort: `${read.protocol}//${read.hostname}:${port}${rest}` }) };
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };

/** `text` as a regular expression's source in which each `*` is `star` and nothing else is special. */
const starred = (text: string, star: string) => text.split("*").map(escapeRegExp).join(star);
