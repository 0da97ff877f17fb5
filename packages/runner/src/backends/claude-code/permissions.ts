// Claude Code's canUseTool, bridged to the session. Claude Code decides first (its permission mode,
// settings rules, read-only tools); this is consulted only for the calls it would ask a person about.
import type { CanUseTool, PermissionResult } from "@anthropic-ai/claude-agent-sdk";
import { describeCall } from "@harness/agent/describe-call";
import { EXIT_PLAN_MODE_TOOL_NAME, PLAN_REFUSALS } from "@harness/agent/plan-mode";
import type { ApprovalDecision, ApprovalRequest } from "../../backend.ts";
import type { HarnessPermissionMode } from "./options.ts";

export type ToolGateInput = {
  /** The run's permission mode now (it can change while the run is in flight). */
  mode: () => HarnessPermissionMode;
  /** Absent: nobody can be asked, so every ask is denied. */
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** The run's permission mode set anew (configured while it is in flight): a plan waiting for
   * approval is approved by a mode that carries it out without asking for edits (see modeAnswer). */
  onModeChange?: (listener: (mode: HarnessPermissionMode) => void) => () => void;
  /** The user approved the plan Claude Code presented (ExitPlanMode): it leaves plan mode, for
   * `mode` (default, unless the plan was approved by switching to another mode). */
  onPlanApproved?: (mode: HarnessPermissionMode) => void;
};

export function noApproverMessage(toolName: string): string {
  return `${toolName} needs the user's approval, and nobody can approve tool calls in this run, so it was not run.`;
}

export function createToolGate(input: ToolGateInput): CanUseTool {
  return async (toolName, toolInput, options): Promise<PermissionResult> => {
    if (input.mode() === "bypassPermissions") return { behavior: "allow", updatedInput: toolInput };
    const plan = toolName === EXIT_PLAN_MODE_TOOL_NAME;
    if (!input.requestApproval) return { behavior: "deny", message: plan ? PLAN_REFUSALS.unattended : noApproverMessage(toolName) };
    const byMode = plan ? modeAnswer(input) : undefined;
    let decision: ApprovalDecision;
    try {
      decision = await input.requestApproval({
        toolUseId: options.toolUseID,
        toolName,
        description: describeToolCall(toolName, toolInput, options.title),
        input: toolInput,
        ...withReason(askedWhy(options)),
        ...(byMode && { answered: byMode.answer }),
      });
    } finally {
      byMode?.stop();
    }
    if (decision.behavior === "allow") {
      const allowed: PermissionResult = { behavior: "allow", updatedInput: decision.updatedInput ?? toolInput, decisionClassification: "user_temporary" };
      if (!plan) return allowed;
      // Out of plan mode for the rest of the conversation, as Claude Code's own prompt does it.
      const next = byMode?.mode() ?? "default";
      input.onPlanApproved?.(next);
      return { ...allowed, updatedPermissions: [{ type: "setMode", mode: next, destination: "session" }] };
    }
    if (plan) return { behavior: "deny", message: PLAN_REFUSALS.denied(decision.reason), decisionClassification: "user_reject" };
    const message = decision.reason ? `The user denied this tool call: ${decision.reason}` : "The user denied this tool call.";
    return { behavior: "deny", message, decisionClassification: "user_reject" };
  };
}

type AskOptions = Parameters<CanUseTool>[2];

/** Why Claude Code asks, as the builtin agent says it: an ask rule that forced the prompt named
 * first (the user's own rule is what they will recognise), then Claude Code's decisionReason (a
 * PreToolUse hook's permissionDecisionReason with its "ask", or its own words). An ask rule of the
 * settings is not named to canUseTool: Claude Code says only that a rule decided, in a
 * `decisionReasonType` its SDK's types leave out (so it is read as unknown). */
export function askedWhy(options: Pick<AskOptions, "decisionReason" | "matchedAskRule">): string | undefined {
  const rule = options.matchedAskRule;
  const byRule = (options as { decisionReasonType?: unknown }).decisionReasonType === "rule";
  const ruleSaid = rule
    ? `the ask rule "${rule.toolName}${rule.ruleContent ? `(${rule.ruleContent})` : ""}" from ${rule.source} applies.`
    : byRule
      ? "an ask rule of the settings applies."
      : undefined;
  const said = typeof options.decisionReason === "string" ? options.decisionReason.trim() || undefined : undefined;
  return [ruleSaid, said].filter(Boolean).join(" ") || undefined;
}

const withReason = (reason: string | undefined) => (reason === undefined ? {} : { reason });

/** The answer a change of permission mode gives a plan waiting for approval, as the builtin agent
 * gives it (Claude Code's "yes, and auto-accept edits"): acceptEdits or bypassPermissions approve it,
 * and the run goes on in that mode (`mode`); other modes leave it waiting. `stop` once answered. */
function modeAnswer(input: ToolGateInput): { answer: Promise<ApprovalDecision>; mode(): HarnessPermissionMode | undefined; stop(): void } {
  let settle: (decision: ApprovalDecision) => void = () => {};
  let by: HarnessPermissionMode | undefined;
  const answer = new Promise<ApprovalDecision>((resolve) => (settle = resolve));
  const unsubscribe = input.onModeChange?.((mode) => {
    if (by !== undefined || (mode !== "acceptEdits" && mode !== "bypassPermissions")) return;
    by = mode;
    settle({ behavior: "allow", reason: `allowed by the permission mode ${mode}` });
  });
  return { answer, mode: () => by, stop: () => unsubscribe?.() };
}

/** One line a person reads before deciding: the command for Bash, the path for file tools, the URL
 * or query for web tools, else Claude Code's own prompt sentence, else the input as JSON. */
export function describeToolCall(toolName: string, input: Record<string, unknown>, title?: string): string {
  return describeCall({ name: toolName, input }, title);
}
