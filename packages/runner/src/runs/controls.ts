// What the session can do to a run in flight: answer its approval requests, steer it, configure it.
import type { AgentEvent, KillShellAnswer, RunConfigureBody, TodoItem } from "@harness/protocol";
import type { ApprovalDecision, ApprovalRequest, SteerInbox } from "../backend.ts";

export type Approvals = {
  /** Emits approval.requested and waits for answer(); the run's abort denies with "cancelled".
   * approval.resolved is emitted before the promise settles. */
  request(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** Settles the pending request for `toolUseId`; false when none is pending. */
  answer(toolUseId: string, decision: ApprovalDecision): boolean;
  pending(): string[];
};

export function createApprovals(emit: (event: AgentEvent) => void, signal: AbortSignal): Approvals {
  const waiting = new Map<string, (decision: ApprovalDecision) => void>();

  function answer(toolUseId: string, decision: ApprovalDecision): boolean {
    const settle = waiting.get(toolUseId);
    if (!settle) return false;
    settle(decision);
    return true;
  }

  return {
    request(request) {
      return new Promise((resolve) => {
        const { toolUseId } = request;
        // A second request for the same call replaces the first, which is denied.
        answer(toolUseId, { behavior: "deny", reason: "superseded by a new request for the same call" });
        const onAbort = () => answer(toolUseId, { behavior: "deny", reason: "cancelled" });
        const settle = (decision: ApprovalDecision) => {
          waiting.delete(toolUseId);
          signal.removeEventListener("abort", onAbort);
          emit({
            type: "approval.resolved",
            toolUseId,
            behavior: decision.behavior,
            ...(decision.reason !== undefined && { reason: decision.reason }),
          });
          resolve(decision);
        };
        waiting.set(toolUseId, settle);
        // Settled by a change of permission mode: only while it is still this request's turn.
        void request.answered?.then((decision) => {
          if (waiting.get(toolUseId) === settle) settle(decision);
        });
        emit({
          type: "approval.requested",
          toolUseId,
          toolName: request.toolName,
          description: request.description,
          ...(request.reason !== undefined && { reason: request.reason }),
          ...(request.input !== undefined && { input: request.input }),
        });
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    answer,
    pending: () => [...waiting.keys()],
  };
}

export type SteerQueue = SteerInbox & { push(message: string): void };

/** Messages go to the subscribers when there are any, else wait for take(): each message is
 * delivered once. */
export function createSteerQueue(): SteerQueue {
  let waiting: string[] = [];
  const subscribers = new Set<(message: string) => void>();
  return {
    push(message) {
      if (subscribers.size === 0) waiting.push(message);
      else for (const subscriber of subscribers) subscriber(message);
    },
    take() {
      const taken = waiting;
      waiting = [];
      return taken;
    },
    subscribe(listener) {
      subscribers.add(listener);
      return () => subscribers.delete(listener);
    },
  };
}

export type ConfigureHub = {
  push(config: RunConfigureBody): void;
  /** A listener that subscribes after some changes were sent gets them at once, merged. */
  subscribe(listener: (config: RunConfigureBody) => void): () => void;
};

export function createConfigureHub(): ConfigureHub {
  let merged: RunConfigureBody = {};
  let sent = false;
  const listeners = new Set<(config: RunConfigureBody) => void>();
  return {
    push(config) {
      merged = { ...merged, ...config };
      sent = true;
      for (const listener of listeners) listener(config);
    },
    subscribe(listener) {
      listeners.add(listener);
      if (sent) listener({ ...merged });
      return () => listeners.delete(listener);
    },
  };
}

/** Requests to stop the sub-agent of one of the run's Task calls (stop-agent), handed to the
 * backend's listener, which says whether it had such a sub-agent running. */
export type AgentStops = {
  /** True when a listener stopped the sub-agent of Task call `toolUseId`. */
  push(toolUseId: string): boolean;
  subscribe(listener: (toolUseId: string) => boolean): () => void;
};

export function createAgentStops(): AgentStops {
  const listeners = new Set<(toolUseId: string) => boolean>();
  return {
    push: (toolUseId) => [...listeners].some((listener) => listener(toolUseId)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Requests to stop one of the conversation's background shells while the run goes on
 * (kill-shell), handed to the backend's listener, which says what it did. */
export type ShellKills = {
  /** The listener's answer; undefined when nobody listens (the backend keeps no shells). */
  push(shellId: string): KillShellAnswer | undefined;
  subscribe(listener: (shellId: string) => KillShellAnswer): () => void;
};

export function createShellKills(): ShellKills {
  const listeners = new Set<(shellId: string) => KillShellAnswer>();
  return {
    push(shellId) {
      let answer: KillShellAnswer | undefined;
      // The first that knows the shell answers (one backend run listens at a time).
      for (const listener of listeners) if ((answer = listener(shellId)).outcome !== "unknown") return answer;
      return answer;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** New todo lists for the run (its plan changed by the user), handed to the backend's listener,
 * which says whether it keeps the run's list (a backend that keeps its own takes none). */
export type TodoSets = {
  /** True when a listener took the list. */
  push(todos: TodoItem[]): boolean;
  subscribe(listener: (todos: TodoItem[]) => boolean): () => void;
};

export function createTodoSets(): TodoSets {
  const listeners = new Set<(todos: TodoItem[]) => boolean>();
  return {
    push: (todos) => [...listeners].some((listener) => listener(todos)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
