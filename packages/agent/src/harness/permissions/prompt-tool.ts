// Claude Code's --permission-prompt-tool: with nobody at the terminal, a call that needs approval
// is asked of an MCP tool. It gets `{tool_name, input, tool_use_id}` and answers with a JSON text:
// `{"behavior":"allow","updatedInput":{…}}` (the input to run with, and optionally
// `updatedPermissions`: the rules, mode or directories it sets for the calls after it, as an
// Agent SDK canUseTool answer's) or `{"behavior":"deny","message":"…"}` (what the model is told).
import { isJsonObject } from "../../config/json-text.ts";
import { parsePermissionUpdates } from "../../permissions/updates.ts";
import type { ApprovalDecision, ApprovalRequest, Tool } from "../../types.ts";

export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** The approver that asks the MCP tool `name` among `tools`, or why there is none, in one line. */
export function promptToolApprover(name: string, tools: readonly Tool[], cwd: string, signal: AbortSignal): Approver | string {
  const mcpTools = tools.filter((tool) => tool.name.startsWith("mcp__"));
  const tool = mcpTools.find((candidate) => candidate.name === name);
  if (!tool) {
    const there = mcpTools.length > 0 ? `the MCP tools there are: ${mcpTools.map((candidate) => candidate.name).join(", ")}` : "the run has no MCP tools";
    return `--permission-prompt-tool: there is no MCP tool ${name} (${there})`;
  }
  return async (request) => {
    const output = await tool.execute({ tool_name: request.toolName, input: request.input, tool_use_id: request.toolUseId }, { cwd, signal, toolUseId: request.toolUseId });
    if (output.isError) throw new Error(`the permission prompt tool ${name} failed: ${output.content}`);
    return promptAnswer(name, output.content, request.input);
  };
}

/** The decision in the tool's answer `text`; an answer of another shape is an error (the call is
 * then refused, saying so). */
export function promptAnswer(name: string, text: string, input: Record<string, unknown>): ApprovalDecision {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (isJsonObject(answer) && answer.behavior === "allow" && (answer.updatedInput === undefined || isJsonObject(answer.updatedInput))) {
    const updatedInput = (answer.updatedInput as Record<string, unknown> | undefined) ?? input;
    // An "always" that cannot be read refuses the call: what it would have allowed is unknown.
    const updates = parsePermissionUpdates(answer.updatedPermissions);
    if ("error" in updates) throw new Error(`the permission prompt tool ${name} answered with ${updates.error}`);
    return { behavior: "allow", updatedInput, ...(updates.length > 0 && { updatedPermissions: updates }) };
  }
  if (isJsonObject(answer) && answer.behavior === "deny" && (answer.message === undefined || typeof answer.message === "string")) {
    return { behavior: "deny", ...(typeof answer.message === "string" && { reason: answer.message }) };
  }
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  throw new Error(`the permission prompt tool ${name} answered neither {"behavior":"allow","updatedInput":{…}} nor {"behavior":"deny","message":"…"}: ${shown}`);
}
