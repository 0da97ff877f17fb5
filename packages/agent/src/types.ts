import type { ModelMessage, Provider } from "@harness/llm";
import type { AgentEvent, Usage } from "@harness/protocol";
import type { z } from "zod";
import type { SubagentOutput, SubagentRequest } from "./subagents/types.ts";
import type { ToolState } from "./tools/state.ts";

export type ToolContext = {
  /** The workspace; relative paths in tool arguments resolve against it. */
  cwd: string;
  /** Fires when the run is cancelled; a tool stops its work and returns soon after. */
  signal: AbortSignal;
  toolUseId: string;
  /** The conversation's tool state (files read, background shells, todos, web search provider),
   * kept across runs. Without it, tools that need it say so, and the others skip read-before-write
   * checks. */
  state?: ToolState;
  /** Runs a sub-agent to completion for the Task tool. The host binds it to this call (its
   * toolUseId and signal); without it the Task tool answers with an error. */
  spawnSubagent?: (request: SubagentRequest) => Promise<SubagentOutput>;
};

export type ToolImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; data: string };
};
export type ToolOutputBlock = { type: "text"; text: string } | ToolImageBlock;

/** What the model sees as the tool_result. */
export type ToolOutput = {
  /** The result as text: the whole tool_result, or, when `blocks` is set, its summary for events and
   * the UI. */
  content: string;
  isError?: boolean;
  /** When set, the tool_result's content for the model (Anthropic content blocks), e.g. an image
   * that Read loaded. */
  blocks?: ToolOutputBlock[];
};

export type Tool = {
  readonly name: string;
  /** Shown to the model: what the tool does and when to use it. */
  readonly description: string;
  readonly parameters: z.ZodType;
  /** JSON Schema of `parameters`, as sent to the model. */
  readonly inputSchema: Record<string, unknown>;
  /** Runs the tool. `args` has already been validated against `parameters`. May throw: the loop
   * turns a thrown error into an is_error result. */
  execute(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
};

export type RunAgentOptions = {
  /** The new user message. */
  prompt: string;
  /** Earlier conversation (Anthropic form), as returned in a previous run's `transcript`. */
  history?: ModelMessage[];
  provider: Provider;
  model: string;
  /** Replaces the default system prompt when given. */
  systemPrompt?: string;
  /** Model calls allowed in this run; default 100. */
  maxTurns?: number;
  /** The workspace: tools resolve relative paths against it. */
  cwd: string;
  /** Default: builtinTools(). */
  tools?: Tool[];
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
};

export type AgentStopReason = "end_turn" | "max_turns" | "aborted" | "error";

export type RunAgentResult = {
  stopReason: AgentStopReason;
  /** The text of the final assistant reply. */
  result: string;
  /** `history` plus this run's messages. Always a valid conversation: every tool_use has its
   * tool_result, and no message is empty, so it can be sent back as the next run's history. */
  transcript: ModelMessage[];
  /** Summed over every model call of the run. */
  usage: Usage;
  errorMessage?: string;
};
