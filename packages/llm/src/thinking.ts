// How much the model may think: an explicit thinking budget, or one derived from the effort level;
// for the models that think adaptively, the effort level itself.
import type { Effort, ModelMessage, ModelRequest } from "./types.ts";

/** Thinking budgets per effort level, after Claude Code's think / think hard / think harder / ultrathink. */
export const EFFORT_THINKING_BUDGET: Readonly<Record<Effort, number>> = {
  low: 4_000,
  medium: 10_000,
  high: 20_000,
  max: 31_999,
};

/** The API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/** The budget_tokens to send: `thinking.budgetTokens`, else the effort's budget; raised to the
 * API's minimum and kept below max_tokens, as the API requires. Undefined (no thinking) when
 * neither is given, when `thinking.budgetTokens` is 0 (off, whatever the effort), when max_tokens
 * leaves no room for the smallest budget, or when the request continues a tool call that was made
 * without thinking (the API requires such a turn to start with a thinking block). */
export function thinkingBudget(request: ModelRequest, maxTokens: number): number | undefined {
  if (request.thinking && !(request.thinking.budgetTokens > 0)) return undefined;
  if (continuesToolUseWithoutThinking(request.messages)) return undefined;
  const wanted = request.thinking?.budgetTokens ?? (request.effort ? EFFORT_THINKING_BUDGET[request.effort] : undefined);
  if (wanted === undefined) return undefined;
  const budget = Math.min(Math.max(Math.floor(wanted), MIN_THINKING_BUDGET), maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/** The conversation ends with tool results answering an assistant turn that did not think. */
function continuesToolUseWithoutThinking(messages: readonly ModelMessage[]): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || typeof last.content === "string" || !last.content.some((b) => b.type === "tool_result")) return false;
  const turn = messages[messages.length - 2];
  if (turn?.role !== "assistant" || typeof turn.content === "string") return false;
  const first = turn.content[0];
  return turn.content.some((b) => b.type === "tool_use") && first?.type !== "thinking" && first?.type !== "redacted_thinking";
}

/** Whether `model` thinks adaptively: Claude 4.6 and later, Mythos and Fable. The API takes
 * `thinking: {type: "adaptive"}` with an effort for them; a token budget is deprecated on the 4.6
 * models and refused (400) from Opus 4.7 on. Ids as the API names them (claude-opus-4-6,
 * claude-sonnet-4-6-<date>, claude-opus-4-7; claude-opus-4-20250514 is Opus 4.0), or with a
 * gateway's prefix or an @version (claude-opus-4-7@20260101). */
export function thinksAdaptively(model: string): boolean {
  // A gateway's or cloud's spelling may add a prefix (us.anthropic.claude-…) or an @version.
  if (/(?:^|[./])claude-(mythos|fable)(?=[-@]|$)/.test(model)) return true;
  const match = /(?:^|[./])claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?=[-@]|$)/.exec(model);
  if (!match) return false;
  const [, major, minor] = match;
  return Number(major) > 4 || (Number(major) === 4 && Number(minor ?? 0) >= 6);
}

/** The effort levels below "max", smallest first. */
const BELOW_MAX = ["low", "medium", "high"] as const;

/** The effort to send with adaptive thinking, or undefined for none: the effort asked for, else the
 * level of an explicit budget (the budgets above, read the other way); a budget of 0 is off. "max"
 * is for the models that have it (Opus, Mythos, Fable); the others get "high". */
export function adaptiveEffort(request: ModelRequest): Effort | undefined {
  if (request.thinking && !(request.thinking.budgetTokens > 0)) return undefined;
  const budget = request.thinking?.budgetTokens;
  const effort = budget === undefined ? request.effort : (BELOW_MAX.find((level) => budget <= EFFORT_THINKING_BUDGET[level]) ?? "max");
  if (effort === "max" && /(?:^|[./])claude-(sonnet|haiku)-/.test(request.model)) return "high";
  return effort;
}
