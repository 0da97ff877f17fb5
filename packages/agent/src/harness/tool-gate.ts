// What happens around each tool call, in Claude Code's order: PreToolUse hooks → permission check
// → PermissionRequest hooks and approval (PermissionDenied hooks when no one can be asked) → (the
// tool runs) → PostToolUse hooks → nested memory files (and their InstructionsLoaded hooks).
import path from "node:path";
import type { ToolUseBlock } from "@harness/llm";
import { debugLog, debugOn } from "@harness/llm/debug-log";
import { nestedMemoryReminder, systemReminder } from "../context/format-memory.ts";
import type { NestedMemory } from "../context/nested-memory.ts";
import { outputText, type ToolGate } from "../loop/execute-tool-calls.ts";
import { toolResponseFor } from "../hooks/tool-response.ts";
import { replacedOutput } from "../hooks/updated-output.ts";
import type { HookResult } from "../hooks/types.ts";
import { decide } from "../permissions/decide.ts";
import { applyDontAsk } from "../permissions/verdicts.ts";
import { describeCall } from "../permissions/describe-call.ts";
import type { PermissionContext, PermissionDecision } from "../permissions/types.ts";
import type { PermissionUpdate } from "../permissions/updates.ts";
import { validateToolInput } from "../loop/tool-input.ts";
import type { ApprovalDecision, ApprovalRequest, RunAgentOptions, Tool, ToolOutput } from "../types.ts";
import { describeDiagnostic } from "./diagnostic.ts";
import type { HookHost } from "./hooks/hooks.ts";
import { instructionsLoaded } from "./hooks/instructions-loaded.ts";
import type { NoticeSink } from "./resources.ts";

export type ToolGateOptions = {
  hooks: HookHost;
  permissions: PermissionContext;
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** Configuration changes sent while the run is in flight: a new permission mode answers the
   * calls waiting for approval that it decides (see modeAnswer). */
  onConfigure?: RunAgentOptions["onConfigure"];
  /** Memory files of subdirectories, reported the first time a file tool works below them. */
  nested?: NestedMemory;
  notice: NoticeSink;
  /** A hook answered `continue: false`: the run ends after this step. */
  stop(reason: string): void;
  /** Work that may finish after the call (Notification and InstructionsLoaded hooks); the run waits
   * for it at its end. */
  track(work: Promise<unknown>): void;
  /** Who answers `approve`, for messages about its answers (default "an approval"). */
  approver?: string;
  /** An approval's permission updates ("always allow"), given by `by`: applied to `permissions` in
   * place, for the calls that follow, and kept in the settings files they name. */
  updatePermissions?(updates: readonly PermissionUpdate[], by: string): void;
};

/** `notes` go with a refusal's tool_result (a PermissionDenied hook's leave to retry). */
type Verdict = { run: true; args: unknown } | { run: false; output: ToolOutput; notes?: string[]; failed?: true };
type Precheck = ((args: unknown) => Promise<string | undefined>) | undefined;

export function createToolGate(gateOptions: ToolGateOptions): ToolGate {
  return {
    async before(call, tool, args, signal, where, precheck) {
      const o = at(gateOptions, where);
      if (!o.hooks.has("PreToolUse")) return gate(o, call, tool, args as Record<string, unknown>, undefined, signal, precheck);
      const hook = await o.hooks.run("PreToolUse", { tool_name: call.name, tool_input: call.input, tool_use_id: call.id, ...shellCwd(where) }, signal);
      if (!hook.continue) o.stop(hook.stopReason ?? "A PreToolUse hook stopped the run.");
      const verdict = await gate(o, call, tool, args as Record<string, unknown>, hook, signal, precheck);
      // The hooks' additional context reaches the model whether or not the call runs.
      if (hook.additionalContext.length === 0) return verdict;
      const notes = hook.additionalContext.map((context) => systemReminder(context));
      return { ...verdict, notes: "notes" in verdict && verdict.notes ? [...notes, ...verdict.notes] : notes };
    },

    async after(call, tool, args, output, signal, where) {
      const o = gateOptions;
      const notes: string[] = [];
      let replaced: ToolOutput | undefined;
      if (!output.isError && o.hooks.has("PostToolUse")) {
        const response = toolResponseFor(call.name, args as Record<string, unknown>, outputText(output));
        const hook = await o.hooks.run("PostToolUse", { tool_name: call.name, tool_input: args as Record<string, unknown>, tool_response: response, tool_use_id: call.id, ...shellCwd(where) }, signal);
        if (!hook.continue) o.stop(hook.stopReason ?? "A PostToolUse hook stopped the run.");
        if (hook.updatedOutput) {
          const replacement = replacedOutput(call.name, response, hook.updatedOutput);
          if ("error" in replacement) o.notice("warning", replacement.error);
          else replaced = replacement.output;
        }
        if (hook.blocked) notes.push(`PostToolUse hook feedback:\n${hook.blockReason}`);
        for (const context of hook.additionalContext) notes.push(systemReminder(context));
      } else if (output.isError && o.hooks.has("PostToolUseFailure")) {
        const fields = { tool_name: call.name, tool_input: args as Record<string, unknown>, tool_use_id: call.id, error: outputText(output), is_interrupt: signal.aborted, ...shellCwd(where) };
        const hook = await o.hooks.run("PostToolUseFailure", fields, signal);
        if (!hook.continue) o.stop(hook.stopReason ?? "A PostToolUseFailure hook stopped the run.");
        if (hook.blocked) notes.push(`PostToolUseFailure hook feedback:\n${hook.blockReason}`);
        for (const context of hook.additionalContext) notes.push(systemReminder(context));
      }
      const relative = o.nested ? touchedPath(tool.name, args) : undefined;
      const target = relative === undefined ? undefined : path.resolve(where ?? o.permissions.cwd, relative);
      if (o.nested && target !== undefined) {
        const found = await o.nested.touch(target);
        for (const d of found.diagnostics) o.notice("warning", describeDiagnostic(d));
        if (found.files.length > 0) o.track(instructionsLoaded(o.hooks, found.files, { reason: "nested_traversal", trigger: target }, signal));
        const reminder = nestedMemoryReminder(found.files);
        if (reminder) notes.push(reminder);
      }
      return replaced ? { notes, output: replaced } : { notes };
    },
  };
}

/** A tool's hooks are told the directory its call works in (the agent's shell directory) as their
 * `cwd`, as Claude Code tells them its current directory; without one, the run's. */
function shellCwd(where: string | undefined): { cwd?: string } {
  return where === undefined ? {} : { cwd: where };
}

/** The gate for a call whose relative paths start at `where` (the agent's shell directory): its
 * decisions see the paths the tool will use. The permissions are read as each decision is made, so
 * that an approval's updates hold for the decisions after it. */
function at(o: ToolGateOptions, where: string | undefined): ToolGateOptions {
  if (where === undefined || where === o.permissions.cwd) return o;
  return {
    ...o,
    get permissions() {
      return { ...o.permissions, toolCwd: where };
    },
  };
}

/** The call after its PreToolUse hooks (`hook`, when there are any): refused, run, or put to the
 * user. */
async function gate(o: ToolGateOptions, call: ToolUseBlock, tool: Tool, args: Record<string, unknown>, hook: HookResult | undefined, signal: AbortSignal, precheck: Precheck): Promise<Verdict> {
  let input = args;
  if (hook?.permissionDecision === "deny") return refuse(hookDenial(hook.blockReason));
  if (hook?.updatedInput) {
    const changed = validateToolInput(tool, hook.updatedInput);
    if (!changed.ok) return refuse(`A PreToolUse hook changed the input to one that is not valid. ${changed.error}`);
    input = changed.args as Record<string, unknown>;
  }
  const decision = permissionDecision(call.name, input, o.permissions, hook);
  // dontAsk's own refusal (of what would have asked) is the mode's: PermissionDenied hooks hear of it.
  if (decision.dontAsk) return deniedByMode(o, call, input, decision.reason, signal);
  if (decision.behavior === "deny") return refuse(decision.reason);
  if (decision.behavior === "ask") {
    // Nobody is asked to approve a call that would fail anyway (an edit of a file not read).
    const problem = await precheck?.(input);
    if (problem !== undefined) return { run: false, output: { content: problem, isError: true }, failed: true };
    return askUser(o, call, tool, input, decision, hook, signal);
  }
  return { run: true, args: input };
}

/** The permission decision with a PreToolUse hook's say. As in Claude Code, a hook's "allow" skips
 * the prompt but not a deny or ask rule; its "ask" asks even where the rules would allow. */
export function permissionDecision(name: string, input: Record<string, unknown>, permissions: PermissionContext, hook?: HookResult): PermissionDecision {
  const decision = decidedWithHook(name, input, permissions, hook);
  if (debugOn("permissions")) debugLog("permissions", `${name} ${decision.behavior} ${decision.rule !== undefined ? `by rule ${decision.rule}` : `(${decision.reason})`}`);
  return decision;
}

function decidedWithHook(name: string, input: Record<string, unknown>, permissions: PermissionContext, hook?: HookResult): PermissionDecision {
  const decision = decide({ name, input }, permissions);
  const reason = hook?.permissionDecisionReason;
  if (hook?.permissionDecision === "allow") {
    if (decision.behavior !== "allow" && decision.rule !== undefined) return decision;
    return { behavior: "allow", reason: reason ?? "Allowed by a PreToolUse hook." };
  }
  if (hook?.permissionDecision === "ask" && decision.behavior !== "deny") {
    return applyDontAsk({ behavior: "ask", reason: reason ?? `A PreToolUse hook asks for approval of this ${name} call.` }, permissions);
  }
  return decision;
}

async function askUser(o: ToolGateOptions, call: ToolUseBlock, tool: Tool, input: Record<string, unknown>, decision: PermissionDecision, hook: HookResult | undefined, signal: AbortSignal): Promise<Verdict> {
  const hooked = await permissionRequestHooks(o, call, tool, input, signal);
  if (hooked) return hooked;
  if (!o.approve) {
    if (tool.refusals) return refuse(tool.refusals.unattended);
    // The modes wider than the run's own that would let this very call through (some calls ask in
    // every mode: naming one of those would send the user round in circles).
    const mode = o.permissions.mode;
    const candidates = mode === "bypassPermissions" ? [] : mode === "acceptEdits" ? (["bypassPermissions"] as const) : (["acceptEdits", "bypassPermissions"] as const);
    const wider = candidates.filter((candidate) => decide({ name: call.name, input }, { ...o.permissions, mode: candidate }).behavior === "allow");
    const modes = wider.length > 0 ? `, or run with --permission-mode ${wider.join(" or ")}` : "";
    return deniedByMode(o, call, input, `Permission to use ${call.name} was not granted: this run has no one to approve it (${decision.reason}). Allow it with --allowedTools or in .claude/settings.json${modes}.`, signal);
  }
  o.track(o.hooks.run("Notification", { message: `Claude needs your permission to use ${call.name}`, notification_type: "permission_prompt" }, signal));
  let answer: ApprovalDecision;
  const byMode = modeAnswer(o, call.name, input, hook);
  try {
    const askedBecause = hook?.permissionDecision === "ask" || decision.rule !== undefined ? decision.reason : undefined;
    answer = await o.approve({ toolUseId: call.id, toolName: call.name, input, description: describeCall({ name: call.name, input }), reason: decision.reason, ...(askedBecause && { askedBecause }), answered: byMode.answer });
  } catch (error) {
    return refuse(`Permission to use ${call.name} was not granted: asking for approval failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    byMode.stop();
  }
  if (debugOn("permissions")) debugLog("permissions", `${call.name} ${answer.behavior} by ${o.approver ?? "the approver"}`);
  if (answer.behavior === "deny" && tool.refusals) return refuse(tool.refusals.denied(answer.reason));
  if (answer.behavior === "deny") return refuse(answer.reason?.trim() ? `The user denied this tool call: ${answer.reason.trim()}` : "The user denied this tool call.");
  if (answer.updatedPermissions && answer.updatedPermissions.length > 0) o.updatePermissions?.(answer.updatedPermissions, o.approver ?? "an approval");
  return runWith(o, call.name, tool, input, answer.updatedInput, "The approved input is not valid.");
}

/** The answer a change of permission mode gives a call waiting for approval, as switching mode
 * does in Claude Code while it asks: a mode under which the call would run lets it run (the
 * conversation's rules still count: a deny rule still denies, and so does its PreToolUse hooks'
 * say, `hook`: their "ask" still asks), one under which it would be refused refuses it, and one
 * under which it would still ask leaves it waiting. `stop` once answered. */
function modeAnswer(o: ToolGateOptions, name: string, input: Record<string, unknown>, hook: HookResult | undefined): { answer: Promise<ApprovalDecision>; stop(): void } {
  let settle: (decision: ApprovalDecision) => void = () => {};
  const answer = new Promise<ApprovalDecision>((resolve) => (settle = resolve));
  const unsubscribe = o.onConfigure?.((change) => {
    const mode = change.permissionMode;
    if (mode === undefined || mode === o.permissions.mode || (mode === "bypassPermissions" && o.permissions.bypassDisabled)) return;
    const decision = permissionDecision(name, input, { ...o.permissions, mode }, hook);
    if (decision.behavior === "allow") settle({ behavior: "allow", reason: `allowed by the permission mode ${mode}` });
    else if (decision.behavior === "deny") settle({ behavior: "deny", reason: `refused in the permission mode ${mode}: ${decision.reason}` });
  });
  return { answer, stop: () => unsubscribe?.() };
}

/** The PermissionRequest hooks' answer for a call about to be put to the user (or, in a run with
 * no one to ask, refused): "allow" runs it, with the input they give when they give one; "deny"
 * refuses it with their message (and `interrupt` stops the run); undefined asks as usual. Their
 * "allow" applies their permission updates as the user's approval would. */
async function permissionRequestHooks(o: ToolGateOptions, call: ToolUseBlock, tool: Tool, input: Record<string, unknown>, signal: AbortSignal): Promise<Verdict | undefined> {
  if (!o.hooks.has("PermissionRequest")) return undefined;
  const hook = await o.hooks.run("PermissionRequest", { tool_name: call.name, tool_input: input }, signal);
  if (!hook.continue) o.stop(hook.stopReason ?? "A PermissionRequest hook stopped the run.");
  if (hook.permissionDecision === "deny") return refuse(hook.permissionDecisionReason ?? "Denied by a PermissionRequest hook.");
  if (hook.permissionDecision !== "allow") return undefined;
  if (hook.updatedPermissions) o.updatePermissions?.(hook.updatedPermissions, "a PermissionRequest hook");
  return runWith(o, call.name, tool, input, hook.updatedInput, "A PermissionRequest hook approved an input that is not valid.");
}

/** An approved call: with `updated` in place of `input` when the approver gave one, checked as the
 * model's input is (`invalid` opens the refusal when it fails), and against what the rules refuse
 * in every mode: an approval answers the call that was asked about, and cannot carry it onto a
 * path or command a deny rule names. */
function runWith(o: ToolGateOptions, name: string, tool: Tool, input: Record<string, unknown>, updated: Record<string, unknown> | undefined, invalid: string): Verdict {
  if (!updated) return { run: true, args: input };
  const changed = validateToolInput(tool, updated);
  if (!changed.ok) return refuse(`${invalid} ${changed.error}`);
  const args = changed.args as Record<string, unknown>;
  const decision = decide({ name, input: args }, o.permissions);
  if (decision.behavior === "deny" && decision.rule !== undefined) return refuse(`The approved input is refused: ${decision.reason}`);
  return { run: true, args };
}

/** A call refused with no one asked (dontAsk, or no one to approve it): Claude Code's auto mode
 * refusals, which its PermissionDenied hooks are told of. Their `retry: true` tells the model it
 * may try the call again; the refusal stands. */
async function deniedByMode(o: ToolGateOptions, call: ToolUseBlock, input: Record<string, unknown>, reason: string, signal: AbortSignal): Promise<Verdict> {
  if (!o.hooks.has("PermissionDenied")) return refuse(reason);
  const hook = await o.hooks.run("PermissionDenied", { tool_name: call.name, tool_input: input, tool_use_id: call.id, reason }, signal);
  if (!hook.continue) o.stop(hook.stopReason ?? "A PermissionDenied hook stopped the run.");
  const refused = refuse(reason);
  return hook.retry ? { ...refused, notes: [systemReminder(`A PermissionDenied hook says you may retry this ${call.name} call.`)] } : refused;
}

function refuse(content: string): Extract<Verdict, { run: false }> {
  return { run: false, output: { content, isError: true } };
}

function hookDenial(reason: string | undefined): string {
  const text = reason?.trim() || "no reason given";
  return text.startsWith("Blocked by a PreToolUse hook") ? text : `Blocked by a PreToolUse hook: ${text}`;
}

/** The path a file tool worked on, for nested memory; Glob and Grep only with an explicit path. */
function touchedPath(toolName: string, args: unknown): string | undefined {
  const input = args as Record<string, unknown>;
  const key = FILE_TOOL_PATHS[toolName];
  const value = key === undefined ? undefined : input[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

const FILE_TOOL_PATHS: Readonly<Record<string, string>> = {
  Read: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  Write: "file_path",
  NotebookEdit: "notebook_path",
  Glob: "path",
  Grep: "path",
};
