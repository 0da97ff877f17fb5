// `harness run --output-format stream-json`: the hooks the run fires are told as Claude Code tells
// them, a `system` line of subtype `hook_started` as each starts and one of subtype `hook_response`
// as it ends, under the same hook_id (the Agent SDK's SDKHookStartedMessage and
// SDKHookResponseMessage). SessionStart hooks always are, as in Claude Code; the others only with
// --include-hook-events.
import { randomUUID } from "node:crypto";
import type { HookObserver, HookRunResult, ObservedHook } from "@harness/agent";

/** The events whose hooks are told without --include-hook-events (Claude Code's SessionStart and
 * Setup; harness has no Setup). */
const ALWAYS_TOLD: ReadonlySet<string> = new Set(["SessionStart"]);

/** An observer of the run's hooks (RunAgentOptions.onHookEvent) that writes their lines with
 * `line`, under the conversation's id as `sessionId` gives it at the time: every hook's when `all`
 * (--include-hook-events), else only those of ALWAYS_TOLD events. */
export function hookEventLines(line: (text: string) => void, sessionId: () => string, all: boolean): HookObserver {
  const common = (hook: ObservedHook) => ({ type: "system", hook_id: hook.id, hook_name: hook.name, hook_event: hook.event });
  const write = (fields: Record<string, unknown>) => line(`${JSON.stringify({ ...fields, uuid: randomUUID(), session_id: sessionId() })}\n`);
  const told = (hook: ObservedHook) => all || ALWAYS_TOLD.has(hook.event);
  return {
    started: (hook) => {
      if (told(hook)) write({ ...common(hook), subtype: "hook_started" });
    },
    ended: (hook, run) => {
      if (!told(hook)) return;
      // A hook that could not run at all says why where its errors would be.
      const stderr = run.stderr !== "" ? run.stderr : (run.error ?? "");
      write({
        ...common(hook),
        subtype: "hook_response",
        output: run.stdout + stderr,
        stdout: run.stdout,
        stderr,
        // Only a command has an exit code of its own: the other kinds' are how their answer reads.
        ...(hook.type === "command" && run.exitCode !== null && { exit_code: run.exitCode }),
        outcome: outcomeOf(run),
      });
    },
  };
}

function outcomeOf(run: HookRunResult): "success" | "error" | "cancelled" {
  if (run.aborted) return "cancelled";
  return run.exitCode === 0 && !run.timedOut && run.error === undefined ? "success" : "error";
}
