// /cost under the claude-code backend: the conversation's totals as the session keeps them (the
// query's spentBefore), in the builtin agent's words. Claude Code's own /cost knows only its
// session's running totals, without the model calls, and its API time only once a call of the
// process has restored it; a conversation that went on in another Claude Code session (a fork, a
// workspace that lost its state) is not all in them.
import { costReport } from "@harness/agent/cost-report";
import type { RunnerQuery } from "@harness/protocol";
import type { BackendContext, RunOutcome } from "../../backend.ts";

/** Whether the prompt asks for /cost (words after it are ignored, as the builtin agent does). */
export function isCostPrompt(prompt: string): boolean {
  return /^\/cost(?:\s|$)/.test(prompt.trim());
}

/** Answers /cost without starting Claude Code: no model call, nothing spent. */
export function answerCost(query: RunnerQuery, ctx: BackendContext, now = Date.now()): RunOutcome {
  const spent = query.spentBefore ?? { usage: { inputTokens: 0, outputTokens: 0 }, calls: 0, apiMs: 0, wallMs: 0 };
  const text = costReport({ usage: spent.usage, calls: spent.calls, apiMs: spent.apiMs, startedAt: now - spent.wallMs }, now);
  ctx.emit({ type: "assistant.delta", text });
  return {
    ok: true,
    result: text,
    usage: { inputTokens: 0, outputTokens: 0 },
    transcript: [...(query.history ?? []), { role: "user", content: query.prompt }, { role: "assistant", content: [{ type: "text", text }] }],
    ...(query.resumeSessionId && { sessionId: query.resumeSessionId }),
    spent,
  };
}
