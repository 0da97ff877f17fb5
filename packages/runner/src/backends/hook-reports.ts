// What a run tells its session of the hooks that ran (the runner's hook.ran): one event as each hook
// configured by the user's files ends, with what it was and how it went. The harness's own internal
// hooks (callbacks) are not told; nor is anything when no hook runs.
import type { HookObserver, HookRunResult } from "@harness/agent";
import type { AgentEvent } from "@harness/protocol";

/** An observer of the run's hooks (RunAgentOptions.onHookEvent) that emits hook.ran as each ends,
 * its command shown through `hide` (secrets as ***), and tells `also` (the host's own observer)
 * every start and end as well. */
export function hookReports(emit: (event: AgentEvent) => void, hide: (text: string) => string, also?: HookObserver): HookObserver {
  return {
    started(hook) {
      also?.started(hook);
    },
    ended(hook, run) {
      also?.ended(hook, run);
      if (hook.type === "callback") return;
      emit({
        type: "hook.ran",
        hookEvent: hook.event,
        ...(hook.matcher !== undefined && { matcher: hook.matcher }),
        kind: hook.type,
        command: hide(run.command),
        outcome: outcomeOf(run),
        durationMs: Math.max(0, run.durationMs),
        ...(hook.type === "command" && run.exitCode !== null && { exitCode: run.exitCode }),
      });
    },
  };
}

function outcomeOf(run: HookRunResult): "success" | "error" | "cancelled" {
  if (run.aborted) return "cancelled";
  return run.exitCode === 0 && !run.timedOut && run.error === undefined ? "success" : "error";
}
