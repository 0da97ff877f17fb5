// Sub-agents started with the Task tool's run_in_background: each runs detached from the call that
// started it, on an abort signal of its own that the run's cancellation fires too. The main loop
// tells the model of each one that finishes (a task-notification) unless TaskOutput gave it the
// result first; TaskStop stops one.
import type { SubagentOutput } from "./types.ts";

/** Background agents one run may have running at once, unless told otherwise. */
export const MAX_RUNNING_BACKGROUND_AGENTS = 8;

export type BackgroundAgentStatus = "running" | "completed" | "failed" | "killed";

export type BackgroundAgent = {
  /** The sub-agent's agentId: the id its events carry and the model passes to TaskOutput and TaskStop. */
  readonly id: string;
  readonly description: string;
  readonly agentType: string;
  readonly startedAt: number;
  status: BackgroundAgentStatus;
  /** Its final reply, once it has ended. */
  output?: SubagentOutput;
  endedAt?: number;
  /** The model has its result (TaskOutput gave it, a notification told it, or it stopped the agent). */
  delivered: boolean;
  /** Settles once it has ended; never rejects. */
  done: Promise<void>;
  /** Stops it if it is running; whether it was. */
  stop(): boolean;
};

export type BackgroundAgentInfo = { id: string; description: string; agentType: string };

/** Runs the sub-agent `id` until `signal` fires. Should not reject; a rejection counts as a failure. */
export type BackgroundRun = (id: string, signal: AbortSignal) => Promise<SubagentOutput>;

export type BackgroundAgents = {
  /** Starts `run` detached; the agent, or why it may not start now. */
  start(info: BackgroundAgentInfo, run: BackgroundRun): BackgroundAgent | { error: string };
  get(id: string): BackgroundAgent | undefined;
  /** Every agent started, in order, finished ones included. */
  list(): BackgroundAgent[];
  /** The agents that have ended and whose result the model does not have yet, now marked delivered. */
  takeFinished(): BackgroundAgent[];
  /** Whether an agent is running, or has ended with its result not yet delivered. */
  pending(): boolean;
  /** Settles when an agent that runs now ends, or `signal` fires; at once if none runs. */
  nextEnd(signal: AbortSignal): Promise<void>;
  /** Settles once every agent started has ended. */
  settled(): Promise<void>;
};

export type BackgroundAgentsOptions = {
  limit?: number;
  /** Hears each agent as it ends (to count its usage in the run's, say). */
  onEnd?: (agent: BackgroundAgent) => void;
};

/** The background agents of one run, all stopped when `runSignal` fires. */
export function createBackgroundAgents(runSignal: AbortSignal, options: BackgroundAgentsOptions = {}): BackgroundAgents {
  const limit = options.limit ?? MAX_RUNNING_BACKGROUND_AGENTS;
  const agents = new Map<string, BackgroundAgent>();
  const waiters = new Set<() => void>();
  const running = () => [...agents.values()].filter((agent) => agent.status === "running");
  return {
    start(info, run) {
      if (running().length >= limit) {
        return { error: `${limit} background agents are already running, the most there may be at once. Wait for one to finish (TaskOutput), stop one (TaskStop), or run this task without run_in_background.` };
      }
      const own = new AbortController();
      const signal = AbortSignal.any([runSignal, own.signal]);
      const agent: BackgroundAgent = {
        ...info,
        startedAt: Date.now(),
        status: "running",
        delivered: false,
        done: Promise.resolve(),
        stop() {
          if (agent.status !== "running") return false;
          agent.status = "killed";
          own.abort();
          return true;
        },
      };
      const ended = (output: SubagentOutput) => {
        agent.output = output;
        agent.endedAt = Date.now();
        if (signal.aborted) agent.status = "killed";
        else if (agent.status === "running") agent.status = output.isError ? "failed" : "completed";
        options.onEnd?.(agent);
        for (const wake of waiters) wake();
        waiters.clear();
      };
      agent.done = run(info.id, signal).then(ended, (error: unknown) => ended({ content: `The agent failed: ${error instanceof Error ? error.message : String(error)}`, isError: true }));
      agents.set(info.id, agent);
      return agent;
    },
    get: (id) => agents.get(id),
    list: () => [...agents.values()],
    takeFinished() {
      const finished = [...agents.values()].filter((agent) => agent.status !== "running" && !agent.delivered);
      for (const agent of finished) agent.delivered = true;
      return finished;
    },
    pending: () => [...agents.values()].some((agent) => agent.status === "running" || !agent.delivered),
    nextEnd(signal) {
      if (running().length === 0 || signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        waiters.add(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
    },
    async settled() {
      await Promise.all([...agents.values()].map((agent) => agent.done));
    },
  };
}
