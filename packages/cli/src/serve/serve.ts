// `harness serve`: the Harness server in the foreground until SIGINT or SIGTERM.
import os from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hasAnthropicCredentials } from "@harness/llm/model-prefix";
import { logSettings, logWriter, type LogSettings } from "@harness/server/log";
import { parsePort, type Command } from "../args.ts";
import { projectDataDir, projectPath } from "../project-dir.ts";
import type { Sink } from "../display/render.ts";
import { defaultUser } from "../default-user.ts";

export type ServeCommand = Extract<Command, { kind: "serve" }>;

/** The repository's root, whose package.json holds the `start` script. */
const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

/** Where the relative paths of the flags start: where the command was typed. Under this
 * repository's `npm start`, npm runs the script in the root, and INIT_CWD is where it was typed. */
export function flagsBase(env: NodeJS.ProcessEnv, cwd = process.cwd()): string {
  const ownStart = env.npm_lifecycle_event === "start" && env.npm_package_json !== undefined && dirname(resolve(env.npm_package_json)) === resolve(REPOSITORY);
  return ownStart && env.INIT_CWD ? env.INIT_CWD : cwd;
}

export async function serveCommand(command: ServeCommand, io: { stdout: Sink; stderr: Sink; env: NodeJS.ProcessEnv }): Promise<number> {
  const { env } = io;
  let port = command.port;
  if (port === undefined && env.PORT) {
    const parsed = parsePort("PORT", env.PORT);
    if (typeof parsed === "string") {
      io.stderr.write(`harness: ${parsed}\n`);
      return 2;
    }
    port = parsed;
  }
  let logging: LogSettings;
  try {
    logging = logSettings(env);
  } catch (error) {
    io.stderr.write(`harness: cannot start the server: ${(error as Error).message}\n`);
    return 1;
  }
  // The command's own lines go as the server's do (HARNESS_LOG_FORMAT…), each on the stream it
  // always went to: the server's on stdout (its URL first), the command's "harness: …" on stderr.
  const out = logWriter(logging, linesTo(io.stdout));
  const err = logWriter(logging, linesTo(io.stderr));
  const warn = (what: string) => err(`harness: warning: ${what}`, { level: "warn", msg: what });
  const webUiSetting = env.HARNESS_WEB_UI?.trim() || "1";
  if (webUiSetting !== "0" && webUiSetting !== "1") {
    io.stderr.write(`harness: HARNESS_WEB_UI must be 1 or 0, got ${JSON.stringify(env.HARNESS_WEB_UI)}\n`);
    return 2;
  }
  if (!hasAnthropicCredentials(undefined, env)) warn("ANTHROPIC_API_KEY is not set; runs of Anthropic models will fail until it is");

  // Handlers first: a signal while the server starts (it prints its URL before it returns) stops it
  // once started, rather than killing it half way. SIGHUP too: a closed terminal shuts the server
  // down cleanly (runs written down, runners stopped), unless it re-reads HARNESS_TOKENS_FILE. A second signal stops at once.
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  let first: NodeJS.Signals | undefined;
  let woken!: (signal: NodeJS.Signals) => void;
  const signalled = new Promise<NodeJS.Signals>((resolve) => (woken = resolve));
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    // A server with HARNESS_TOKENS_FILE is a team's, run as a service: SIGHUP re-reads the file,
    // as daemons re-read their configuration, where a terminal's server stops.
    if (signal === "SIGHUP" && server?.reloadTokens && !first) return server.reloadTokens();
    if (first) process.exit(128 + os.constants.signals[signal]);
    first = signal;
    woken(signal);
  };
  for (const name of signals) process.on(name, onSignal);

  const { DataDirTakenError, startServer, workspacesDir } = await import("@harness/server");
  try {
    // A project's sessions are kept outside it (its checkpoints would otherwise hold the store).
    // The default data directory (./.harness) stays where the server runs, as the README says.
    const base = flagsBase(env);
    const projectDir = command.projectDir === undefined ? undefined : projectPath(resolve(base, command.projectDir));
    const dataDir = command.dataDir === undefined ? env.HARNESS_DATA_DIR || (projectDir === undefined ? "./.harness" : projectDataDir(projectDir)) : resolve(base, command.dataDir);
    server = await startServer({
      host: command.host ?? (env.HARNESS_HOST || "127.0.0.1"),
      port: port ?? 7700,
      dataDir,
      ...(projectDir !== undefined && { projectDir }),
      ...(command.debug !== undefined && { debug: command.debug }),
      token: env.HARNESS_TOKEN || undefined,
      log: out,
      ...(webUiSetting === "1" && { webUi: { load: async () => (await import("@harness/startup/web-ui")).buildWebUi(), defaultUser: defaultUser(env) } }),
    });
    for (const warning of server.warnings) warn(warning);
    if (webUiSetting === "1") out(`web UI: open ${server.url}/ in a browser`, { msg: "web UI", url: `${server.url}/` });
    // Under the URL (the server's own line): where the agent's files will be, which a new user
    // otherwise finds out only by asking the agent.
    out(
      projectDir === undefined
        ? `sessions work in their own empty directories under ${workspacesDir(resolve(dataDir))}; harness serve --project DIR works on a project instead`
        : `sessions work in the project ${projectDir}, all of them on its files`,
    );
  } catch (error) {
    for (const name of signals) process.off(name, onSignal);
    const message = error instanceof Error ? error.message : String(error);
    // Given by --data-dir, the flag is the way out of a directory another server holds.
    const named = error instanceof DataDirTakenError && command.dataDir !== undefined ? new DataDirTakenError(error.pid, error.dir, "--data-dir").message : message;
    err(`harness: cannot start the server: ${named}`, { level: "error", msg: `cannot start the server: ${named}` });
    return 1;
  }

  const signal = await signalled;
  const why = `${signal === "SIGINT" ? "interrupted" : signal === "SIGHUP" ? "hung up" : "terminated"}, shutting down`;
  err(`harness: ${why}`, { msg: why });
  await server.close();
  return 0;
}

/** Writes each line to `sink`. A stream whose reader went away (`harness serve | head -1`: EPIPE)
 * takes no more lines, rather than take the server down with its unhandled error. */
function linesTo(sink: Sink): (line: string) => void {
  let gone = false;
  (sink as Sink & Partial<Pick<NodeJS.EventEmitter, "on">>).on?.("error", () => (gone = true));
  return (line) => {
    if (!gone) sink.write(`${line}\n`);
  };
}
