// Session storage in one SQLite file (node:sqlite). Reads run on the server's thread. Writes from
// every session are gathered for a few milliseconds and handed to the writer thread
// (writer.ts), which commits them as one transaction: a busy server does a few dozen small
// transactions a second, and none of them on its event loop. A read of a session sees everything
// written before it: a load first waits for that session's writes still on their way; a read of
// batches takes those of the writes on their way from the writes.
import { makeDirsSync } from "@harness/agent/make-dirs";
import { dirname } from "node:path";
import type { StatementSync } from "node:sqlite";
import { z } from "zod";
import { ConversationSpentSchema, HarnessStateSchema, TranscriptMessageSchema, UsageSchema, describeZodError, type TranscriptMessage } from "@harness/protocol";
import { DEFAULT_REPLAY_BYTES, SEQ_JUMP_AFTER_CRASH, type LoadedSession, type RunRecord, type SessionSnapshot, type SessionStore, type StoredBatch } from "@harness/session";
import { sessionKey } from "../ids.ts";
import { createCatalog, unstoredSeqOf, type SessionCatalog } from "./catalog.ts";
import type { ServerLog } from "../log/writer.ts";
import { createExecutionStore, type ExecutionStore } from "./executions.ts";
import { createWebhookStore, type WebhookStore } from "./webhooks.ts";
import { createMcpApprovalStore, type McpApprovalStore } from "./mcp-approvals.ts";
import { createRegisteredToolStore, type RegisteredToolStore } from "./registered-tools.ts";
import { createConformanceRunStore, type ConformanceRunStore } from "./conformance-runs.ts";
import { createRegisteredHarnessStore, type RegisteredHarnessStore } from "./registered-harnesses.ts";
import { createWebhookOutbox, type WebhookOutbox } from "./webhook-outbox.ts";
import { createFeedRows, type FeedRows } from "./feed-events.ts";
import { MAIN_BUSY_MS } from "./locked.ts";
import { markClosed, markOpen } from "./open-mark.ts";
import { openDatabaseFile } from "./schema.ts";
import type { WriteOp } from "./writer.ts";
import { createWriterLink } from "./writer-link.ts";
import { unsavedWrites } from "./unsaved.ts";

/** Batches kept per session for replay to reconnecting clients; older ones are pruned. */
export const KEPT_BATCHES = 5000;
/** And at most this many bytes of them: a client that missed more is sent a state frame. */
export const KEPT_BATCH_BYTES = DEFAULT_REPLAY_BYTES;
const TranscriptSchema = z.array(TranscriptMessageSchema);
const MarksSchema = z.record(z.string(), z.number().int().nonnegative());
const RunRecordSchema: z.ZodType<RunRecord> = z.object({
  requestId: z.string().optional(),
  lastEventSeq: z.number().int().nonnegative(),
  prompt: z.string().optional(),
  userMessageId: z.string(),
  assistantMessageId: z.string(),
  afterTool: z.boolean(),
  live: z
    .object({ usageBefore: UsageSchema.optional(), spentBefore: ConversationSpentSchema.optional(), counted: UsageSchema, calls: z.record(z.string(), UsageSchema).optional() })
    .optional(),
});

/** A SessionStore whose reads are synchronous. */
export type SqliteSessionStore = Omit<SessionStore, "load" | "readBatches" | "unstoredSeq"> & {
  load(): LoadedSession | undefined;
  unstoredSeq(): number;
  readBatches(after: number, maxBytes?: number): StoredBatch[] | undefined;
};

export type SqliteDatabase = {
  /** The store of one session. */
  storeFor(userId: string, sessionId: string): SqliteSessionStore;
  /** A session as stored, without marking it open (for copies: resume and fork). */
  readSession(userId: string, sessionId: string): LoadedSession | undefined;
  /** Deletes a session's rows, after every write queued before; `lastSeq`: the seq its clients may
   * hold (the live session's, which may be ahead of the store). */
  deleteSession(userId: string, sessionId: string, lastSeq?: number): Promise<void>;
  /** Sessions whose last stored batch left a run in flight. */
  sessionsWithRun(): { userId: string; sessionId: string }[];
  /** Listing, creating and renaming sessions; the runner process of each session. */
  catalog: SessionCatalog;
  /** The Open Harness API's executions. */
  executions: ExecutionStore;
  /** The Open Harness API's webhooks. */
  webhooks: WebhookStore;
  /** The .mcp.json servers each session's API caller approved. */
  mcpApprovals: McpApprovalStore;
  /** The tools programs registered for each session over the Open Harness API. */
  registeredTools: RegisteredToolStore;
  /** The Open Harness API's conformance runs, the last ones of each user. */
  conformanceRuns: ConformanceRunStore;
  /** The harnesses registered with the Open Harness registry (the server's, not a user's). */
  registeredHarnesses: RegisteredHarnessStore;
  /** The webhook deliveries not yet done. */
  webhookOutbox: WebhookOutbox;
  /** The Open Harness event feed's events other than executions' starts and ends. */
  feedEvents: FeedRows;
  /** Write transactions committed so far. */
  transactions(): number;
  /** Times the server's thread blocked for writes still with the writer thread (see WriterLink.waits). */
  writerWaits(): number;
  /** For a server that stops: sends again the sessions' writes that failed because another process
   * held the file's lock until they are stored or `waitMs` is over, logging what it waits for and
   * what it could not store, and why. True when everything is stored. */
  storeUnsaved(waitMs: number, log: ServerLog): Promise<boolean>;
  /** Commits every write still waiting and closes the file. It is marked closed only when no write
   * is left unstored: otherwise the next server takes its sessions for those of one that died. */
  close(): void;
};

/** Writes wait this long to share a transaction with the writes of other sessions. */
const COMMIT_DELAY_MS = 20;
/** A server that stops sends the writes that failed again this often. */
const UNSAVED_RETRY_MS = 250;
/** A read that waits for the writer thread gives up after this long. */
const WRITER_WAIT_MS = 10_000;

type SessionRow = { state: string; seq: number; transcript: string; clean: number; closed_by: number | null; run: string | null; marks: string | null };
type DeltaRow = { seq: number; ops: string };
type TailRow = { position: number; messages: string };

/** The stored transcript: the part written whole, then the messages added since, in order. */
function readTranscript(whole: string, tails: TailRow[], where: string): TranscriptMessage[] {
  let transcript = parseJson(whole, TranscriptSchema, `transcript of ${where}`);
  for (const tail of tails) {
    if (tail.position !== transcript.length) {
      throw new Error(`stored transcript of ${where} is broken: messages stored from position ${tail.position} follow ${transcript.length} messages`);
    }
    transcript = transcript.concat(parseJson(tail.messages, TranscriptSchema, `transcript of ${where} from message ${tail.position}`));
  }
  return transcript;
}

function parseJson<T>(text: string, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`stored ${what} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`stored ${what} is invalid: ${describeZodError(parsed.error)}`);
  // The value as stored, not as parsed: parsing drops fields this version does not know.
  return value as T;
}

export function openSqliteDatabase(path: string, options: { onError?: (error: unknown) => void; keptBatchBytes?: number } = {}): SqliteDatabase {
  makeDirsSync(dirname(path));
  const db = openDatabaseFile(path);
  // The writer thread checkpoints the WAL as it grows; this connection's rare writes (the catalog's)
  // should not make the server's thread do it.
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const { floor, opening, trustedFrom } = markOpen(db);
  /** How far a session loaded not clean numbers on (see open-mark.ts); the usual jump while
   * no server has died with this file open. */
  const crashJump = floor > 0 ? floor + SEQ_JUMP_AFTER_CRASH : undefined;
  // From now on the server's thread does not wait for another process's lock (locked.ts).
  db.exec(`PRAGMA busy_timeout = ${MAIN_BUSY_MS}`);
  const unsaved = unsavedWrites();
  /** Per session this server loaded not clean: the seq it numbered on from (see jumpFor). */
  const numberedFrom = new Map<string, number>();
  const writer = createWriterLink({ path, keptBatches: KEPT_BATCHES, keptBytes: options.keptBatchBytes ?? KEPT_BATCH_BYTES, opening, delayMs: COMMIT_DELAY_MS, waitMs: WRITER_WAIT_MS, onError: options.onError });

  const selectSession = db.prepare(
    `SELECT s.state, s.seq, s.transcript, s.clean, s.closed_by, a.run, COALESCE(m.marks, s.marks) AS marks FROM sessions s
       LEFT JOIN activity a ON a.user_id = s.user_id AND a.session_id = s.session_id
       LEFT JOIN session_marks m ON m.user_id = s.user_id AND m.session_id = s.session_id
     WHERE s.user_id = ? AND s.session_id = ?`,
  );
  const selectDeltas = db.prepare("SELECT seq, ops FROM deltas WHERE user_id = ? AND session_id = ? AND seq > ? ORDER BY seq");
  const selectDeltasBefore = db.prepare("SELECT seq, ops FROM deltas WHERE user_id = ? AND session_id = ? AND seq > ? AND seq < ? ORDER BY seq");
  const selectTails = db.prepare("SELECT position, messages FROM transcript_tails WHERE user_id = ? AND session_id = ? ORDER BY position");
  const selectWithRun = db.prepare(
    `SELECT a.user_id, a.session_id FROM activity a
       JOIN sessions s ON s.user_id = a.user_id AND s.session_id = a.session_id
     WHERE a.run IS NOT NULL`,
  );

  function rows<T>(statement: StatementSync, ...params: (string | number)[]): T[] {
    return statement.all(...params) as unknown as T[];
  }

  function read(userId: string, sessionId: string): LoadedSession | undefined {
    writer.settle(sessionKey(userId, sessionId));
    const row = selectSession.get(userId, sessionId) as SessionRow | undefined;
    if (!row) return undefined;
    const where = `session ${userId}/${sessionId}`;
    const snapshot: SessionSnapshot = {
      state: parseJson(row.state, HarnessStateSchema, `state of ${where}`),
      seq: row.seq,
      transcript: readTranscript(row.transcript, rows<TailRow>(selectTails, userId, sessionId), where),
      marks: row.marks ? parseJson(row.marks, MarksSchema, `marks of ${where}`) : {},
    };
    const batches = rows<DeltaRow>(selectDeltas, userId, sessionId, row.seq).map((r) => ({ seq: r.seq, operations: r.ops }));
    const clean = row.clean === 1 && row.closed_by !== null && row.closed_by >= trustedFrom;
    const loaded: LoadedSession = { snapshot, batches, clean };
    if (!clean && crashJump) loaded.seqJump = crashJump;
    if (row.run) loaded.run = parseJson(row.run, RunRecordSchema, `run record of ${where}`);
    return loaded;
  }

  /** How far a session loaded not clean, last stored at `stored`, numbers on. Past what a session of
   * `key` loaded before by this server may have sent too: while another process holds the file's
   * lock, that one's writes (the row marked open included) may all have failed, and the row still
   * reads as it did then. */
  function jumpFor(key: string, stored: number): number {
    const before = numberedFrom.get(key);
    const jump = Math.max(crashJump ?? SEQ_JUMP_AFTER_CRASH, before === undefined ? 0 : before + SEQ_JUMP_AFTER_CRASH - stored);
    numberedFrom.set(key, stored + jump);
    return jump;
  }

  function write(userId: string, sessionId: string, op: Omit<WriteOp, "userId" | "sessionId">, urgent = false): Promise<void> {
    return send({ userId, sessionId, ...op }, urgent);
  }

  function send(op: WriteOp, urgent = false): Promise<void> {
    const key = sessionKey(op.userId, op.sessionId);
    const done = writer.enqueue(key, op, urgent);
    unsaved.track(key, op, done);
    return done;
  }

  function storeFor(userId: string, sessionId: string): SqliteSessionStore {
    return {
      load(): LoadedSession | undefined {
        const found = read(userId, sessionId);
        if (!found) return undefined;
        const { seqJump: _jump, ...loaded } = found;
        const key = sessionKey(userId, sessionId);
        let clean = loaded.clean;
        if (clean) {
          // Durably open before returning: a server that dies from now on is noticed next time.
          write(userId, sessionId, { batches: [], final: false, markOpen: true }).catch((error: unknown) => options.onError?.(error));
          // Not stored (another process holds the file's lock): the session numbers on as after a
          // death, so that one that dies before the lock goes left no number a client saw to
          // reuse; its first write (a snapshot, tried until stored) marks the row open.
          clean = writer.settle(key);
        }
        // A session loaded not clean numbers on from past what is stored, its first write a
        // snapshot there. A row still behind where one loaded before by this server numbered from
        // holds nothing of that one (closed with its writes unstored), whatever it says.
        const stored = loaded.batches.at(-1)?.seq ?? loaded.snapshot.seq;
        if (stored < (numberedFrom.get(key) ?? 0)) clean = false;
        if (clean) return loaded;
        const jump = jumpFor(key, stored);
        return { ...loaded, clean: false, ...(jump !== SEQ_JUMP_AFTER_CRASH && { seqJump: jump }) };
      },
      write(batches, snapshot, writeOptions) {
        const op: Omit<WriteOp, "userId" | "sessionId"> = { batches, final: writeOptions?.final === true };
        if (snapshot) op.snapshot = encodeSnapshot(snapshot, writeOptions?.transcriptKept, writeOptions?.stateKept === true);
        if (writeOptions?.changedAt !== undefined) op.changedAt = writeOptions.changedAt;
        const run = writeOptions?.run;
        if (run !== undefined) op.run = run === null ? null : JSON.stringify(run);
        return write(userId, sessionId, op, writeOptions?.urgent === true);
      },
      unstoredSeq() {
        writer.settle(sessionKey(userId, sessionId));
        return unstoredSeqOf(db, userId, sessionId, floor);
      },
      readBatches(after, maxBytes = Infinity) {
        // Without waiting for the writes on their way (the writer thread may be waiting out another
        // process's lock): their batches, the newest, come from the writes themselves; the file
        // gives those before. Neither can miss one: the writes still unanswered stay listed.
        const queued = writer.unanswered(sessionKey(userId, sessionId)).flatMap((op) => op.batches.filter((b) => b.seq > after));
        const batches: StoredBatch[] = [];
        let total = 0;
        // Row by row, so that a catch-up too large to replay stops the read instead of loading it all.
        for (const row of selectDeltasBefore.iterate(userId, sessionId, after, queued[0]?.seq ?? Number.MAX_SAFE_INTEGER) as Iterable<DeltaRow>) {
          total += row.ops.length;
          if (total > maxBytes) return undefined;
          batches.push({ seq: row.seq, operations: row.ops });
        }
        for (const b of queued) {
          total += b.operations.length;
          if (total > maxBytes) return undefined;
          batches.push(b);
        }
        return batches;
      },
    };
  }

  let closed = false;
  return {
    storeFor,
    readSession: read,
    deleteSession: (userId, sessionId, lastSeq) =>
      write(userId, sessionId, { batches: [], final: false, remove: true, ...(lastSeq !== undefined && { lastSeq }) }),
    sessionsWithRun() {
      writer.settleAll();
      return rows<{ user_id: string; session_id: string }>(selectWithRun).map((r) => ({ userId: r.user_id, sessionId: r.session_id }));
    },
    catalog: createCatalog(db, floor, opening),
    executions: createExecutionStore(db),
    webhooks: createWebhookStore(db),
    mcpApprovals: createMcpApprovalStore(db),
    registeredTools: createRegisteredToolStore(db),
    conformanceRuns: createConformanceRunStore(db),
    registeredHarnesses: createRegisteredHarnessStore(db),
    webhookOutbox: createWebhookOutbox(db),
    feedEvents: createFeedRows(db),
    transactions: () => writer.transactions(),
    writerWaits: () => writer.waits(),
    async storeUnsaved(waitMs, log) {
      if (closed) return unsaved.describe().length === 0;
      const stored = await unsaved.store((op) => send(op, true), { waitMs, retryMs: UNSAVED_RETRY_MS, log });
      if (!stored) log(`not stored: ${unsaved.describe().join("; ")}`, { level: "error" });
      return stored;
    },
    close() {
      if (closed) return;
      closed = true;
      writer.close();
      const lost = unsaved.describe();
      if (lost.length > 0) {
        options.onError?.(new Error(`the file is left marked open, so that the next server numbers on past what these sessions' clients saw: ${lost.join("; ")}`));
        db.close();
        return;
      }
      try {
        markClosed(db);
      } catch (error) {
        // Next time the file is opened, its sessions are taken for those of a server that died.
        options.onError?.(error);
      }
      db.close();
    },
  };
}

/** With the transcript whole, or only the messages after the `kept` ones the store holds (none
 * when it holds them all); without the state when the store keeps the one it has. */
function encodeSnapshot({ state, seq, transcript, marks }: SessionSnapshot, kept: number | undefined, stateKept: boolean): NonNullable<WriteOp["snapshot"]> {
  const encoded: NonNullable<WriteOp["snapshot"]> = { marks: JSON.stringify(marks ?? {}) };
  if (!stateKept) encoded.state = { json: JSON.stringify(state), seq };
  if (kept === undefined) encoded.transcript = JSON.stringify(transcript);
  else if (kept < transcript.length) encoded.transcriptTail = { from: kept, messages: JSON.stringify(transcript.slice(kept)) };
  return encoded;
}
