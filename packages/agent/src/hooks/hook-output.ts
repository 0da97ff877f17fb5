import { z } from "zod";
import { parsePermissionUpdates, type PermissionUpdate } from "../permissions/updates.ts";
import type { HookEventName, HookRunResult, PermissionDecision, UpdatedToolOutput } from "./types.ts";

/** Claude Code's JSON hook output. Unknown fields are allowed: newer hooks may send more. */
const hookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      retry: z.boolean().optional(),
      // Checked against the tool's output by whoever knows the tool (hooks/updated-output.ts).
      updatedToolOutput: z.unknown().optional(),
      updatedMCPToolOutput: z.unknown().optional(),
    })
    .optional(),
});
type HookOutput = z.infer<typeof hookOutputSchema>;

/** What one hook asks for. */
export type HookEffect = {
  block?: string;
  permission?: { decision: PermissionDecision; reason?: string; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[] };
  additionalContext?: string;
  /** A PermissionDenied hook's `retry: true`. */
  retry?: true;
  /** A PostToolUse hook's replacement of the tool's output, unchecked (`updatedToolOutput`, or
   * the older MCP-only `updatedMCPToolOutput`). */
  updatedOutput?: UpdatedToolOutput;
  /** Set when the hook asked to stop the run (`continue: false`). */
  stop?: { reason?: string };
  userMessages: string[];
  suppressOutput: boolean;
};

/** A PermissionRequest hook's answer (`hookSpecificOutput.decision`). */
const permissionRequestDecision = z.union([
  z.looseObject({ behavior: z.literal("allow"), updatedInput: z.record(z.string(), z.unknown()).optional(), updatedPermissions: z.unknown().optional() }),
  z.looseObject({ behavior: z.literal("deny"), message: z.string().optional(), interrupt: z.boolean().optional() }),
]);

/** Events whose exit code 2 blocks something, or (after a tool call) gives its stderr to the
 * model; on the others its stderr only reaches the user. */
const BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop"]);
/** Events whose plain (non-JSON) stdout on exit 0 is added to the model's context. */
const PLAIN_STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(["UserPromptSubmit", "SessionStart"]);
/** Events that honour `decision: "block"` in JSON output. */
const DECISION_EVENTS: ReadonlySet<HookEventName> = new Set(["PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"]);
const CONTEXT_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "SubagentStart"]);

/** Longest text, in characters, that one hook puts into the conversation or a notice (its context,
 * a reason, a message), as in Claude Code: a hook that prints megabytes must not fill the model's
 * context window, nor make every later request of the conversation too long. */
export const MAX_HOOK_TEXT_CHARS = 10_000;

/** Reads one finished hook the way Claude Code does: exit 0 → success, its stdout read as JSON
 * output when it is a JSON object; exit 2 → blocking error with stderr as the reason; anything
 * else (including a timeout) → a non-blocking error for the user. Each text it gives is cut to
 * MAX_HOOK_TEXT_CHARS. */
export function interpretHookRun(event: HookEventName, run: HookRunResult): HookEffect {
  // Claude Code ignores what StopFailure hooks print and how they exit (the turn has failed
  // already), and InstructionsLoaded's (they only watch).
  if (event === "StopFailure" || event === "InstructionsLoaded") return { userMessages: [], suppressOutput: false };
  const effect = readHookRun(event, run);
  if (effect.block !== undefined) effect.block = capped(effect.block);
  if (effect.additionalContext !== undefined) effect.additionalContext = capped(effect.additionalContext);
  if (effect.permission?.reason !== undefined) effect.permission.reason = capped(effect.permission.reason);
  if (effect.stop?.reason !== undefined) effect.stop.reason = capped(effect.stop.reason);
  effect.userMessages = effect.userMessages.map(capped);
  return effect;
}

function capped(text: string): string {
  if (text.length <= MAX_HOOK_TEXT_CHARS) return text;
  const cut = text.length - MAX_HOOK_TEXT_CHARS;
  return `${text.slice(0, MAX_HOOK_TEXT_CHARS)}\n\n[Hook output truncated: ${cut.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters were cut.]`;
}

function readHookRun(event: HookEventName, run: HookRunResult): HookEffect {
  const effect: HookEffect = { userMessages: [], suppressOutput: false };
  const label = `${event} hook \`${run.command}\``;
  const stderr = run.stderr.trim();
  if (run.aborted) return effect;
  if (run.timedOut) {
    const ended = run.via === "http" ? "its request was given up on" : run.via === "model" ? "its model was not waited for any longer" : run.via === "callback" ? "was not waited for any longer" : "was killed";
    effect.userMessages.push(`${label} timed out after ${formatSeconds(run.durationMs)} and ${ended}`);
    return effect;
  }
  if (run.error !== undefined) {
    effect.userMessages.push(`${label} failed: ${run.error}${stderr ? `: ${stderr}` : ""}`);
    return effect;
  }
  if (run.exitCode === 2) {
    // A refusal cannot be refused again: Claude Code ignores this exit code there.
    if (event === "PermissionDenied") return effect;
    const reason = stderr || `${label} exited with code 2 and wrote nothing to stderr`;
    if (event === "PreToolUse" || event === "PermissionRequest") effect.permission = { decision: "deny", reason };
    else if (BLOCKING_EVENTS.has(event)) effect.block = reason;
    else effect.userMessages.push(`${label} exited with code 2: ${reason}`);
    return effect;
  }
  if (run.exitCode !== 0) {
    effect.userMessages.push(`${label} failed with exit code ${run.exitCode}${stderr ? `: ${stderr}` : ""}`);
    return effect;
  }
  const json = parseJsonObject(run.stdout);
  if (json === undefined) {
    const text = run.stdout.trim();
    if (text && PLAIN_STDOUT_IS_CONTEXT.has(event)) effect.additionalContext = text;
    return effect;
  }
  const parsed = hookOutputSchema.safeParse(json);
  if (!parsed.success) {
    effect.userMessages.push(`${label} printed invalid JSON output, ignored: ${describeIssues(parsed.error)}`);
    return effect;
  }
  const specific = parsed.data.hookSpecificOutput;
  if (specific?.hookEventName !== undefined && specific.hookEventName !== event) {
    effect.userMessages.push(`${label} printed hookSpecificOutput for "${specific.hookEventName}", ignored`);
    return applyCommon(effect, parsed.data);
  }
  applyCommon(effect, parsed.data);
  applyDecision(effect, event, parsed.data);
  if (specific?.additionalContext && CONTEXT_EVENTS.has(event)) effect.additionalContext = specific.additionalContext;
  // As in Claude Code, the field for every tool wins over the older one for MCP tools.
  if (event === "PostToolUse" && specific?.updatedToolOutput !== undefined) effect.updatedOutput = { field: "updatedToolOutput", value: specific.updatedToolOutput };
  else if (event === "PostToolUse" && specific?.updatedMCPToolOutput !== undefined) effect.updatedOutput = { field: "updatedMCPToolOutput", value: specific.updatedMCPToolOutput };
  return effect;
}

function applyCommon(effect: HookEffect, output: HookOutput): HookEffect {
  if (output.continue === false) effect.stop = output.stopReason === undefined ? {} : { reason: output.stopReason };
  if (output.systemMessage) effect.userMessages.push(output.systemMessage);
  effect.suppressOutput = output.suppressOutput === true;
  return effect;
}

function applyDecision(effect: HookEffect, event: HookEventName, output: HookOutput): void {
  if (event === "PermissionDenied") {
    if (output.hookSpecificOutput?.retry === true) effect.retry = true;
    return;
  }
  if (event === "PermissionRequest") {
    const given = output.hookSpecificOutput?.decision;
    if (given === undefined) return;
    const parsed = permissionRequestDecision.safeParse(given);
    if (!parsed.success) {
      effect.userMessages.push(`PermissionRequest hook printed a decision that is not {"behavior": "allow" | "deny", …}, ignored: ${describeIssues(parsed.error)}`);
      return;
    }
    const decision = parsed.data;
    if (decision.behavior === "allow") {
      // An "always allow" that cannot be read is not half-taken: the call is put to the user.
      const updates = parsePermissionUpdates(decision.updatedPermissions);
      if ("error" in updates) {
        effect.userMessages.push(`PermissionRequest hook printed updatedPermissions that are not valid, and its decision is ignored: ${updates.error}`);
        return;
      }
      effect.permission = { decision: "allow", ...(decision.updatedInput && { updatedInput: decision.updatedInput }), ...(updates.length > 0 && { updatedPermissions: updates }) };
    } else {
      const reason = decision.message?.trim() ? `Denied by a PermissionRequest hook: ${decision.message.trim()}` : "Denied by a PermissionRequest hook.";
      effect.permission = { decision: "deny", reason };
      if (decision.interrupt) effect.stop = { reason };
    }
    return;
  }
  if (event === "PreToolUse") {
    const specific = output.hookSpecificOutput;
    if (specific?.permissionDecision) {
      effect.permission = { decision: specific.permissionDecision, reason: specific.permissionDecisionReason };
      if (specific.updatedInput) effect.permission.updatedInput = specific.updatedInput;
    } else if (output.decision) {
      // The older form: "approve" / "block" with a top-level reason.
      effect.permission = { decision: output.decision === "approve" ? "allow" : "deny", reason: output.reason };
    }
    if (effect.permission?.decision === "deny" && !effect.permission.reason) effect.permission.reason = "Blocked by a PreToolUse hook";
    return;
  }
  if (output.decision === "block" && DECISION_EVENTS.has(event)) effect.block = output.reason || `Blocked by a ${event} hook`;
}

function parseJsonObject(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
