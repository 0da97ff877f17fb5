// Server options: explicit options win over the environment, the environment over defaults.
import { resolve } from "node:path";
import { z } from "zod";
import { describeZodError } from "@harness/protocol";
import { isLoopbackHost } from "./auth.ts";
import type { RunnerFactory } from "./registry.ts";

export type ServerOptions = {
  /** Interface to bind (env HARNESS_HOST, default 127.0.0.1). Any other than loopback needs a token. */
  host?: string;
  /** Port (env PORT, default 7700; 0 picks a free one). */
  port?: number;
  /** Where the database and the workspaces live (env HARNESS_DATA_DIR, default ./.harness). */
  dataDir?: string;
  /** When set, every request needs `Authorization: Bearer <token>` or `?token=` (env HARNESS_TOKEN). */
  token?: string;
  /** Web pages (origins such as https://ui.example.com) that may use a server without a token,
   * besides those on this machine (env HARNESS_ALLOWED_ORIGINS, comma-separated). */
  allowedOrigins?: string[];
  /** A runner idle this long is stopped (env HARNESS_RUNNER_IDLE_MS, default 10 minutes). */
  runnerIdleMs?: number;
  /** How many sessions of one user share a runner process at most (env
   * HARNESS_RUNNER_SESSIONS_PER_PROCESS, default 50; 1 = a process per session). Sessions of
   * different users never share one. */
  runnerSessionsPerProcess?: number;
  /** A session with no clients and no run is dropped from memory after this long (default 60 s). */
  sessionIdleMs?: number;
  /** WebSocket clients are pinged this often, and one that misses a ping is cut off (default 30 s). */
  heartbeatMs?: number;
  /** Receives one line per notable event; default console.log. */
  log?: (line: string) => void;
  /** Environment to read defaults from and to give runner processes; default process.env. */
  env?: Record<string, string | undefined>;
  /** Makes the runner of a session; default: a workspace on a pooled runner process. */
  runnerFactory?: RunnerFactory;
};

export type ServerConfig = {
  host: string;
  port: number;
  dataDir: string;
  token: string | undefined;
  allowedOrigins: ReadonlySet<string>;
  runnerIdleMs: number;
  runnerSessionsPerProcess: number;
  sessionIdleMs: number;
  heartbeatMs: number;
  log: (line: string) => void;
  env: Record<string, string | undefined>;
  runnerFactory: RunnerFactory | undefined;
};

const intFrom = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const ConfigSchema = z.object({
  host: z.string().min(1, "host must not be empty"),
  port: intFrom("port", 0, 65535),
  dataDir: z.string().min(1, "dataDir must not be empty"),
  token: z.string().min(1, "token must not be empty").optional(),
  allowedOrigins: z.array(
    z.string().refine((origin) => {
      try {
        const url = new URL(origin);
        return (url.protocol === "http:" || url.protocol === "https:") && url.origin === origin;
      } catch {
        return false;
      }
    }, "allowed origins must each be an origin such as https://ui.example.com (a scheme, a host and a port if any, no path or trailing slash)"),
  ),
  runnerIdleMs: intFrom("runnerIdleMs", 1, 2 ** 31 - 1),
  runnerSessionsPerProcess: intFrom("runnerSessionsPerProcess", 1, 10_000),
  sessionIdleMs: intFrom("sessionIdleMs", 0, 2 ** 31 - 1),
  heartbeatMs: intFrom("heartbeatMs", 10, 2 ** 31 - 1),
});

/** Enough to keep a busy user's sessions in a few warm processes, few enough that one crash or one
 * heavy run touches a bounded number of them. */
export const DEFAULT_SESSIONS_PER_RUNNER = 50;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** Resolves and checks the options; throws an Error naming what is wrong. */
export function resolveConfig(options: ServerOptions = {}): ServerConfig {
  const env = options.env ?? process.env;
  const parsed = ConfigSchema.safeParse({
    host: options.host ?? nonEmpty(env.HARNESS_HOST) ?? "127.0.0.1",
    port: options.port ?? nonEmpty(env.PORT) ?? 7700,
    dataDir: options.dataDir ?? nonEmpty(env.HARNESS_DATA_DIR) ?? ".harness",
    token: options.token ?? nonEmpty(env.HARNESS_TOKEN),
    allowedOrigins: options.allowedOrigins ?? (nonEmpty(env.HARNESS_ALLOWED_ORIGINS)?.split(",").map((origin) => origin.trim()).filter(Boolean) ?? []),
    runnerIdleMs: options.runnerIdleMs ?? nonEmpty(env.HARNESS_RUNNER_IDLE_MS) ?? 10 * 60_000,
    runnerSessionsPerProcess: options.runnerSessionsPerProcess ?? nonEmpty(env.HARNESS_RUNNER_SESSIONS_PER_PROCESS) ?? DEFAULT_SESSIONS_PER_RUNNER,
    sessionIdleMs: options.sessionIdleMs ?? 60_000,
    heartbeatMs: options.heartbeatMs ?? 30_000,
  });
  if (!parsed.success) throw new Error(`invalid server options: ${describeZodError(parsed.error)}`);
  const config = parsed.data;
  if (!config.token && !isLoopbackHost(config.host)) {
    throw new Error(
      `refusing to listen on ${config.host} without a token: anyone who can reach it could run commands. ` +
        "Set HARNESS_TOKEN (or the token option), or bind 127.0.0.1.",
    );
  }
  return {
    ...config,
    token: config.token,
    allowedOrigins: new Set(config.allowedOrigins),
    dataDir: resolve(config.dataDir),
    log: options.log ?? ((line) => console.log(line)),
    env,
    runnerFactory: options.runnerFactory,
  };
}
