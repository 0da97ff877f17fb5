// HarnessSession: the single source of truth of one conversation. Clients connect and send command
// frames; commands run one after another in the order they arrived, from whichever client; runner
// events come in through the RunnerPort; every change goes out as one numbered delta batch to every
// client and to the store.
import { ErrorCodes, parseClientFrame, type DeltaOperation, type FrameError, type HarnessCommand, type HarnessState, type TranscriptMessage } from "@harness/protocol";
import { CommandErrorCodes, executeCommand } from "./commands.ts";
import { SessionCore, type SessionOptions } from "./core.ts";
import type { Connection, Conversation, RunControl, RunnerAnswer } from "./ports.ts";
import { stopWatchingIdleShells, watchIdleShells } from "./idle-shells.ts";
import { isRunActive } from "./run-outcome.ts";
import { describe, interrupt, reattach, sendControl } from "./run-driver.ts";
import type { LoadedSession } from "./store.ts";

export { DEFAULT_REPLAY_BYTES, NOT_STORED, SEQ_JUMP_AFTER_CRASH } from "./core.ts";
export type { SessionOptions } from "./core.ts";

/** Error code for `cancel` when no run is in progress. */
export const NOT_RUNNING = CommandErrorCodes.notRunning;
/** Error code of the frame clients get when their session is deleted. */
export const SESSION_DELETED = "session_deleted";
/** Close code of a client's connection to a deleted session (the client SDK stops reconnecting). */
export const SESSION_DELETED_CLOSE = 4404;

/** Most commands (and error answers) a session holds waiting to run, from all its clients. */
export const MAX_WAITING_COMMANDS = 1_000;

type Step = { conn: Connection; index: number } & ({ error: FrameError } | { command: HarnessCommand });

/** Loads the session from its store (or starts an empty one) and returns it ready for clients. */
export async function openSession(options: SessionOptions): Promise<HarnessSession> {
  return new HarnessSession(options, await options.store.load());
}

export class HarnessSession {
  readonly #core: SessionCore;
  readonly #queue: Step[] = [];
  #working = false;

  constructor(options: SessionOptions, loaded: LoadedSession | undefined) {
    const core = new SessionCore(options, loaded);
    this.#core = core;
    if (isRunActive(core.state)) {
      if (core.restoredRun) reattach(core, core.restoredRun);
      else interrupt(core);
    } else if (core.restoredRun) {
      core.runChanged();
    }
    if (!core.run) watchIdleShells(core);
  }

  /** The state as of `seq`; both are final for every batch committed so far. */
  snapshot(): { state: HarnessState; seq: number } {
    this.#core.commitStaged();
    return { state: this.#core.state, seq: this.#core.seq };
  }

  get transcript(): readonly TranscriptMessage[] {
    return this.#core.transcript;
  }

  /** The conversation as resume and fork copy it. */
  conversation(): Conversation {
    return this.#core.conversation();
  }

  /** Sends `control` to the run in progress, after the controls clients sent before it, for a host
   * that must know the runner's answer (commands only report failures); 409 when no run is in
   * progress, or none has started on the runner yet. */
  controlRun(control: RunControl): Promise<RunnerAnswer<undefined>> {
    const run = this.#core.run;
    if (!run?.requestId) return Promise.resolve({ ok: false, status: 409, message: run ? "the run has not started on its runner yet" : "no run is in progress" });
    return new Promise((resolve) =>
      sendControl(
        this.#core,
        run,
        control,
        (message, status) => resolve({ ok: false, message, ...(status !== undefined && { status }) }),
        () => resolve({ ok: true, value: undefined }),
      ),
    );
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.#core.run !== undefined;
  }

  /** The state's status as of now (for a host's counts; no batch is committed to read it). */
  get status(): HarnessState["status"] {
    return this.#core.state.status;
  }

  get connectionCount(): number {
    return this.#core.connections.size;
  }

  /** Adds a client. With `since` (the last seq it holds) it gets exactly the batches it missed, or a
   * state frame when they are no longer kept; without, a state frame. */
  connect(conn: Connection, since?: number): void {
    this.#core.connect(conn, since);
  }

  disconnect(conn: Connection): void {
    this.#core.connections.delete(conn);
  }

  /** Handles one client frame: error frames go to `conn` only; valid commands run in order, after
   * any still waiting from earlier frames. */
  receive(conn: Connection, raw: string): void {
    const parsed = parseClientFrame(raw);
    const counts = this.#core.options.counts;
    if (counts) for (const { command } of parsed.commands) counts.command(command.type);
    const steps: Step[] = [
      ...parsed.errors.map((error) => ({ conn, index: error.command ?? -1, error })),
      ...parsed.commands.map(({ index, command }) => ({ conn, index, command })),
    ];
    if (parsed.errors.length && parsed.commands.length) steps.sort((a, b) => a.index - b.index);
    // A client that sends faster than its commands are answered (one may wait on the runner) is
    // told so, rather than queued without end.
    if (this.#queue.length + steps.length > MAX_WAITING_COMMANDS) {
      this.#core.sendError(conn, `${this.#queue.length} commands are still waiting to run: this frame was not taken; send it again once they are answered`, ErrorCodes.busy);
      return;
    }
    this.#queue.push(...steps);
    this.#drain();
  }

  /** Applies `operations` as one batch: the next seq, the log, the store and every client. */
  commit(operations: DeltaOperation[]): number {
    return this.#core.commit(operations);
  }

  /** Stores everything committed so far, with a snapshot. */
  flush(): Promise<void> {
    return this.#core.flush();
  }

  /** Ends the session in this process: a run in progress is written down as interrupted (and
   * cancelled), everything is stored, and clients are forgotten (the host closes their sockets). */
  async close(): Promise<void> {
    this.#core.ended = true;
    stopWatchingIdleShells(this.#core);
    this.#queue.length = 0;
    if (this.#core.run) interrupt(this.#core);
    await this.#core.flush("final");
    this.#core.stopPersisting();
    this.#core.connections.clear();
  }

  /** Ends the session for good (it was deleted): a run in progress is cancelled, nothing more is
   * stored, and every client gets an error frame saying `reason` and is disconnected. */
  discard(reason: string): void {
    this.#core.ended = true;
    stopWatchingIdleShells(this.#core);
    this.#queue.length = 0;
    const core = this.#core;
    const run = core.run;
    core.run = undefined;
    run?.controller.abort();
    core.discard();
    for (const conn of core.connections) {
      try {
        core.sendNotice(conn, reason, SESSION_DELETED);
        conn.close?.(SESSION_DELETED_CLOSE, reason.slice(0, 120));
      } catch (error) {
        core.report(error, "closing a client of a deleted session");
      }
    }
    core.connections.clear();
  }

  #drain(): void {
    while (!this.#working && !this.#core.ended && this.#queue.length) {
      const step = this.#queue.shift()!;
      if ("error" in step) {
        this.#core.sendError(step.conn, step.error.message, step.error.code, step.error.command);
        continue;
      }
      let pending: void | Promise<void>;
      try {
        pending = executeCommand(this.#core, step.conn, step.index, step.command);
      } catch (error) {
        this.#failed(step, error);
        continue;
      }
      if (!pending) continue;
      this.#working = true;
      pending
        .catch((error: unknown) => this.#failed(step, error))
        .finally(() => {
          this.#working = false;
          this.#drain();
        });
    }
  }

  #failed(step: Step & { command: HarnessCommand }, error: unknown): void {
    this.#core.report(error, `command ${step.command.type}`);
    this.#core.sendError(step.conn, `${step.command.type} failed: ${describe(error)}`, ErrorCodes.internal, step.index);
  }
}
