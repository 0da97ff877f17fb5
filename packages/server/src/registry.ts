// The gateway's map from (userId, sessionId) to a live HarnessSession. A session is loaded once,
// however many clients connect at the same moment, and dropped from memory (with its runner) a
// while after its last client left and its run ended, so memory stays bounded by active sessions.
import type { RunnerEvent, RunnerMcpProbe, RunnerMcpProbeResult, RunnerToolCall, SessionEndReason } from "@harness/protocol";
import { conversationOf, openSession, type Conversation, type HarnessSession, type RunnerPort, type SessionCounts } from "@harness/session";
import { sessionKey } from "./ids.ts";
import type { ServerLog } from "./log/writer.ts";
import { noticingFresh, quietly, type RegistryEvents } from "./registry-events.ts";
import { runEnd, runEndOf } from "./run-end.ts";
import type { SqliteDatabase } from "./sqlite/store.ts";

/** `stop(reason)`: the session's conversation ends, for `reason` (what its SessionEnd hooks are told). */
/** `invokeTool`: one of the session's tools called directly (absent: this runner takes no such call). */
export type SessionRunner = RunnerPort & {
  stop?(reason?: SessionEndReason): Promise<void>;
  invokeTool?(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncIterable<RunnerEvent>;
  /** `probeMcp`: the session's MCP servers started, asked and stopped (absent: this runner does not). */
  probeMcp?(body: RunnerMcpProbe, opts: { signal: AbortSignal }): Promise<RunnerMcpProbeResult>;
};
export type RunnerFactory = (ids: { userId: string; sessionId: string }) => SessionRunner;

/** A hold on a live session; release it exactly once when the client leaves, saying how it left
 * when it said so (the last client's way of leaving is the session's end reason, when it ends
 * before another client comes). */
export type Lease = { session: HarnessSession; release(left?: SessionEndReason): void };

export type SessionRegistry = {
  acquire(userId: string, sessionId: string): Promise<Lease>;
  /** The session if it is in memory now (it may be opening), without loading it. */
  live(userId: string, sessionId: string): Promise<HarnessSession | undefined>;
  /** The runner of a session in memory (one the caller holds a lease on), if it is. */
  runnerOf(userId: string, sessionId: string): SessionRunner | undefined;
  /** Whether the session is in memory (opened, or being opened), not being removed. */
  holds(userId: string, sessionId: string): boolean;
  /** A session's conversation: live if in memory, else as stored; undefined when there is none. */
  conversation(userId: string, sessionId: string): Promise<Conversation | undefined>;
  /** Deletes a session: its clients get an error frame saying `reason` and are disconnected, its
   * run is cancelled, its runner stopped and its stored state deleted. */
  remove(userId: string, sessionId: string, reason: string): Promise<void>;
  /** Opens every session whose run was in flight when the last server stopped, so each re-attaches
   * to its run (or writes it down as interrupted) without waiting for a client. */
  resumeRuns(): Promise<void>;
  /** Sessions in memory. */
  size(): number;
  /** Sessions with a run in flight. */
  running(): number;
  /** Sessions whose run waits for a tool call's approval. */
  awaitingApproval(): number;
  /** Clients connected to the sessions in memory. */
  clients(): number;
  /** MCP servers connected in the last runs of the sessions in memory, as each reported them. */
  mcpServersConnected(): number;
  /** From now on, no session starts a new run: a submit or resume is refused saying `reason`. */
  refuseRuns(reason: string): void;
  /** Writes down runs in progress as interrupted, stores every session and stops every runner. A
   * session's conversation ends for how its last client left ("other" when it did not say), one
   * that still has clients for `reason` ("other" when not given). */
  close(reason?: SessionEndReason): Promise<void>;
};

type Entry = {
  userId: string;
  sessionId: string;
  holders: number;
  runner: SessionRunner;
  opening: Promise<HarnessSession>;
  session?: HarnessSession;
  timer?: ReturnType<typeof setTimeout>;
  closing?: Promise<void>;
  /** How the last client to leave left, if it said (see Lease). */
  left?: SessionEndReason;
  /** The run started here and under way, for its end's line (how long it took). */
  run?: { id: string; startedAt: number };
};

export type RegistryOptions = {
  db: SqliteDatabase;
  runnerFactory: RunnerFactory;
  idleMs: number;
  log: ServerLog;
  /** See SessionOptions.checkModel; `where`: the session that asks. */
  checkModel?: (model: string, where: { userId: string; sessionId: string }) => string | undefined | Promise<string | undefined>;
  /** See SessionOptions.counts: shared by every session. */
  counts?: SessionCounts;
  /** Told of what happens to the sessions (the event feed's events); each must return at once. */
  events?: RegistryEvents;
};

export function createSessionRegistry(options: RegistryOptions): SessionRegistry {
  const entries = new Map<string, Entry>();
  let closed = false;
  let refusal: string | undefined;

  async function shutDown(entry: Entry, reason = entry.left): Promise<void> {
    try {
      const session = entry.session ?? (await entry.opening.catch(() => undefined));
      if (session) stopsShells(session);
      await session?.close();
    } catch (error) {
      options.log(`session ${entry.userId}/${entry.sessionId}: storing it failed: ${(error as Error).message}`, {
        level: "error",
        msg: `storing the session failed: ${(error as Error).message}`,
        user: entry.userId,
        session: entry.sessionId,
      });
    }
    await stopRunner(entry.runner, reason);
  }

  function stopRunner(runner: SessionRunner, reason?: SessionEndReason): Promise<void> | undefined {
    return runner.stop?.(reason).catch((error: Error) => options.log(`stopping a runner failed: ${error.message}`, { level: "error" }));
  }

  function evictable(entry: Entry): boolean {
    return !closed && entry.holders === 0 && entry.session !== undefined && !entry.session.busy && !entry.closing;
  }

  function scheduleEviction(key: string, entry: Entry): void {
    if (!evictable(entry)) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (!evictable(entry)) return;
      entry.closing = shutDown(entry).finally(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
    }, options.idleMs);
    entry.timer.unref();
  }

  async function conversation(userId: string, sessionId: string): Promise<Conversation | undefined> {
    const entry = entries.get(sessionKey(userId, sessionId));
    const session = entry && !entry.closing ? (entry.session ?? (await entry.opening.catch(() => undefined))) : undefined;
    if (session) return session.conversation();
    const stored = options.db.readSession(userId, sessionId);
    return stored ? conversationOf(stored) : undefined;
  }

  function create(key: string, userId: string, sessionId: string): Entry {
    const runner = options.runnerFactory({ userId, sessionId });
    const checkModel = options.checkModel;
    const events = options.events;
    // Nothing stored: the session is made as it opens (a session made by the sessions API is stored
    // before it is opened, and told of there).
    const { store, fresh } = noticingFresh(options.db.storeFor(userId, sessionId));
    const opening = openSession({
      store,
      runner,
      sessionId,
      loadPeer: (other) => conversation(userId, other),
      refusesRuns: () => refusal,
      ...(options.counts && { counts: options.counts }),
      onRunStarted: (run) => {
        entry.run = { id: run.id, startedAt: Date.now() };
        options.log(`session ${userId}/${sessionId}: run started`, { msg: "run started", user: userId, session: sessionId, run: run.id });
      },
      onSettled: (state, run) => {
        const end = runEndOf(state);
        // One run at a time: the one started here, if any (a run a previous server started has no
        // start here to count from).
        const durationMs = entry.run === undefined ? undefined : Date.now() - entry.run.startedAt;
        entry.run = undefined;
        options.log(`session ${userId}/${sessionId}: ${runEnd(state)}`, {
          level: end.status === "failed" ? "warn" : "info",
          msg: `run ${end.status}`,
          user: userId,
          session: sessionId,
          run: run.id,
          status: end.status,
          durationMs,
          error: end.error,
        });
        if (end.status === "failed") quietly(() => events?.runFailed?.(userId, sessionId, { runId: run.id, message: end.error ?? "no reason given" }));
        scheduleEviction(key, entry);
      },
      ...(checkModel && { checkModel: (model: string) => checkModel(model, { userId, sessionId }) }),
      ...(events?.hookRan && { onHookRan: (event: Extract<RunnerEvent, { type: "hook.ran" }>) => quietly(() => events.hookRan?.(userId, sessionId, event)) }),
      onError: (error, context) =>
        options.log(`session ${userId}/${sessionId}: ${context}: ${(error as Error)?.message ?? error}`, {
          level: "error",
          msg: `${context}: ${(error as Error)?.message ?? error}`,
          user: userId,
          session: sessionId,
        }),
    }).then(
      (session) => {
        entry.session = session;
        if (fresh()) quietly(() => events?.created?.(userId, sessionId));
        return session;
      },
      async (error: unknown) => {
        if (entries.get(key) === entry) entries.delete(key);
        await runner.stop?.().catch(() => undefined);
        throw error;
      },
    );
    const entry: Entry = { userId, sessionId, holders: 0, runner, opening };
    entries.set(key, entry);
    return entry;
  }

  /** Once no closing of the session is under way: its entry, opened if need be, with its eviction
   * timer stopped, handed to `use` in the same tick (so no other change comes in between). */
  async function claim<T>(key: string, userId: string, sessionId: string, use: (entry: Entry) => T): Promise<T> {
    let entry = entries.get(key);
    while (entry?.closing) {
      await entry.closing;
      entry = entries.get(key);
    }
    if (closed) throw new Error("the server is shutting down");
    entry ??= create(key, userId, sessionId);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    return use(entry);
  }

  async function acquire(userId: string, sessionId: string): Promise<Lease> {
    const key = sessionKey(userId, sessionId);
    const held = await claim(key, userId, sessionId, (entry) => {
      entry.holders++;
      entry.left = undefined;
      return entry;
    });
    let session: HarnessSession;
    try {
      session = await held.opening;
    } catch (error) {
      held.holders--;
      throw error;
    }
    let released = false;
    return {
      session,
      release(left) {
        if (released) return;
        released = true;
        held.holders--;
        held.left = left;
        scheduleEviction(key, held);
      },
    };
  }

  return {
    acquire,
    runnerOf(userId, sessionId) {
      return entries.get(sessionKey(userId, sessionId))?.runner;
    },
    holds(userId, sessionId) {
      const entry = entries.get(sessionKey(userId, sessionId));
      return entry !== undefined && !entry.closing;
    },
    async live(userId, sessionId) {
      const entry = entries.get(sessionKey(userId, sessionId));
      if (!entry || entry.closing) return undefined;
      return entry.session ?? entry.opening.catch(() => undefined);
    },
    conversation,
    async remove(userId, sessionId, reason) {
      // Opened if need be: the session's runner (perhaps left by an earlier server) must stop too.
      const key = sessionKey(userId, sessionId);
      const closing = await claim(key, userId, sessionId, (held) => {
        held.closing = (async () => {
          const session = await held.opening.catch(() => undefined);
          // Its clients may hold batches the store never got: the next session of this id starts past them.
          const lastSeq = session?.snapshot().seq;
          session?.discard(reason);
          await stopRunner(held.runner);
          await options.db.deleteSession(userId, sessionId, lastSeq);
        })().finally(() => {
          if (entries.get(key) === held) entries.delete(key);
        });
        return held.closing;
      });
      await closing;
    },
    async resumeRuns() {
      let withRun: { userId: string; sessionId: string }[];
      try {
        withRun = options.db.sessionsWithRun();
      } catch (error) {
        // A damaged database page: the sessions it holds fail as they are opened, each saying so;
        // the others are served.
        options.log(`cannot look for runs to resume: ${(error as Error).message}; runs in flight when the server stopped are not resumed`, { level: "error" });
        return;
      }
      await Promise.all(
        withRun.map(async ({ userId, sessionId }) => {
          try {
            (await acquire(userId, sessionId)).release();
          } catch (error) {
            options.log(`cannot resume the run of session ${userId}/${sessionId}: ${(error as Error).message}`, {
              level: "error",
              msg: `cannot resume the run: ${(error as Error).message}`,
              user: userId,
              session: sessionId,
            });
          }
        }),
      );
    },
    size: () => entries.size,
    running() {
      let count = 0;
      for (const entry of entries.values()) if (entry.session?.busy) count++;
      return count;
    },
    awaitingApproval() {
      let count = 0;
      for (const entry of entries.values()) if (entry.session?.status === "awaiting-approval") count++;
      return count;
    },
    clients() {
      let count = 0;
      for (const entry of entries.values()) count += entry.session?.connectionCount ?? 0;
      return count;
    },
    mcpServersConnected() {
      let count = 0;
      for (const entry of entries.values()) count += entry.session?.snapshot().state.available?.mcpServers.filter((server) => server.status === "connected").length ?? 0;
      return count;
    },
    refuseRuns(reason) {
      refusal = reason;
    },
    async close(reason) {
      closed = true;
      const all = [...entries.values()];
      for (const entry of all) if (entry.timer) clearTimeout(entry.timer);
      await Promise.all(all.map((entry) => entry.closing ?? shutDown(entry, entry.holders > 0 ? reason : entry.left)));
      entries.clear();
    },
  };
}

/** The session's shells that run are written down as killed: its runner's workspace is closed next,
 * which stops them, and a session loaded again must not show them running. */
function stopsShells(session: HarnessSession): void {
  const shells = session.snapshot().state.shells;
  if (!shells?.some((shell) => shell.status === "running")) return;
  const now = Date.now();
  const ended = shells.map((shell) => (shell.status === "running" ? { ...shell, status: "killed" as const, endedAt: now } : shell));
  session.commit([{ type: "set", path: ["shells"], value: ended }]);
}
