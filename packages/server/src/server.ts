// The Node host: one HTTP server (hono for routes, ws for /ws), the session registry, the SQLite
// store, and runner processes shared by the sessions of each user (runners/pool.ts).
import type { SessionEndReason } from "@harness/protocol";
import { sandboxTmpRoot, workspaceEnvDir, workspaceTmpDir } from "@harness/agent/sandbox-tmp-dir";
import { makeDirsSync } from "@harness/agent/make-dirs";
import { mcpOAuthFile } from "@harness/agent/mcp-oauth";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { delimiter, join, resolve as resolvePath } from "node:path";
import { defaultBackendName, SANDBOX_HIDE_ENV } from "@harness/runner/backend-names";
import { answerClientErrors } from "@harness/runner/client-error";
import { DEBUG_ENV, DEBUG_FILE_ENV } from "@harness/runner/debug-setting";
import { runnerVersion } from "@harness/runner/version";
import { createAdaptorServer } from "@hono/node-server";
import { checkMetricsToken, checkSharedToken, MIN_PUBLIC_TOKEN_LENGTH, resolveConfig, startWarnings, type ServerOptions } from "./config.ts";
import { reloadingTokens } from "./auth/tokens-reload.ts";
import { createHttpApp } from "./http-app.ts";
import { createEventStore } from "./open-harness/event-store.ts";
import { serverEvents } from "./open-harness/server-events.ts";
import { createSessionRegistry, type RunnerFactory, type SessionRegistry } from "./registry.ts";
import { sessionModelCheck } from "./model-check.ts";
import { isBusy } from "./sqlite/locked.ts";
import { openSqliteDatabase, type SqliteDatabase } from "./sqlite/store.ts";
import { adoptTranscript, type AdoptTranscript } from "./sessions/adopt.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { ignoredByGit } from "./data-dir-ignore.ts";
import { CREDENTIAL_VARIABLES, serverCredentials } from "./runners/query-credentials.ts";
import { createRunnerPool } from "./runners/pool.ts";
import { runnerRecords } from "./runners/records.ts";
import { sessionDirs, workspacesDir } from "./sessions/dirs.ts";
import { createSupervisedRunner } from "./runners/supervisor.ts";
import { createWebSocketEndpoint } from "./websocket.ts";
import type { WebSocketChannel } from "./websocket-channel.ts";
import { reachableUrls } from "./reachable-urls.ts";
import { hidingSecrets } from "./log/secrets.ts";
import { createLogBuffer, keptLevel, teeLog } from "./log/buffer.ts";
import { metricsText } from "./metrics/metrics.ts";
import { processMetrics } from "./metrics/process.ts";
import { createServerCounts } from "./metrics/counts.ts";

export type HarnessServer = {
  url: string;
  port: number;
  /** Stops accepting, writes down runs in progress as interrupted, stores every session, stops the
   * runners, closes sockets and the database. Safe to call more than once (the first call's
   * `sessionEnd` holds). A session's conversation ends for how its last client left (its SessionEnd
   * hooks' reason); one whose client is still connected for `sessionEnd` (default "other"): a local
   * chat's server ends with the chat, which it may not have seen leave yet. */
  close(options?: { sessionEnd?: SessionEndReason }): Promise<void>;
  /** Re-reads HARNESS_TOKENS_FILE now (`harness serve` on SIGHUP); absent without the file. */
  reloadTokens?: () => void;
  /** What its settings leave unsaid, each a line for the user (startWarnings). */
  warnings: string[];
  /** Makes a session hold a conversation kept as a transcript (see sessions/adopt.ts). */
  adoptTranscript: AdoptTranscript;
};

/** How long a stopping server waits for another process to release the database's lock, so that
 * its sessions' last changes are stored. */
const STOP_STORE_WAIT_MS = 5000;
/** What health checks hear from a server that is stopping. */
const STOPPING = "the server is stopping: it lets the runs in flight finish and starts none";
/** Variables a runner must not see: credentials travel per query, the server token never. */
const WITHHELD_FROM_RUNNERS = [...CREDENTIAL_VARIABLES, "HARNESS_TOKEN", "HARNESS_METRICS_TOKEN", DEBUG_ENV, DEBUG_FILE_ENV];

/** SQLite's result codes for a file that is damaged (SQLITE_CORRUPT) or not a database (SQLITE_NOTADB). */
const DAMAGED_CODES: ReadonlySet<number> = new Set([11, 26]);

function runnerEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  for (const name of WITHHELD_FROM_RUNNERS) delete out[name];
  return out;
}

/** Sessions with workspaces of their own (no project served) are projects of their own: git and the
 * agent's searches upwards (the repository's root, memory files) stop at the workspaces' directory,
 * so a server started inside a repository does not give its sessions that repository. */
function workspaceCeiling(env: Record<string, string | undefined>, dataDir: string, projectDir: string | undefined): Record<string, string> {
  if (projectDir !== undefined) return {};
  const ceilings = [resolvePath(workspacesDir(dataDir)), ...(env.GIT_CEILING_DIRECTORIES ?? "").split(":").filter(Boolean)];
  return { GIT_CEILING_DIRECTORIES: ceilings.join(":") };
}

/** Whether a request's Upgrade header names the WebSocket protocol (it may list several). */
function offersWebSocket(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? "").split(",").some((protocol) => protocol.trim().toLowerCase() === "websocket");
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(new Error(`cannot listen on ${host}:${port}: ${err.message}`));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startServer(options: ServerOptions = {}): Promise<HarnessServer> {
  const config = resolveConfig(options);
  // Every token the file has held is hidden, those taken out of it too: they are secrets still.
  // The API's logs routes are fed what the log writes, its secrets hidden.
  const logs = createLogBuffer({ least: keptLevel(config.env) });
  const hiding = hidingSecrets(teeLog(config.log, logs), [config.token, config.metricsToken, ...config.userTokens.keys()], config.env);
  const log = hiding.log;
  try {
    makeDirsSync(config.dataDir, 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "EEXIST" || code === "ENOTDIR" ? "a file is in the way" : (error as Error).message;
    throw new Error(`cannot make the data directory ${config.dataDir}: ${why}`);
  }
  ignoredByGit(config.dataDir);
  const lock = lockDataDir(config.dataDir, (error) => new Error(`cannot write in the data directory ${config.dataDir}: ${unwritableWhy(error)}`));
  const dbFile = join(config.dataDir, "harness.db");
  let db: SqliteDatabase;
  try {
    db = openSqliteDatabase(dbFile, {
      onError: (error) => log(`database: ${(error as Error).message}`, { level: "error" }),
    });
  } catch (error) {
    lock.release();
    // A backup tool or the sqlite3 shell inside a transaction; the open waited 5 s for it (connect).
    if (isBusy(error)) throw new Error(`another process holds the lock on ${dbFile} (a transaction is open on it): start the server once it is released`);
    const damaged = DAMAGED_CODES.has((error as { errcode?: number }).errcode ?? 0)
      ? ` (${dbFile} is damaged or not Harness's: restore it from a backup, or move it aside with its -wal and -shm files to start with no sessions)`
      : "";
    throw new Error(`cannot open the database in ${config.dataDir}: ${(error as Error).message}${damaged}`);
  }

  const credentials = serverCredentials(config.env);
  // With the sandbox on, a session's commands see none of the data directory (the store, the other
  // sessions' workspaces and runner state) but their own workspace, nor the other sessions'
  // temporary directories but their own, nor the credential files the server reads, nor the MCP
  // servers' OAuth tokens that its runners use (`harness mcp login` on this machine, as this user).
  const hidden = [resolvePath(config.dataDir), sandboxTmpRoot(), ...credentials.files.map((file) => resolvePath(file)), mcpOAuthFile(config.env.HOME || homedir(), config.env)];
  const env = { ...runnerEnv(config.env), [SANDBOX_HIDE_ENV]: hidden.join(delimiter), ...workspaceCeiling(config.env, config.dataDir, config.projectDir) };
  const currentRunnerVersion = runnerVersion(env);
  const dirs = sessionDirs({ dataDir: config.dataDir, sessionExists: (userId, sessionId) => db.catalog.exists(userId, sessionId), log });
  const projectDir = config.projectDir;
  const workspaceOf = projectDir === undefined ? dirs.workspaceOf : () => projectDir;
  const runners = runnerRecords(db.catalog, log);
  const pool = createRunnerPool({
    env,
    capacity: config.runnerSessionsPerProcess,
    dir: join(config.dataDir, "runners"),
    idleExitMs: config.runnerIdleMs,
    ...(config.debug !== undefined && { debug: config.debug }),
    log,
  });
  const runnerFactory: RunnerFactory =
    config.runnerFactory ??
    (({ userId, sessionId }) =>
      createSupervisedRunner({
        workspace: workspaceOf(userId, sessionId),
        stateDir: dirs.stateOf(userId, sessionId),
        beforeOpen: () => dirs.adoptLegacyState(userId, sessionId),
        pool,
        group: userId,
        member: `${userId}/${sessionId}`,
        ...(config.debug !== undefined && { labelsDebug: true }),
        credentials: credentials.forQuery,
        ...(config.runOptions && { runOptions: config.runOptions }),
        mcpApprovals: () => db.mcpApprovals.list(userId, sessionId),
        registeredTools: () => db.registeredTools.list(userId, sessionId),
        ...(config.planMode && { planMode: config.planMode }),
        ...(config.userShell && { userShell: true }),
        idleMs: config.runnerIdleMs,
        stallMs: config.runnerStallMs,
        adopt: db.catalog.runnerOf(userId, sessionId),
        runnerVersion: currentRunnerVersion,
        onProcess: (info) => runners.record(userId, sessionId, info),
        log,
      }));

  // Set once the sockets are there (a change before then needs no socket closed).
  let refuseRevoked = () => {};
  const tokens =
    config.tokensFile === undefined
      ? undefined
      : reloadingTokens({
          file: config.tokensFile,
          initial: config.userTokens,
          minLength: MIN_PUBLIC_TOKEN_LENGTH,
          check: (next) => {
            checkSharedToken(config.token, next);
            checkMetricsToken(config.metricsToken, config.token, next);
          },
          changed: (next) => {
            hiding.know(next.keys());
            refuseRevoked();
          },
          log,
        });
  const userTokens = tokens ? tokens.current : config.userTokens.size > 0 ? () => config.userTokens : undefined;

  const counts = createServerCounts();
  // The Open Harness API's WebSocket channels, added as its routes are mounted.
  const channels: WebSocketChannel[] = [];
  // The event feed's events other than executions', told by the registry and the sessions API too.
  const events = createEventStore({ rows: db.feedEvents, log: (line, level) => log(line, { level }) });
  const told = serverEvents(events);
  const registry = createSessionRegistry({ db, runnerFactory, idleMs: config.sessionIdleMs, log, checkModel: sessionModelCheck(config.env, workspaceOf), counts, events: told.registry });
  const sockets = createWebSocketEndpoint({
    registry,
    token: config.token,
    ...(userTokens && { userTokens }),
    allowedOrigins: config.allowedOrigins,
    heartbeatMs: config.heartbeatMs,
    channels,
    counts,
    deletedSince: (userId, sessionId, since) => {
      if (registry.holds(userId, sessionId)) return false;
      try {
        const last = db.catalog.deletedSeq(userId, sessionId);
        return last > 0 && since <= last && !db.catalog.exists(userId, sessionId);
      } catch {
        // A store that cannot say: the session is opened as usual, and fails there saying why.
        return false;
      }
    },
    log,
  });
  refuseRevoked = sockets.refuseRevoked;
  let closing: Promise<void> | undefined;
  // Where the server answers on this machine, once it listens (the conformance suite's requests go there).
  let selfUrl: string | undefined;
  const ownProcess = processMetrics();
  const app = createHttpApp({
    token: config.token,
    ...(options.webUi && { webUi: options.webUi }),
    metricsToken: config.metricsToken,
    ...(userTokens && { userTokens }),
    allowedOrigins: config.allowedOrigins,
    health: () => ({ sessions: registry.size(), clients: registry.clients(), runs: registry.running() }),
    stopping: () => (closing ? STOPPING : undefined),
    metrics: () =>
      metricsText({
        gauges: () => ({
          sessions: registry.size(),
          clients: registry.clients(),
          runs: registry.running(),
          awaitingApproval: registry.awaitingApproval(),
          runnerProcesses: pool.counts().alive,
        }),
        runners: () => pool.counts(),
        counts,
        process: ownProcess,
      }),
    log,
    openHarness: {
      registry,
      version: currentRunnerVersion,
      backend: backendName(config.env),
      modelEnv: config.env,
      figures: () => ({
        sessions: registry.size(),
        clients: registry.clients(),
        runs: registry.running(),
        awaitingApproval: registry.awaitingApproval(),
        runnerProcesses: pool.counts().alive,
        mcpServersConnected: registry.mcpServersConnected(),
        databaseProblem: databaseProblem(db),
        config: {
          project_dir: config.projectDir !== undefined,
          auth: config.userTokens.size > 0 || config.tokensFile !== undefined ? "user_tokens" : config.token !== undefined ? "token" : "none",
          runner_sessions_per_process: config.runnerSessionsPerProcess,
          runner_idle_ms: config.runnerIdleMs,
          runner_stall_ms: config.runnerStallMs,
          session_idle_ms: config.sessionIdleMs,
          stop_grace_ms: config.stopGraceMs,
          webhooks_allow_private: config.webhooksAllowPrivate,
        },
      }),
      executionStore: db.executions,
      mcpApprovals: db.mcpApprovals,
      registeredTools: db.registeredTools,
      conformanceRuns: db.conformanceRuns,
      registeredHarnesses: db.registeredHarnesses,
      selfUrl: () => selfUrl,
      webhooks: { store: db.webhooks, outbox: db.webhookOutbox, allowPrivate: config.webhooksAllowPrivate, retryBaseMs: config.webhooksRetryBaseMs },
      workDirOf: workspaceOf,
      home: config.env.HOME || homedir(),
      // In the session's state: removed with it, copied into its forks (the sessions API does both).
      skillVersionsOf: (userId, sessionId) => join(dirs.stateOf(userId, sessionId), "skill-versions"),
      log,
      logs,
      webSocketChannels: channels,
      events,
    },
    sessions: {
      db,
      registry,
      // A project's files, and its commands' temporary directory, are every session's.
      workspaceOf: projectDir === undefined ? dirs.workspaceOf : () => undefined,
      workDirOf: workspaceOf,
      // The sandboxed commands' temporary directory and the hooks' env files too (they are outside
      // the workspace).
      filesOf: (userId, sessionId) =>
        projectDir !== undefined
          ? [dirs.stateOf(userId, sessionId)]
          : [dirs.stateOf(userId, sessionId), dirs.legacyStateOf(userId, sessionId), workspaceTmpDir(workspaceOf(userId, sessionId)), workspaceEnvDir(workspaceOf(userId, sessionId))].filter(
              (path) => path !== undefined,
            ),
      stateOf: dirs.stateOf,
      log,
      onSessionEvent: told.onSessionEvent,
    },
  });
  const server = createAdaptorServer({
    fetch: app.fetch,
    overrideGlobalObjects: false,
    // Only a WebSocket handshake is taken over: a request offering another protocol (curl
    // --http2 offers h2c on http://) is answered as the plain HTTP request it also is.
    serverOptions: { shouldUpgradeCallback: offersWebSocket },
  }) as Server;
  server.on("upgrade", sockets.handleUpgrade);
  answerClientErrors(server);

  let address: AddressInfo;
  try {
    address = await listen(server, config.port, config.host);
  } catch (error) {
    tokens?.stop();
    ownProcess.stop();
    db.close();
    lock.release();
    throw error;
  }
  const { url, lines } = reachableUrls(address);
  selfUrl = url;
  // Runs in flight when the last server stopped go on (their runners outlived it) or are written
  // down as interrupted; either way without waiting for a client to come back.
  void registry.resumeRuns();
  // In JSON, each line's URL is a field of its own: the one to open, then the network's.
  for (const line of lines) log(line, { msg: line.trim(), url: /https?:\/\/\S+/.exec(line)![0] });

  async function close(sessionEnd?: SessionEndReason): Promise<void> {
    tokens?.stop();
    await letRunsFinish(registry, config.stopGraceMs, log);
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    sockets.stopAccepting();
    await registry.close(sessionEnd);
    await pool.close();
    await sockets.closeAll();
    runners.stop();
    ownProcess.stop();
    // Another process holding the database's lock: the sessions' last writes, and the event feed's,
    // wait for it, a while.
    await Promise.all([events.close(STOP_STORE_WAIT_MS), db.storeUnsaved(STOP_STORE_WAIT_MS, (line, detail) => log(`database: ${line}`, detail))]);
    db.close();
    lock.release();
    server.closeAllConnections();
    await stopped;
  }

  return {
    url,
    port: address.port,
    close: (options) => (closing ??= close(options?.sessionEnd)),
    ...(tokens && { reloadTokens: tokens.reload }),
    warnings: startWarnings(config),
    adoptTranscript: adoptTranscript(db, registry),
  };
}

/** The backend the runners use by default (resolveConfig has refused a bad HARNESS_BACKEND). */
function backendName(env: Record<string, string | undefined>): string {
  const backend = defaultBackendName(env);
  return backend.ok ? backend.name : "builtin";
}

/** Why the database does not answer a read (a damaged file, a lock held too long), or undefined. */
function databaseProblem(db: SqliteDatabase): string | undefined {
  try {
    db.catalog.exists("", "");
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Waits up to `graceMs` for the runs in flight to finish, refusing new ones meanwhile. Clients stay
 * connected and watch their runs end. */
async function letRunsFinish(registry: SessionRegistry, graceMs: number, log: (line: string) => void): Promise<void> {
  const inFlight = registry.running();
  if (graceMs <= 0 || inFlight === 0) return;
  registry.refuseRuns("the server is stopping: no new run starts now; send it again once the server is back");
  log(`waiting up to ${Math.ceil(graceMs / 1000)} s for ${inFlight} run${inFlight === 1 ? "" : "s"} in flight to finish (a second signal stops at once)`);
  const deadline = Date.now() + graceMs;
  while (registry.running() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Why a directory takes no files, in words, for the codes an operator meets (a read-only mount,
 * another user's directory, a full disk); the system's own message otherwise. */
function unwritableWhy(error: NodeJS.ErrnoException): string {
  if (error.code === "EROFS") return "the file system is read-only";
  if (error.code === "EACCES" || error.code === "EPERM") return "permission denied (it belongs to another user, or its mode forbids writing)";
  if (error.code === "ENOSPC" || error.code === "EDQUOT") return "the disk is full";
  return error.message;
}
