import type { ModelMessage, Provider } from "@harness/llm";
import type { AgentEvent, Usage } from "@harness/protocol";
import type { z } from "zod";

export type ToolContext = {
  /** The workspace; relative paths in tool arguments resolve against it. */
  cwd: string;
  /** Fires when the run is cancelled; a tool stops its work and returns soon after. */
  signal: AbortSignal;
  toolUseId: string;
};

/** What the model sees as the tool_result. */
export type ToolOutput = { content: string; isError?: boolean };

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
