// What a log (the server's, a run's or a runner's debug log) may not show, in whatever line it
// comes: a URL's credentials and query (net/shown-url.ts), the secrets known by value (the environment's
// by name, an MCP server's env and header values, an http hook's header values, the server's tokens)
// and a secret in a shape that says so (`--api-key X`, `--token=X`, `Authorization: Bearer X`,
// `X-Api-Key: X`). Each is shown as "***"; a command's name, a flag's name and a server's name stay,
// for they are what the user debugs with.
import { withShownURLs } from "../net/shown-url.ts";

/** Secrets shorter than this are not hidden by value: such a value ("1", "true", a loopback
 * server's short token) would blot out ordinary words wherever it is. */
const MIN_HIDDEN_LENGTH = 8;

/** Names of environment variables whose values are secrets: `*_API_KEY` and any `*_KEY`, `*_TOKEN`,
 * `*_SECRET`, `*PASSWORD*`, `*_PASS`, `AWS_SECRET_ACCESS_KEY`, `ANTHROPIC_AUTH_TOKEN`, `BASIC_AUTH`… */
const SECRET_NAME = /(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASS|AUTH)$|PASSWORD|PASSWD|(?:^|_)SECRET_/i;

/** Whether an environment variable's name says its value is a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The values of `env` whose names say they are secrets. */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env).flatMap(([name, value]) => (value !== undefined && isSecretName(name) ? [value] : []));
}

/** The values of an MCP server's configured env or headers that are secrets: those whose names
 * say so, and those that read as a credential whatever their name (one word of 16 characters or
 * more mixing letters and digits, not a path or a plain URL); of an Authorization value ("Bearer X")
 * its credentials alone too, as they may be quoted without it. The rest (`NODE_ENV=production`, a
 * config file, an API's base, `Content-Type`) stays: the user debugs with those, and hiding a
 * common word would blot it out of every line. */
export function configuredSecrets(values: Readonly<Record<string, string>> | undefined, kind: "env" | "headers"): string[] {
  return Object.entries(values ?? {}).flatMap(([name, value]) => {
    const named = kind === "env" ? isSecretName(name) : SECRET_HEADER_NAME.test(name);
    if (!named && !(CREDENTIAL_LIKE.test(value) && !PATH_LIKE.test(value) && !PLAIN_URL.test(value))) return [];
    const credentials = kind === "headers" ? /^\s*\w+\s+(\S+)\s*$/.exec(value)?.[1] : undefined;
    return credentials === undefined ? [value] : [value, credentials];
  });
}

/** Header names whose values are secrets. */
const SECRET_HEADER_NAME = /auth|key|token|secret|cookie|session|signature|password/i;
const CREDENTIAL_LIKE = /^(?=[^]*[A-Za-z])(?=[^]*\d)\S{16,}$/;
const PATH_LIKE = /^(?:\.{0,2}\/|~\/|[A-Za-z]:\\)[^\s]*$/;
const PLAIN_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*(?:\/[^?#\s]*)?$/i;

/** A value after a flag or a header's name: quoted (in a JSON string too: \"…\") or bare, up to
 * white space, a quote, a backslash or a closing bracket, comma or semicolon (`(--token=X)` keeps
 * its bracket: tokens do not hold those). */
const VALUE = String.raw`(\\"(?:[^"\\\n]|\\[^"])+\\"|"[^"\n]+"|'[^'\n]+'|[^\s"'\\\-)\]},;][^\s"'\\)\]},;]*)`;

/** The longest name of a flag or a header before its last word (`--client-` of `--client-secret`)
 * the shapes below read. Bounded: unbounded, a long run of words and dashes (`a-a-a-…`, a line of
 * 100 kB) would be read again from each of its dashes, for seconds. */
const NAME_RUN = String.raw`[\w-]{0,64}`;

/** `--api-key X`, `--apikey X`, `--token=X`, `--client-secret X`, `--password=X` (the word whole:
 * `--monkey` is not one). A number after it (`--max-token 100`) is a count, not a secret. */
const SECRET_FLAG = new RegExp(String.raw`(--(?:${NAME_RUN}[-_])?(?:api-?key|key|token|secret|password|passwd))(=|\s+)` + VALUE, "gi");
/** curl's `-u user:password`, `--user=user:password`. A user alone stays (curl asks for the rest),
 * and so does docker's `-u 1000:1000`. */
const USER_FLAG = new RegExp(String.raw`((?:^|\s)(?:-u\s*|--user(?:=|\s+)))` + VALUE, "g");
/** `FOO_API_KEY=X` in a command line. */
const SECRET_ASSIGNMENT = new RegExp(String.raw`\b([A-Za-z_][A-Za-z0-9_]*)=` + VALUE, "g");
/** A header that holds a secret: `X-Api-Key: X`, `Private-Token:X`. */
const SECRET_HEADER = new RegExp(String.raw`\b(${NAME_RUN}[-_](?:key|token|secret):\s*)` + VALUE, "gi");
/** `Authorization: Token X` (its scheme kept), or with no scheme. */
const AUTHORIZATION = /\b((?:proxy-)?authorization:\s*)(\w+[ \t]+)?([^\s"'\\]+)/gi;
/** A bearer credential (the scheme as written, since "bearer" is also a word), and a basic one
 * (base64 of "user:password"). */
const BEARER = new RegExp(String.raw`\b(Bearer\s+)` + VALUE, "g");
const BASIC = /\b(basic\s+)([A-Za-z0-9+/]{4,}={0,2})(?![\w+/=])/gi;

function isUserAndPassword(base64: string): boolean {
  try {
    return atob(base64).includes(":");
  } catch {
    return false;
  }
}

/** `value` hidden, in its quotes. What stays: a value that begins with "$" (it names a variable)
 * or as a path does ("/", "./", "../", "~/": a key's file). */
function masked(value: string): string {
  const quote = /^(?:\\"|"|')/.exec(value)?.[0] ?? "";
  const inner = value.slice(quote.length, value.length - quote.length);
  return /^(?:\$|\.{0,2}\/|~\/)/.test(inner) ? value : `${quote}***${quote}`;
}

/** `text` with each secret in a shape that says so shown as "***", its flag or header name kept. */
export function secretShapesHidden(text: string): string {
  return text
    .replace(SECRET_FLAG, (whole, flag: string, between: string, value: string) => (/^\d+$/.test(value) ? whole : `${flag}${between}${masked(value)}`))
    .replace(USER_FLAG, (whole, flag: string, value: string) => (value.includes(":") && !/^\d+:\d+$/.test(value) ? `${flag}${masked(value)}` : whole))
    .replace(SECRET_ASSIGNMENT, (whole, name: string, value: string) => (isSecretName(name) ? `${name}=${masked(value)}` : whole))
    .replace(SECRET_HEADER, (_, header: string, value: string) => `${header}${masked(value)}`)
    .replace(AUTHORIZATION, (_, header: string, scheme: string | undefined, value: string) => `${header}${scheme ?? ""}${masked(value)}`)
    .replace(BEARER, (_, scheme: string, value: string) => `${scheme}${masked(value)}`)
    .replace(BASIC, (whole, scheme: string, credentials: string) => (isUserAndPassword(credentials) ? `${scheme}***` : whole));
}

export type SecretHiding = {
  /** `text` as a log may show it. */
  hide(text: string): string;
  /** Adds secrets known by value (those under 8 characters are left): for secrets learnt after
   * the log started (a run's settings, an MCP server's env). */
  know(values: Iterable<string | undefined>): void;
};

/** The one rule of what a log hides, knowing `known` by value. The values are sorted once as they
 * are learnt, longest first (so that a secret holding another is hidden whole), not per line. */
export function secretHiding(known: Iterable<string | undefined> = []): SecretHiding {
  const values = new Set<string>();
  let longestFirst: string[] = [];
  const know = (more: Iterable<string | undefined>) => {
    const size = values.size;
    for (const value of more) if (value !== undefined && value.trim().length >= MIN_HIDDEN_LENGTH) values.add(value);
    if (values.size !== size) longestFirst = [...values].sort((a, b) => b.length - a.length);
  };
  know(known);
  return {
    hide: (text) => secretShapesHidden(longestFirst.reduce((shown, secret) => shown.split(secret).join("***"), withShownURLs(text))),
    know,
  };
}
