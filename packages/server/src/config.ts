// Server options: explicit options win over the environment, the environment over defaults.
import { existsSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { envSettingProblems } from "@harness/agent/env-settings";
import { isWithin } from "@harness/agent/real-paths";
import { RunnerRunOptionsSchema, type RunnerRunOptions } from "@harness/protocol";
import { defaultBackendName } from "@harness/runner/backend-names";
import { debugSetting } from "@harness/runner/debug-setting";
import { isLoopbackHost } from "@harness/runner/loopback";
import type { RunnerFactory } from "./registry.ts";
import { readUserTokens, type UserTokens } from "./auth/user-tokens.ts";
import { logSettings } from "./log/settings.ts";
import { logWriter, type ServerLog } from "./log/writer.ts";
import type { WebUiOptions } from "./web-ui.ts";

export type ServerOptions = {
  /** Interface to bind (env HARNESS_HOST, default 127.0.0.1). Any other than loopback needs a token. */
  host?: string;
  /** Port (env PORT, default 7700; 0 picks a free one). */
  port?: number;
  /** Where the database and the workspaces live (env HARNESS_DATA_DIR, default ./.harness). */
  dataDir?: string;
  /** When set, every session works in this directory (a project of one person's) instead of a
   * workspace of its own under the data directory; deleting or forking a session then leaves the
   * directory's files alone. */
  projectDir?: string;
  /** When set, every request needs `Authorization: Bearer <token>` or `?token=` (env HARNESS_TOKEN). */
  token?: string;
  /** A token that lets its holder read GET /metrics and nothing else (env HARNESS_METRICS_TOKEN):
   * for a scraper on a server whose people hold tokens of their own. */
  metricsToken?: string;
  /** Tokens that let their holders in as one user each (env HARNESS_TOKENS_FILE, read from that
   * file; see auth/user-tokens.ts): token → user. With them, every request needs a token too. */
  userTokens?: UserTokens;
  /** Web pages (origins such as https://ui.example.com) that may use a server without a token,
   * besides those on this machine (env HARNESS_ALLOWED_ORIGINS, comma-separated). */
  allowedOrigins?: string[];
  /** A runner idle this long is stopped (env HARNESS_RUNNER_IDLE_MS, default 10 minutes). */
  runnerIdleMs?: number;
  /** How many sessions of one user share a runner process at most (env
   * HARNESS_RUNNER_SESSIONS_PER_PROCESS, default 50; 1 = a process per session). Sessions of
   * different users never share one. */
  runnerSessionsPerProcess?: number;
  /** A run silent this long has its runner asked /health; one that does not answer (stopped, hung)
   * is stopped and its runs end in error (env HARNESS_RUNNER_STALL_MS, default 30 s). */
  runnerStallMs?: number;
  /** The runners' debug log, of the categories of this filter (`harness run --debug`'s; "" for all),
   * in a file beside each runner's output (env HARNESS_DEBUG: a filter, or 1 for all; default off). */
  debug?: string;
  /** How long a stopping server waits for the runs in flight to finish, starting none meanwhile,
   * before it writes down those still going as interrupted (env HARNESS_STOP_GRACE_MS, default 0). */
  stopGraceMs?: number;
  /** A session with no clients and no run is dropped from memory after this long (default 60 s). */
  sessionIdleMs?: number;
  /** WebSocket clients are pinged this often, and one that misses a ping is cut off (default 30 s). */
  heartbeatMs?: number;
  /** Receives one line per notable event, with what its JSON form shows (log/writer.ts); default
   * standard output, as HARNESS_LOG_FORMAT, HARNESS_LOG_LEVEL and HARNESS_LOG_TIMESTAMPS say. */
  log?: ServerLog;
  /** Environment to read defaults from and to give runner processes; default process.env. */
  env?: Record<string, string | undefined>;
  /** Makes the runner of a session; default: a workspace on a pooled runner process. */
  runnerFactory?: RunnerFactory;
  /** What every run of every session carries (a local chat's --append-system-prompt, --add-dir…,
   * checked as `harness run` checks them); the builtin backend's. */
  runOptions?: RunnerRunOptions;
  /** Whether a query is sent in plan mode now, over the session's permission mode (a chat of its
   * own switched to plan mode, which the wire's configure has no name for): asked at each query. */
  planMode?: () => boolean;
  /** The server runs in the user's own command (a local chat), with the environment of the shell
   * that typed it: a run without an Anthropic key then says to export it there, as `harness run`
   * does, rather than to set it where `harness serve` runs and restart the server. */
  userShell?: boolean;
  /** Whether Open Harness webhooks may name loopback, private and link-local addresses, and loopback
   * over plain http (env HARNESS_WEBHOOKS_ALLOW_PRIVATE: 1 or 0, default 0). */
  webhooksAllowPrivate?: boolean;
  /** The first retry of a failed webhook delivery waits this long, each next one five times longer
   * (env HARNESS_WEBHOOKS_RETRY_BASE_MS, default 1000). */
  webhooksRetryBaseMs?: number;
  /** The web UI at GET / (packages/web, built by the caller: `harness serve` unless
   * HARNESS_WEB_UI=0); none without. */
  webUi?: WebUiOptions;
};

export type ServerConfig = {
  host: string;
  port: number;
  dataDir: string;
  projectDir: string | undefined;
  token: string | undefined;
  metricsToken: string | undefined;
  userTokens: UserTokens;
  /** HARNESS_TOKENS_FILE, resolved, when the tokens were read from it (it is re-read on change). */
  tokensFile: string | undefined;
  allowedOrigins: ReadonlySet<string>;
  runnerIdleMs: number;
  runnerSessionsPerProcess: number;
  runnerStallMs: number;
  debug: string | undefined;
  stopGraceMs: number;
  sessionIdleMs: number;
  heartbeatMs: number;
  log: ServerLog;
  env: Record<string, string | undefined>;
  runnerFactory: RunnerFactory | undefined;
  runOptions: RunnerRunOptions | undefined;
  planMode: (() => boolean) | undefined;
  userShell: boolean;
  webhooksAllowPrivate: boolean;
  webhooksRetryBaseMs: number;
};

/** An on/off environment variable: 1 or 0 (unset or empty: off); throws naming it otherwise. */
function switchSetting(env: Record<string, string | undefined>, name: string): boolean {
  const text = nonEmpty(env[name]);
  if (text === undefined || text === "0") return false;
  if (text === "1") return true;
  throw new Error(`${name} must be 1 or 0, got ${JSON.stringify(text)}`);
}

/** A whole number setting: the option when given, else the environment variable, else `fallback`.
 * Throws naming the option or the variable, the range, and what was given. */
function wholeSetting(
  rule: { option: string; value: unknown; envName?: string; env: Record<string, string | undefined>; fallback: number; min: number; max: number; unit?: string },
): number {
  const range = `a whole number from ${rule.min} to ${rule.max}${rule.unit ? ` (${rule.unit})` : ""}`;
  if (rule.value !== undefined) {
    const n = rule.value;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < rule.min || n > rule.max) throw new Error(`${rule.option} must be ${range}, got ${String(n)}`);
    return n;
  }
  const text = rule.envName ? nonEmpty(rule.env[rule.envName]) : undefined;
  if (text === undefined) return rule.fallback;
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(n >= rule.min && n <= rule.max)) throw new Error(`${rule.envName} must be ${range}, got ${JSON.stringify(text)}`);
  return n;
}

/** An origin such as https://ui.example.com: a scheme, a host and a port if any, nothing else. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
  } catch {
    return false;
  }
}

/** Shortest token accepted for a server others can reach: one that can be guessed protects nothing. */
export const MIN_PUBLIC_TOKEN_LENGTH = 16;

/** Enough to keep a busy user's sessions in a few warm processes, few enough that one crash or one
 * heavy run touches a bounded number of them. */
export const DEFAULT_SESSIONS_PER_RUNNER = 50;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** The project directory as a real path; throws when it is no directory, or when it and the data
 * directory overlap (the project's checkpoints would hold the store, or the store the project). */
function checkedProject(dir: string, dataDir: string): string {
  if (dir.trim() === "") throw new Error("the project directory must not be blank");
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (error) {
    throw new Error(`the project directory ${dir} cannot be opened: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`the project directory ${dir} is not a directory`);
  const data = existsSync(dataDir) ? realpathSync(dataDir) : dataDir;
  if (isWithin(data, real)) throw new Error(`the data directory ${dataDir} is inside the project ${real}: put it outside (the default for a project is under ~/.harness/projects)`);
  if (isWithin(real, data)) throw new Error(`the project ${real} is inside the data directory ${dataDir}`);
  return real;
}

/** Resolves and checks the options; throws an Error naming what is wrong. */
export function resolveConfig(options: ServerOptions = {}): ServerConfig {
  const env = options.env ?? process.env;
  const whole = (option: keyof ServerOptions, envName: string | undefined, fallback: number, min: number, max: number, unit?: string) =>
    wholeSetting({ option, value: options[option], envName, env, fallback, min, max, unit });
  const MAX_MS = 2 ** 31 - 1;
  const config = {
    // [::1] as written in a URL binds ::1.
    host: (options.host ?? nonEmpty(env.HARNESS_HOST) ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1"),
    port: whole("port", "PORT", 7700, 0, 65535),
    dataDir: options.dataDir ?? nonEmpty(env.HARNESS_DATA_DIR) ?? ".harness",
    token: options.token ?? nonEmpty(env.HARNESS_TOKEN),
    metricsToken: options.metricsToken ?? nonEmpty(env.HARNESS_METRICS_TOKEN),
    allowedOrigins: options.allowedOrigins ?? (nonEmpty(env.HARNESS_ALLOWED_ORIGINS)?.split(",").map((origin) => origin.trim()).filter(Boolean) ?? []),
    // A runner process left alone also exits after this long: below a second, it would not wait
    // for its first request.
    runnerIdleMs: whole("runnerIdleMs", "HARNESS_RUNNER_IDLE_MS", 10 * 60_000, 1000, MAX_MS, "milliseconds"),
    runnerSessionsPerProcess: whole("runnerSessionsPerProcess", "HARNESS_RUNNER_SESSIONS_PER_PROCESS", DEFAULT_SESSIONS_PER_RUNNER, 1, 10_000),
    runnerStallMs: whole("runnerStallMs", "HARNESS_RUNNER_STALL_MS", 30_000, 100, MAX_MS, "milliseconds"),
    stopGraceMs: whole("stopGraceMs", "HARNESS_STOP_GRACE_MS", 0, 0, MAX_MS, "milliseconds"),
    sessionIdleMs: whole("sessionIdleMs", undefined, 60_000, 0, MAX_MS, "milliseconds"),
    heartbeatMs: whole("heartbeatMs", undefined, 30_000, 10, MAX_MS, "milliseconds"),
    webhooksRetryBaseMs: whole("webhooksRetryBaseMs", "HARNESS_WEBHOOKS_RETRY_BASE_MS", 1000, 10, 10 * 60_000, "milliseconds"),
    webhooksAllowPrivate: options.webhooksAllowPrivate ?? switchSetting(env, "HARNESS_WEBHOOKS_ALLOW_PRIVATE"),
  };
  if (config.host.trim() === "") throw new Error("HARNESS_HOST must not be blank");
  if (config.dataDir.trim() === "") throw new Error("HARNESS_DATA_DIR must not be blank");
  for (const origin of config.allowedOrigins) {
    if (!isOrigin(origin)) {
      throw new Error(`HARNESS_ALLOWED_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://ui.example.com (a scheme, a host and a port if any, no path or trailing slash)`);
    }
  }
  const { token } = config;
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token)) {
    throw new Error("HARNESS_TOKEN must be printable ASCII without spaces (it travels in a header and a query string)");
  }
  const namedFile = nonEmpty(env.HARNESS_TOKENS_FILE);
  const tokensFile = options.userTokens === undefined && namedFile !== undefined ? resolve(namedFile) : undefined;
  const userTokens = options.userTokens ?? (tokensFile === undefined ? new Map<string, string>() : readUserTokens(tokensFile, MIN_PUBLIC_TOKEN_LENGTH));
  checkSharedToken(token, userTokens);
  checkMetricsToken(config.metricsToken, token, userTokens);
  if (!isLoopbackHost(config.host)) {
    if (!token && userTokens.size === 0) {
      throw new Error(
        `refusing to listen on ${config.host} without a token: anyone who can reach it could run commands. ` +
          `Set HARNESS_TOKEN in the server's environment (${MIN_PUBLIC_TOKEN_LENGTH} characters or more, e.g. openssl rand -hex 32), or HARNESS_TOKENS_FILE, or bind 127.0.0.1.`,
      );
    }
    if (token && token.length < MIN_PUBLIC_TOKEN_LENGTH) {
      throw new Error(`refusing to listen on ${config.host} with a token of ${token.length} characters: use at least ${MIN_PUBLIC_TOKEN_LENGTH} (e.g. openssl rand -hex 32)`);
    }
  }
  // Read only for the log they shape: a server given a log of its own (a local chat's file, `harness
  // serve`'s, which read them first) is not stopped by settings it does not use.
  const log = options.log ?? logWriter(logSettings(env), (line) => console.log(line));
  const debug = options.debug === undefined ? debugSetting(env.HARNESS_DEBUG) : { filter: options.debug };
  if ("error" in debug) throw new Error(debug.error);
  const backend = defaultBackendName(env);
  const problems = [...(backend.ok ? [] : [backend.error]), ...envSettingProblems(env)];
  if (problems.length > 0) throw new Error(problems.join("; "));
  const runOptions = checkedRunOptions(options.runOptions, backend.ok ? backend.name : "builtin");
  const dataDir = resolve(config.dataDir);
  return {
    ...config,
    allowedOrigins: new Set(config.allowedOrigins),
    userTokens,
    tokensFile,
    dataDir,
    debug: debug.filter,
    projectDir: options.projectDir === undefined ? undefined : checkedProject(options.projectDir, dataDir),
    log,
    env,
    runnerFactory: options.runnerFactory,
    runOptions,
    planMode: options.planMode,
    userShell: options.userShell === true,
  };
}

/** The run options in the query's outline, for a backend that takes them; throws saying what is wrong. */
function checkedRunOptions(given: unknown, backend: string): RunnerRunOptions | undefined {
  if (given === undefined) return undefined;
  const parsed = RunnerRunOptionsSchema.safeParse(given);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new Error(`${["runOptions", ...issue.path].join(".")}: ${issue.message}`);
  }
  const names = Object.keys(parsed.data);
  if (names.length > 0 && backend !== "builtin") throw new Error(`the ${backend} backend (HARNESS_BACKEND) takes no run options (${names.join(", ")}): they are the builtin backend's`);
  return parsed.data;
}

/** Throws when the shared token is also a user's token (it would act as any user, or as one). */
export function checkSharedToken(token: string | undefined, userTokens: UserTokens): void {
  if (token !== undefined && userTokens.has(token)) throw new Error(`HARNESS_TOKEN is also ${userTokens.get(token)}'s token in HARNESS_TOKENS_FILE: the shared token must be another`);
}

/** What a server so set should be told at start, each a line: HARNESS_METRICS_TOKEN on a server
 * with no other token guards nothing, for such a server answers every loopback request, GET
 * /metrics among them, without a token (and listens on loopback alone). */
export function startWarnings(config: Pick<ServerConfig, "metricsToken" | "token" | "userTokens" | "tokensFile">): string[] {
  const open = config.token === undefined && config.tokensFile === undefined && config.userTokens.size === 0;
  return config.metricsToken !== undefined && open
    ? ["HARNESS_METRICS_TOKEN protects nothing: without HARNESS_TOKEN or HARNESS_TOKENS_FILE, GET /metrics answers anyone on this machine without a token, as every other route does"]
    : [];
}

/** Throws when the metrics token is too short to stand guessing, or is also another token (its
 * holder would get more than the metrics, or a person theirs). Checked on any interface: a scraper
 * reads it from afar. */
export function checkMetricsToken(metricsToken: string | undefined, token: string | undefined, userTokens: UserTokens): void {
  if (metricsToken === undefined) return;
  if (!/^[\x21-\x7e]+$/.test(metricsToken)) throw new Error("HARNESS_METRICS_TOKEN must be printable ASCII without spaces (it travels in a header and a query string)");
  if (metricsToken.length < MIN_PUBLIC_TOKEN_LENGTH) {
    throw new Error(`HARNESS_METRICS_TOKEN has ${metricsToken.length} characters: use at least ${MIN_PUBLIC_TOKEN_LENGTH} (e.g. openssl rand -hex 32)`);
  }
  if (metricsToken === token) throw new Error("HARNESS_METRICS_TOKEN is also HARNESS_TOKEN: the metrics token must be another");
  if (userTokens.has(metricsToken)) throw new Error(`HARNESS_METRICS_TOKEN is also ${userTokens.get(metricsToken)}'s token in HARNESS_TOKENS_FILE: the metrics token must be another`);
}
