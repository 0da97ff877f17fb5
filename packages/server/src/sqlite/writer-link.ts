// The server's side of the writer thread (writer.ts): writes wait a few milliseconds to share
// a transaction, then go to the thread in order; each resolves once its transaction is committed.
// `settle` blocks until the writes of one session are committed, for reads that must see them.
import { Worker } from "node:worker_threads";
import { DatabaseLockedError } from "./locked.ts";
import type { WriteOp, WriterData, WriterReply, WriterRequest } from "./writer.ts";

export type WriterLink = {
  /** Queues a write of the session `key`; resolves when it is committed, rejects with why not (a
   * DatabaseLockedError when another process held the file's lock). An `urgent` write goes
   * to the thread at the end of this event-loop turn, with whatever else is queued by then. */
  enqueue(key: string, op: WriteOp, urgent?: boolean): Promise<void>;
  /** Returns once every write of `key` queued so far is committed (or failed). Blocks the thread.
   * False when the last transaction holding one of them failed whole (another process held the
   * file's lock): the write's promise rejects with why, a moment later. */
  settle(key: string): boolean;
  /** The same, for every session. */
  settleAll(): void;
  /** The writes of `key` not yet answered (waiting, or with the thread), oldest first: a read that
   * takes these from here need not wait for them, and the thread may be waiting out another
   * process's lock. */
  unanswered(key: string): WriteOp[];
  transactions(): number;
  /** How often `settle` or `settleAll` blocked the thread for a write the writer thread had not
   * handled yet: each one stalls the event loop. */
  waits(): number;
  /** Commits what is queued, waits for it, and stops the thread. Writes after this are refused. */
  close(): void;
};

type Pending = { key: string; op: WriteOp; resolve(): void; reject(error: unknown): void };

export function createWriterLink(options: {
  path: string;
  keptBatches: number;
  /** Bytes of batches kept per session (see WriterData). */
  keptBytes: number;
  /** See WriterData.opening (default 0). */
  opening?: number;
  delayMs: number;
  /** A blocking wait for the thread gives up after this long. */
  waitMs: number;
  onError?: (error: unknown) => void;
  /** The thread's script (default writer.ts; tests put one that fails in its place). */
  script?: URL;
}): WriterLink {
  // [0]: the id of the last request the thread has handled, [1]: of the last it failed, [2]: 1 once
  // it handles no more (see WriterData.done). Ids start at 1.
  const done = new Int32Array(new SharedArrayBuffer(12));
  const data: WriterData = { path: options.path, keptBatches: options.keptBatches, keptBytes: options.keptBytes, opening: options.opening ?? 0, done: done.buffer as SharedArrayBuffer };
  let worker: Worker | undefined;
  let nextId = 1;
  let pending: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let urgentPost: NodeJS.Immediate | undefined;
  let transactions = 0;
  let waits = 0;
  let closed = false;
  const inFlight = new Map<number, Pending[]>();
  /** Sessions with writes not yet committed: the id of the last request holding one (0: not sent yet). */
  const unsettled = new Map<string, number>();

  function start(): Worker {
    Atomics.store(done, 2, 0);
    const made = new Worker(options.script ?? new URL("./writer.ts", import.meta.url), { workerData: { sqliteWriter: data } });
    made.unref();
    made.on("message", onReply);
    made.on("error", (error) => stopped(made, error));
    made.on("exit", (code) => stopped(made, new Error(`it exited with code ${code}`)));
    return made;
  }

  function stopped(which: Worker, error: Error): void {
    if (worker !== which) return;
    worker = undefined;
    const failure = new Error(`the session database's writer thread stopped: ${error.message}`);
    if (!closed) options.onError?.(failure);
    for (const [id, writes] of inFlight) {
      inFlight.delete(id);
      settled(id, writes);
      for (const w of writes) w.reject(failure);
    }
  }

  function settled(id: number, writes: Pending[]): void {
    for (const w of writes) if (unsettled.get(w.key) === id) unsettled.delete(w.key);
    if (inFlight.size === 0) worker?.unref();
  }

  function onReply(reply: WriterReply): void {
    transactions = reply.transactions;
    const writes = inFlight.get(reply.id);
    if (!writes) return;
    inFlight.delete(reply.id);
    settled(reply.id, writes);
    if (reply.problem) options.onError?.(new Error(reply.problem));
    const failures = new Map(reply.failed?.map((f) => [f.index, f.error]));
    writes.forEach((w, index) => {
      const error = reply.error ?? failures.get(index);
      if (error === undefined) return w.resolve();
      const message = `storing session ${w.key.replace("\0", "/")} failed: ${error}`;
      w.reject(reply.error !== undefined && reply.locked ? new DatabaseLockedError(message) : new Error(message));
    });
  }

  function send(request: WriterRequest): void {
    worker ??= start();
    worker.ref();
    worker.postMessage(request);
  }

  function post(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (urgentPost) clearImmediate(urgentPost);
    urgentPost = undefined;
    if (pending.length === 0) return;
    const id = nextId++;
    const writes = pending;
    pending = [];
    inFlight.set(id, writes);
    for (const w of writes) unsettled.set(w.key, id);
    send({ id, writes: writes.map((w) => w.op) });
  }

  /** Blocks until the thread has handled request `id`: true; false at once when it handles no more
   * (its end fails the request's writes). */
  function waitFor(id: number): boolean {
    const deadline = performance.now() + options.waitMs;
    if (Atomics.load(done, 0) < id) waits++;
    for (;;) {
      const seen = Atomics.load(done, 0);
      if (seen >= id) return true;
      if (Atomics.load(done, 2) === 1) return false;
      const left = deadline - performance.now();
      if (left <= 0 || !worker) throw new Error(`the session database's writer thread did not answer within ${options.waitMs} ms`);
      Atomics.wait(done, 0, seen, Math.min(left, 100));
    }
  }

  return {
    enqueue(key, op, urgent = false) {
      if (closed) return Promise.reject(new Error("the session database is closed"));
      return new Promise<void>((resolve, reject) => {
        pending.push({ key, op, resolve, reject });
        unsettled.set(key, 0);
        if (urgent) urgentPost ??= setImmediate(post);
        else timer ??= setTimeout(post, options.delayMs);
      });
    },
    settle(key) {
      const id = unsettled.get(key);
      if (id === undefined) return true;
      if (id === 0) post();
      const last = unsettled.get(key) ?? 0;
      return waitFor(last) && Atomics.load(done, 1) !== last;
    },
    settleAll() {
      if (unsettled.size === 0) return;
      post();
      waitFor(nextId - 1);
    },
    unanswered(key) {
      if (!unsettled.has(key)) return [];
      const ops: WriteOp[] = [];
      for (const writes of [...inFlight.values(), pending]) for (const w of writes) if (w.key === key) ops.push(w.op);
      return ops;
    },
    transactions: () => transactions,
    waits: () => waits,
    close() {
      if (closed) return;
      post();
      closed = true;
      if (!worker) return;
      const id = nextId++;
      send({ id, close: true });
      try {
        waitFor(id);
      } catch (error) {
        options.onError?.(error);
      }
      worker.unref();
    },
  };
}
