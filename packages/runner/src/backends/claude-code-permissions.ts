// Claude Code's canUseTool, bridged to the session. Claude Code decides first (its permission mode,
// settings rules, read-only tools); this is consulted only for the calls it would ask a person about.
import type { CanUseTool, PermissionResult } from "@anthropic-ai/claude-agent-sdk";
import { describeCall } from "@harness/agent/describe-call";
import { EXIT_PLAN_MODE_TOOL_NAME, PLAN_REFUSALS } from "@harness/agent/plan-mode";
import type { ApprovalDecision, ApprovalRequest } from "../backend.ts";
import type { HarnessPermissionMode } from "./claude-code-options.ts";

export type ToolGateInput = {
  /** The run's permission mode now (it can change while the run is in flight). */
  mode: () => HarnessPermissionMode;
  /** Absent: nobody can be asked, so every ask is denied. */
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** The user approved the plan Claude Code presented (ExitPlanMode): it leaves plan mode. */
  onPlanApproved?: () => void;
};

export function noApproverMessage(toolName: string): string {
  return `${toolName} needs the user's approval, and nobody can approve tool calls in this run, so it was not run.`;
}

export function createToolGate(input: ToolGateInput): CanUseTool {
  return async (toolName, toolInput, options): Promise<PermissionResult> => {
    if (input.mode() === "bypassPermissions") return { behavior: "allow", updatedInput: toolInput };
    const plan = toolName === EXIT_PLAN_MODE_TOOL_NAME;
    if (!input.requestApproval) return { behavior: "deny", message: plan ? PLAN_REFUSALS.unattended : noApproverMessage(toolName) };
    const decision = await input.requestApproval({
      toolUseId: options.toolUseID,
      toolName,
      description: describeToolCall(toolName, toolInput, options.title),
      input: toolInput,
    });
    if (decision.behavior === "allow") {
      const allowed: PermissionResult = { behavior: "allow", updatedInput: decision.updatedInput ?? toolInput, decisionClassification: "user_temporary" };
      if (!plan) return allowed;
      // Out of plan mode for the rest of the conversation, as Claude Code's own prompt does it.
      input.onPlanApproved?.();
      return { ...allowed, updatedPermissions: [{ type: "setMode", mode: "default", destination: "session" }] };
    }
    if (plan) return { behavior: "deny", message: PLAN_REFUSALS.denied(decision.reason), decisionClassification: "user_reject" };
    const message = decision.reason ? `The user denied this tool call: ${decision.reason}` : "The user denied this tool call.";
    return { behavior: "deny", message, decisionClassification: "user_reject" };
  };
}

/** One line a person reads before deciding: the command for Bash, the path for file tools, the URL
 * or query for web tools, else Claude Code's own prompt sentence, else the input as JSON. */
export function describeToolCall(toolName: string, input: Record<string, unknown>, title?: string): string {
  return describeCall({ name: toolName, input }, title);
}
