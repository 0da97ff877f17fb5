// A RunnerPort driven by hand, for tests of sessions and hosts: every query becomes a FakeRun whose
// events the test pushes one by one, so it decides exactly what arrives and when. A run keeps its
// events, so a session can re-attach to it (as after a host restart) and get those after a seq.
import { isRunEnd, type BackgroundShellInfo, type RewindResult, type RunEndEvent, type RunnerEvent, type RunnerEventPayload, type RunnerQuery } from "@harness/protocol";
import type { RunControl, RunnerAnswer, RunnerPort } from "./ports.ts";

export type FakeRun = {
  body: RunnerQuery;
  /** The signal of the query that started the run. */
  signal: AbortSignal;
  /** The id attach finds it by: "req-N", or the requestId of the run.started the test emits. */
  requestId: string;
  /** Every event emitted so far, seq stamped. */
  events: RunnerEvent[];
  /** Delivers events (seq is stamped here) to every stream of the run. */
  emit(...events: RunnerEventPayload[]): void;
  /** Ends the streams open now without a terminal event. */
  end(): void;
  /** Makes the streams open now throw `error` once they have delivered what was emitted. */
  fail(error: Error): void;
  /** Resolves once the query's consumer stopped reading (it finished, aborted or broke off). */
  closed: Promise<void>;
  /** True once a stream of the run was aborted before the run ended (the port's cancel). */
  cancelled: boolean;
  /** Streams of the run reading now. */
  readers(): number;
};

export type FakeRunner = RunnerPort & {
  runs: FakeRun[];
  /** The next query made (or the latest, if one was made and not yet taken). */
  nextRun(): Promise<FakeRun>;
  controls: { requestId: string; control: RunControl }[];
  rewinds: { userMessageId: string; dryRun: boolean }[];
  attaches: { requestId: string; afterSeq: number }[];
  /** Answers a control request; default: ok while the run has not ended, else 404. */
  onControl?: (requestId: string, control: RunControl) => RunnerAnswer<undefined> | Promise<RunnerAnswer<undefined>>;
  /** Answers a rewind; default: ok with no files. */
  onRewind?: (request: { userMessageId: string; dryRun: boolean }) => RunnerAnswer<RewindResult> | Promise<RunnerAnswer<RewindResult>>;
  /** While true, attach fails as when the runner is gone (and the shells cannot be asked). */
  gone: boolean;
  /** The conversation's shells as the runner keeps them; setShells changes them (a new version),
   * answering the requests that wait. */
  shellsNow: BackgroundShellInfo[];
  setShells(shells: BackgroundShellInfo[]): void;
  /** The version each request for the shells named, in order. */
  shellAsks: (string | undefined)[];
  /** Requests for the shells waiting for a change now. */
  shellsWaiting(): number;
  /** The shells killed between runs (killShell), in order; each kill sets the shell killed. */
  shellKills: string[];
};

type Reader = { wake?: () => void; stop?: { error?: Error; at: number } };
type RunInternals = FakeRun & { readersSet: Set<Reader>; ended: boolean; onLateEnd?: (event: RunEndEvent) => void };

export function createFakeRunner(): FakeRunner {
  const runs: RunInternals[] = [];
  let taken = 0;
  let waiter: ((run: FakeRun) => void) | undefined;

  function makeRun(body: RunnerQuery, signal: AbortSignal): { run: RunInternals; markClosed: () => void } {
    let markClosed!: () => void;
    const readersSet = new Set<Reader>();
    const wakeAll = () => {
      for (const r of readersSet) r.wake?.();
    };
    const run: RunInternals = {
      body,
      signal,
      requestId: body.requestId ?? `req-${runs.length + 1}`,
      events: [],
      cancelled: false,
      ended: false,
      readersSet,
      readers: () => readersSet.size,
      emit: (...events) => {
        for (const payload of events) {
          const event = { ...payload, seq: run.events.length + 1 } as RunnerEvent;
          if (event.type === "run.started") run.requestId = event.requestId;
          if (isRunEnd(event)) {
            run.ended = true;
            // As the real port does: a cancelled run's last event goes to the onLateEnd of its query or
            // of the stream that re-attached to it.
            if (run.cancelled) run.onLateEnd?.(event);
          }
          run.events.push(event);
        }
        wakeAll();
      },
      end: () => {
        for (const r of readersSet) r.stop ??= { at: run.events.length };
        wakeAll();
      },
      fail: (error) => {
        for (const r of readersSet) r.stop ??= { error, at: run.events.length };
        wakeAll();
      },
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
    };
    return { run, markClosed };
  }

  async function* read(run: RunInternals, from: number, signal: AbortSignal, onDone?: () => void): AsyncGenerator<RunnerEvent> {
    const reader: Reader = {};
    run.readersSet.add(reader);
    const onAbort = () => reader.wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    let position = from;
    try {
      for (;;) {
        if (signal.aborted) {
          if (!run.ended) run.cancelled = true;
          throw signal.reason;
        }
        if (reader.stop && position >= reader.stop.at) {
          if (reader.stop.error) throw reader.stop.error;
          return;
        }
        if (position < run.events.length) {
          const event = run.events[position++];
          yield event;
          if (isRunEnd(event)) return;
          continue;
        }
        await new Promise<void>((resolve) => (reader.wake = resolve));
        reader.wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      run.readersSet.delete(reader);
      onDone?.();
    }
  }

  let shellsVersion = 1;
  const shellWaiters = new Set<() => void>();
  const fake: FakeRunner = {
    runs,
    controls: [],
    rewinds: [],
    attaches: [],
    gone: false,
    shellsNow: [],
    shellAsks: [],
    shellKills: [],
    shellsWaiting: () => shellWaiters.size,
    setShells(shells) {
      fake.shellsNow = shells;
      shellsVersion++;
      for (const wake of [...shellWaiters]) wake();
    },
    async shells(after, { signal }) {
      fake.shellAsks.push(after);
      if (fake.gone) return { ok: false, message: "the runner of this session is not running" };
      if (after === String(shellsVersion)) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            shellWaiters.delete(wake);
            signal.removeEventListener("abort", wake);
            resolve();
          };
          shellWaiters.add(wake);
          signal.addEventListener("abort", wake, { once: true });
        });
        if (signal.aborted) return { ok: false, message: "given up on" };
      }
      return { ok: true, value: { version: String(shellsVersion), shells: fake.shellsNow } };
    },
    async killShell(shellId) {
      fake.shellKills.push(shellId);
      const shell = fake.shellsNow.find((s) => s.id === shellId);
      if (!shell) return { ok: false, status: 404, message: `shellId: no background shell "${shellId}" in this conversation` };
      if (shell.status !== "running") return { ok: false, status: 409, message: `Background shell ${shellId} is not running (${shell.status}): nothing to kill.` };
      fake.setShells(fake.shellsNow.map((s) => (s.id === shellId ? { ...s, status: "killed" as const } : s)));
      return { ok: true, value: `Killed background shell ${shellId}: ${shell.command}` };
    },
    query(body, opts) {
      const { run, markClosed } = makeRun(body, opts.signal);
      if (opts.onLateEnd) run.onLateEnd = opts.onLateEnd;
      runs.push(run);
      if (waiter) {
        taken++;
        const w = waiter;
        waiter = undefined;
        w(run);
      }
      return read(run, 0, opts.signal, markClosed);
    },
    attach(requestId, afterSeq, opts) {
      fake.attaches.push({ requestId, afterSeq });
      const run = runs.find((r) => r.requestId === requestId);
      if (fake.gone || !run) {
        return (async function* (): AsyncGenerator<RunnerEvent> {
          throw new Error(fake.gone ? "cannot reach the runner" : `no run ${requestId}`);
        })();
      }
      if (opts.onLateEnd) run.onLateEnd = opts.onLateEnd;
      return read(run, afterSeq, opts.signal);
    },
    async control(requestId, control) {
      fake.controls.push({ requestId, control });
      if (fake.onControl) return fake.onControl(requestId, control);
      const run = runs.find((r) => r.requestId === requestId);
      if (!run || run.ended) return { ok: false, status: 404, message: `no run ${requestId} in progress` };
      return { ok: true, value: undefined };
    },
    async rewind(request) {
      fake.rewinds.push(request);
      if (fake.onRewind) return fake.onRewind(request);
      return { ok: true, value: { dryRun: request.dryRun, files: [] } };
    },
    nextRun() {
      if (taken < runs.length) return Promise.resolve(runs[taken++]);
      return new Promise((resolve) => (waiter = resolve));
    },
  };
  return fake;
}
