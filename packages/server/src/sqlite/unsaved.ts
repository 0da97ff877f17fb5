// The last write of each session until it is known to be stored. A server stopped while another
// process holds the file's lock gives those that failed for it a few seconds to be stored (the
// sessions' own retries stop with them), and names what it could not store, and why. A write that
// failed for another cause (a full disk, a session with no stored state to keep) would fail again:
// it is not sent again.
import { DatabaseLockedError } from "./locked.ts";
import type { WriteOp } from "./writer.ts";
import type { ServerLog } from "../log/writer.ts";

/** `locked`: it failed because another process held the file's lock. */
type Entry = { op: WriteOp; done: Promise<void>; error?: string; locked?: boolean };

export type UnsavedWrites = {
  /** `op` is the session's newest write: it replaces the one before, which it holds (the sessions
   * send a failed write's content again with their next one). */
  track(key: string, op: WriteOp, done: Promise<void>): void;
  /** Waits for the writes under way; sends those that failed for the file's lock again, every
   * `retryMs`, until none is left so or `waitMs` is over. True when nothing is left unstored. */
  store(send: (op: WriteOp) => Promise<void>, options: { waitMs: number; retryMs: number; log: ServerLog }): Promise<boolean>;
  /** What failed and why, one line per session, for the log. */
  describe(): string[];
};

export function unsavedWrites(): UnsavedWrites {
  const latest = new Map<string, Entry>();

  function track(key: string, op: WriteOp, done: Promise<void>): void {
    const stored = () => {
      if (latest.get(key) === entry) latest.delete(key);
    };
    const refused = (error: unknown) => {
      entry.error = (error as Error).message;
      entry.locked = error instanceof DatabaseLockedError;
    };
    const entry: Entry = { op, done: done.then(stored, refused) };
    latest.set(key, entry);
  }

  const failed = () => [...latest.values()].filter((e) => e.error !== undefined);
  const locked = () => failed().filter((e) => e.locked);

  return {
    track,
    async store(send, { waitMs, retryMs, log }) {
      const deadline = performance.now() + waitMs;
      await Promise.all([...latest.values()].map((e) => e.done));
      let waiting = locked();
      if (waiting.length === 0) return failed().length === 0;
      log(`waiting up to ${Math.round(waitMs / 1000)} s to store the last changes of ${waiting.map((e) => sessionName(e.op)).join(", ")}: ${waiting[0]!.error}`, { level: "warn" });
      while (waiting.length > 0 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        await Promise.all(waiting.map((e) => send(e.op).catch(() => {})));
        await Promise.all([...latest.values()].map((e) => e.done));
        waiting = locked();
      }
      const stored = failed().length === 0;
      if (stored) log("the last changes of every session are stored");
      return stored;
    },
    describe: () => failed().map((e) => `${sessionName(e.op)}: ${whatOf(e.op)} (${e.error})`),
  };
}

const sessionName = (op: WriteOp) => `session ${op.userId}/${op.sessionId}`;

/** What a write holds, as a user would look for it. */
function whatOf(op: WriteOp): string {
  if (op.remove) return "its deletion";
  if (op.markOpen) return "the mark that it was open";
  const parts: string[] = [];
  const first = op.batches[0]?.seq;
  const last = op.batches.at(-1)?.seq;
  if (first !== undefined) parts.push(first === last ? `change ${first}` : `changes ${first} to ${last}`);
  if (op.snapshot?.state) parts.push(`its state as of change ${op.snapshot.state.seq}`);
  if (op.snapshot?.transcript !== undefined) parts.push("its conversation");
  else if (op.snapshot?.transcriptTail) parts.push(`its conversation from message ${op.snapshot.transcriptTail.from + 1}`);
  if (op.run !== undefined) parts.push(op.run === null ? "the end of its run" : "its run record");
  if (op.final) parts.push("that it was closed");
  return parts.join(", ") || "its marks";
}
