// A callback hook: the event's input handed to the program driving the run, its answer read as a
// command hook's JSON output.
import { hookOutcome } from "./hook-run.ts";
import { timeLimit } from "../process/time-limit.ts";
import type { CallbackHook, HookInput, HookRunResult } from "./types.ts";

/** Events a failed callback set to block does not block: blocking them keeps the turn going. */
const NOT_BLOCKED_ON_FAILURE = new Set(["Stop", "SubagentStop"]);

/** Calls the hook with `input` (the event's JSON). An answer reads as a command that exited 0 and
 * printed it; a failure, a timeout and an answer that is not a JSON object are errors that do not
 * block, as a command hook's are, unless the hook is set to block on failure (then they read as an
 * exit code 2 with why on stderr). Never rejects. */
export async function runCallbackHook(hook: CallbackHook, input: string, opts: { timeoutMs: number; signal: AbortSignal }): Promise<HookRunResult> {
  const name = `callback ${hook.id}`;
  const outcome = hookOutcome(name, "callback");
  if (opts.signal.aborted) return outcome({ aborted: true });
  const event = JSON.parse(input) as HookInput;
  const blocks = hook.onFailure === "block" && !NOT_BLOCKED_ON_FAILURE.has(event.hook_event_name);
  const failed = (why: string, fields: Partial<HookRunResult>) => (blocks ? outcome({ exitCode: 2, stderr: `The ${event.hook_event_name} hook ${name} failed, and it blocks on failure: ${why}` }) : outcome(fields));
  const limit = timeLimit(opts.signal, opts.timeoutMs);
  try {
    const answer = await hook.call(event, limit.signal);
    if (answer === undefined || answer === null) return outcome({ exitCode: 0 });
    if (typeof answer !== "object" || Array.isArray(answer)) {
      const error = `its answer is not a JSON object: ${JSON.stringify(answer)?.slice(0, 200)}`;
      return failed(error, { error });
    }
    return outcome({ exitCode: 0, stdout: JSON.stringify(answer) });
  } catch (error) {
    if (opts.signal.aborted) return outcome({ aborted: true });
    if (limit.timedOut()) return failed(`it was not answered within ${opts.timeoutMs / 1000} s`, { timedOut: true });
    const message = error instanceof Error ? error.message : String(error);
    return failed(message, { error: message });
  } finally {
    limit.done();
  }
}
