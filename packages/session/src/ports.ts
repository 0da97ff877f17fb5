// What a session needs from its host: a runner to talk to, clients to talk to, and (optionally) the
// other sessions of the same user.
import type { HarnessCommand, HarnessState, RewindResult, RunControl, RunEndEvent, RunnerEvent, RunnerQuery, RunnerShells, TranscriptMessage, Usage } from "@harness/protocol";

/** A connected client. `send` must not block; a host drops or closes clients that fall behind.
 * `close`, when given, ends the client's connection (used when its session is deleted). */
export type Connection = { send(frame: string): void; close?(code: number, reason: string): void };

/** A request to the run in flight (RunnerProtocol control endpoints). */
export type { RunControl };

/** A runner's answer: failures are values. `status` is the runner's HTTP status when it answered
 * (404: no such run or call, 409: busy); absent when it could not be reached. */
export type RunnerAnswer<T> = { ok: true; value: T } | { ok: false; status?: number; message: string };

/** How a session reaches a runner. */
export type RunnerPort = {
  /** Starts a run and yields its events, ending after run.completed or run.error. Aborting
   * `signal` cancels the run; the run's last event, when it comes after that, goes to `onLateEnd`
   * (a cancelled run's usage still counts). */
  query(body: RunnerQuery, opts: { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void }): AsyncIterable<RunnerEvent>;
  /** Re-attaches to run `requestId`: its events after seq `afterSeq`, then live ones, to its end.
   * Throws when the run or its runner is gone. Aborting `signal` cancels the run; its last event,
   * when it comes after that, goes to `onLateEnd` as with query. */
  attach(requestId: string, afterSeq: number, opts: { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void }): AsyncIterable<RunnerEvent>;
  control(requestId: string, control: RunControl): Promise<RunnerAnswer<undefined>>;
  /** Restores the workspace's files to before the run that answered `userMessageId` (dryRun: only
   * reports what would change). */
  rewind(request: { userMessageId: string; dryRun: boolean }): Promise<RunnerAnswer<RewindResult>>;
  /** The conversation's background shells as the runner keeps them (GET /shells), without starting
   * a runner: at once, or, with `after` (the version an answer gave), once they differ from that
   * version, or with the same version after the runner's wait. A host counts a request as the
   * session's activity while it waits. Absent: the host reaches no shells between runs. */
  shells?(after: string | undefined, opts: { signal: AbortSignal }): Promise<RunnerAnswer<RunnerShells>>;
  /** Stops a background shell, run or no run (POST /shells/kill): what it did, in words (404: no
   * such shell, 409: not running). Absent: only a run takes kills. */
  killShell?(shellId: string): Promise<RunnerAnswer<string>>;
};

/** A session's conversation: what resume and fork copy. */
export type Conversation = {
  state: HarnessState;
  transcript: TranscriptMessage[];
  /** Transcript length before the run of each user message that started one. */
  marks: Record<string, number>;
};

/** How a run ended, as an operator counts it. */
export type RunOutcome = "completed" | "error" | "cancelled" | "interrupted";

/** What a host counts for its operators (metrics). Called at command and run granularity, never per
 * delta; each call must be cheap and must not throw. */
export type SessionCounts = {
  /** A valid command arrived (before it runs). */
  command(type: HarnessCommand["type"]): void;
  /** An error frame that refuses a frame or a command went to a client, with its code. */
  refused(code: string): void;
  /** An error frame that tells of the session itself (not stored, deleted) went to a client. */
  notice(code: string): void;
  /** A run started here, or one a previous host left whose runner answered once this one picked it up. */
  runStarted(): void;
  /** A run counted by runStarted ended. */
  runEnded(outcome: RunOutcome): void;
  /** A run a previous host left, written down as interrupted as this one picks it up (its runner
   * gone): neither started nor ended here. */
  runInterruptedAtStart(): void;
  /** The session's usage grew by `added` (a model call counted, a run's end, a cancelled run's late end). */
  usage(added: Usage): void;
};
