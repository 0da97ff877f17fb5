// A callback hook: the event's input handed to the program driving the run, its answer read as a
// command hook's JSON output.
import { hookOutcome, timeLimit } from "./hook-run.ts";
import type { CallbackHook, HookInput, HookRunResult } from "./types.ts";

/** Calls the hook with `input` (the event's JSON). An answer reads as a command that exited 0 and
 * printed it; a failure, a timeout and an answer that is not a JSON object are errors that do not
 * block, as a command hook's are. Never rejects. */
export async function runCallbackHook(hook: CallbackHook, input: string, opts: { timeoutMs: number; signal: AbortSignal }): Promise<HookRunResult> {
  const outcome = hookOutcome(`callback ${hook.id}`, "callback");
  if (opts.signal.aborted) return outcome({ aborted: true });
  const limit = timeLimit(opts.signal, opts.timeoutMs);
  try {
    const answer = await hook.call(JSON.parse(input) as HookInput, limit.signal);
    if (answer === undefined || answer === null) return outcome({ exitCode: 0 });
    if (typeof answer !== "object" || Array.isArray(answer)) return outcome({ error: `its answer is not a JSON object: ${JSON.stringify(answer)?.slice(0, 200)}` });
    return outcome({ exitCode: 0, stdout: JSON.stringify(answer) });
  } catch (error) {
    if (opts.signal.aborted) return outcome({ aborted: true });
    if (limit.timedOut()) return outcome({ timedOut: true });
    return outcome({ error: error instanceof Error ? error.message : String(error) });
  } finally {
    limit.done();
  }
}
