// An http hook: the event's JSON POSTed to a URL, the answer read as a command hook's output.
import { fetchFor } from "@harness/llm/http-fetch";
import { leadingText } from "@harness/protocol/leading-text";
import { hookOutcome } from "./hook-run.ts";
import { timeLimit } from "../process/time-limit.ts";
import { labelOf } from "./http-label.ts";
import type { HookRunResult, HttpHook } from "./types.ts";

/** What is read of an answer's body; the rest is dropped, as a command hook's output is cut. */
const MAX_BODY_BYTES = 1024 * 1024;
/** What of a failed answer's body is shown, to tell why it failed. */
const SHOWN_ERROR_CHARS = 500;

export type HttpHookOptions = {
  /** Where the headers' $NAME and ${NAME} are read from (those in allowedEnvVars only). */
  env: NodeJS.ProcessEnv;
  /** The network variables of the request, as fetchFor reads them (the proxies, the extra CA file,
   * the client certificate). Default: `env`. */
  networkEnv?: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
};

/** POSTs `body` to the hook's URL. A 2xx answer reads as a command that exited 0 and printed the
 * body; any other status, a connection that fails and a timeout are errors that do not block, as
 * in Claude Code: a hook server that is down must not stop the agent. Redirects are not followed
 * (the event would go to a URL nobody configured). Never rejects. */
export async function runHttpHook(hook: HttpHook, body: string, opts: HttpHookOptions): Promise<HookRunResult> {
  const outcome = hookOutcome(labelOf(hook.url), "http");
  if (opts.signal.aborted) return outcome({ aborted: true });
  const headers = headersOf(hook, opts.env);
  if ("error" in headers) return outcome({ error: headers.error });

  const limit = timeLimit(opts.signal, opts.timeoutMs);
  try {
    const { url, authorization } = withoutCredentials(hook.url);
    if (authorization && headers.value.authorization === undefined) headers.value.authorization = authorization;
    const response = await fetchFor(opts.networkEnv ?? opts.env)(url, { method: "POST", headers: headers.value, body, redirect: "manual", signal: limit.signal });
    const { text } = await leadingText(response, MAX_BODY_BYTES);
    if (response.status >= 200 && response.status < 300) return outcome({ exitCode: 0, stdout: text });
    const moved = response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : "";
    const shown = text.trim().slice(0, SHOWN_ERROR_CHARS);
    return outcome({ error: `answered HTTP ${response.status}${moved}`, stderr: shown });
  } catch (error) {
    if (opts.signal.aborted) return outcome({ aborted: true });
    if (limit.timedOut()) return outcome({ timedOut: true });
    return outcome({ error: `could not reach ${labelOf(hook.url)}: ${causeOf(error)}` });
  } finally {
    limit.done();
  }
}

/** The request's headers: JSON's content type, then the hook's own with their variables filled in. */
function headersOf(hook: HttpHook, env: NodeJS.ProcessEnv): { value: Record<string, string> } | { error: string } {
  const allowed = new Set(hook.allowedEnvVars ?? []);
  const value: Record<string, string> = { "content-type": "application/json" };
  for (const [name, template] of Object.entries(hook.headers ?? {})) {
    const filled = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced?: string, bare?: string) => {
      const variable = (braced ?? bare)!;
      return allowed.has(variable) ? (env[variable] ?? "") : "";
    });
    if (/[\r\n\0]/.test(filled)) return { error: `the header ${name} would hold a line break or a NUL character (from an environment variable it names)` };
    value[name.toLowerCase()] = filled;
  }
  return { value };
}

/** A URL's user and password (which fetch refuses in a URL) as a Basic authorization header, as
 * curl sends them. */
function withoutCredentials(given: string): { url: string; authorization?: string } {
  const url = new URL(given);
  if (!url.username && !url.password) return { url: given };
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  url.username = "";
  url.password = "";
  return { url: url.href, authorization };
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
