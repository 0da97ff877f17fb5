// A RunnerPort driven by hand, for tests of sessions and hosts: every query becomes a FakeRun whose
// events the test pushes one by one, so it decides exactly what arrives and when.
import type { RunnerEvent, RunnerEventPayload, RunnerQuery } from "@harness/protocol";
import type { RunnerPort } from "./session.ts";

export type FakeRun = {
  body: RunnerQuery;
  signal: AbortSignal;
  /** Delivers events (seq is stamped here). */
  emit(...events: RunnerEventPayload[]): void;
  /** Ends the stream without a terminal event. */
  end(): void;
  /** Makes the stream throw `error`. */
  fail(error: Error): void;
  /** Resolves once the consumer stopped reading (it finished, aborted or broke off). */
  closed: Promise<void>;
};

export type FakeRunner = RunnerPort & {
  runs: FakeRun[];
  /** The next query made (or the latest, if one was made and not yet taken). */
  nextRun(): Promise<FakeRun>;
};

export function createFakeRunner(): FakeRunner {
  const runs: FakeRun[] = [];
  let taken = 0;
  let waiter: ((run: FakeRun) => void) | undefined;

  function query(body: RunnerQuery, opts: { signal: AbortSignal }): AsyncIterable<RunnerEvent> {
    const queue: ({ event: RunnerEvent } | { end: true } | { error: Error })[] = [];
    let wake: (() => void) | undefined;
    let seq = 0;
    let markClosed!: () => void;
    const push = (item: (typeof queue)[number]) => {
      queue.push(item);
      wake?.();
    };
    const run: FakeRun = {
      body,
      signal: opts.signal,
      emit: (...events) => {
        for (const event of events) push({ event: { ...event, seq: ++seq } as RunnerEvent });
      },
      end: () => push({ end: true }),
      fail: (error) => push({ error }),
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
    };
    opts.signal.addEventListener("abort", () => wake?.(), { once: true });
    runs.push(run);
    if (waiter) {
      taken++;
      const w = waiter;
      waiter = undefined;
      w(run);
    }

    async function* events(): AsyncGenerator<RunnerEvent> {
      try {
        for (;;) {
          while (queue.length === 0) {
            if (opts.signal.aborted) throw opts.signal.reason;
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
          if (opts.signal.aborted) throw opts.signal.reason;
          const item = queue.shift()!;
          if ("end" in item) return;
          if ("error" in item) throw item.error;
          yield item.event;
        }
      } finally {
        markClosed();
      }
    }
    return events();
  }

  return {
    runs,
    query,
    nextRun() {
      if (taken < runs.length) return Promise.resolve(runs[taken++]);
      return new Promise((resolve) => (waiter = resolve));
    },
  };
}
