// Prompt and agent hooks: a model reads the event and says whether the action may go on.
import { z } from "zod";
import { hookOutcome } from "./hook-run.ts";
import { timeLimit } from "../process/time-limit.ts";
import type { HookEvaluator, HookEventName, HookRunResult, PromptHook } from "./types.ts";

/** How much of a prompt names the hook in messages. */
const LABEL_CHARS = 60;
/** How much of an answer without a verdict is shown. */
const SHOWN_ANSWER_CHARS = 200;

const verdictSchema = z.looseObject({ ok: z.boolean(), reason: z.string().optional() });

export type PromptHookOptions = {
  evaluate?: HookEvaluator;
  timeoutMs: number;
  signal: AbortSignal;
};

/** The question put to the model: the hook's prompt with `$ARGUMENTS` replaced by the event's
 * JSON, or followed by it when the prompt does not say where it goes. */
export function hookQuestion(prompt: string, inputJson: string): string {
  return prompt.includes("$ARGUMENTS") ? prompt.replaceAll("$ARGUMENTS", () => inputJson) : `${prompt}\n\n${inputJson}`;
}

/** Asks the hook's model and turns its verdict into what a command hook would have printed:
 * `{"ok": true}` changes nothing; `{"ok": false, "reason"}` on Stop and SubagentStop keeps the
 * agent going with the reason as its next instruction, and on the other events ends the turn,
 * the reason shown to the user (the call about to run does not run). No verdict, a failure or a
 * timeout is an error that does not block. Never rejects. */
export async function runPromptHook(hook: PromptHook, event: HookEventName, inputJson: string, opts: PromptHookOptions): Promise<HookRunResult> {
  const outcome = hookOutcome(labelOf(hook), "model");
  if (opts.signal.aborted) return outcome({ aborted: true });
  if (!opts.evaluate) return outcome({ error: "no model is available to this run's hooks" });

  const limit = timeLimit(opts.signal, opts.timeoutMs);
  try {
    const answer = await opts.evaluate({ kind: hook.type, prompt: hookQuestion(hook.prompt, inputJson), ...(hook.model && { model: hook.model }), signal: limit.signal });
    if (opts.signal.aborted) return outcome({ aborted: true });
    if (limit.timedOut()) return outcome({ timedOut: true });
    if ("error" in answer) return outcome({ error: answer.error });
    const verdict = readVerdict(answer.text);
    if (!verdict) {
      const shown = answer.text.trim().slice(0, SHOWN_ANSWER_CHARS) || "nothing";
      return outcome({ error: `its model answered without a verdict ({"ok": true} or {"ok": false, "reason": "..."}): ${shown}` });
    }
    if (verdict.ok) return outcome({ exitCode: 0 });
    const reason = verdict.reason?.trim() || `The ${hook.type} hook said no, without a reason.`;
    return outcome({ exitCode: 0, stdout: JSON.stringify(refusal(event, reason)) });
  } finally {
    limit.done();
  }
}

/** A "no" as a command hook's JSON output on `event`. */
function refusal(event: HookEventName, reason: string): Record<string, unknown> {
  if (event === "Stop" || event === "SubagentStop") return { decision: "block", reason };
  const stop = { continue: false, stopReason: reason };
  if (event === "PreToolUse") return { ...stop, hookSpecificOutput: { hookEventName: event, permissionDecision: "deny", permissionDecisionReason: reason } };
  if (event === "PermissionRequest") return { hookSpecificOutput: { hookEventName: event, decision: { behavior: "deny", message: reason, interrupt: true } } };
  return stop;
}

/** The verdict in a model's answer: the answer itself as JSON, or else the last JSON object in it
 * that is one (a model may wrap it in a code fence or a sentence, and quote the format before it
 * gives its own). */
export function readVerdict(text: string): { ok: boolean; reason?: string } | undefined {
  for (const candidate of [text.trim(), ...objectsIn(text).reverse()]) {
    try {
      const parsed = verdictSchema.safeParse(JSON.parse(candidate));
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: try the next candidate.
    }
  }
  return undefined;
}

/** Each balanced `{…}` span of `text`, outermost first, strings' braces aside. */
function objectsIn(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" && depth > 0 && --depth === 0) {
      found.push(text.slice(start, i + 1));
    }
  }
  return found;
}

function labelOf(hook: PromptHook): string {
  const line = hook.prompt.trim().split("\n")[0]!;
  return `${hook.type}: ${line.length > LABEL_CHARS ? `${line.slice(0, LABEL_CHARS)}…` : line}`;
}
