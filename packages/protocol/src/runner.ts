// RunnerProtocol: what a Session and a Runner say to each other over HTTP + SSE.
//
//   POST /query   body RunnerQuery → text/event-stream of RunnerEvent, each with `id:` (its seq)
//   GET  /health  → RunnerHealth
//
// Every event in one run shares one envelope ({type, seq, ...payload}); `seq` counts from 1 within
// the run and is also the SSE `id:`. The first event is run.started and the last is run.completed or
// run.error. Closing the request cancels the run.
import { z } from "zod";
import { UsageSchema } from "./wire.ts";

/** A message of the model conversation, in Anthropic Messages form. The runner is stateless between
 * runs, so the session keeps the transcript and sends it back as `history`. */
export const TranscriptMessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
  /** Harness bookkeeping, never sent to a model. A "compact-summary" message starts the part of the
   * transcript the model still sees; the messages before it are kept for the record only. */
  meta: z.object({ kind: z.literal("compact-summary"), dropped: z.number().int().nonnegative() }).optional(),
});
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;

export const RunnerQuerySchema = z.object({
  prompt: z.string().min(1),
  history: z.array(TranscriptMessageSchema).optional(),
  model: z.string().min(1).optional(),
  systemPrompt: z.string().optional(),
  maxTurns: z.number().int().positive().optional(),
  /** Working directory of the run; defaults to the runner's workspace. */
  cwd: z.string().optional(),
  /** Credentials for this run only; never written to disk by the runner. */
  anthropicApiKey: z.string().optional(),
});
export type RunnerQuery = z.infer<typeof RunnerQuerySchema>;

export const RunnerHealthSchema = z.object({ ok: z.boolean(), busy: z.boolean(), hasAnthropicKey: z.boolean() });
export type RunnerHealth = z.infer<typeof RunnerHealthSchema>;

const envelope = { seq: z.number().int().positive() };
/** Set on events that come from a sub-agent: its own id, and the Task tool call that started it, so
 * a UI can nest them. Absent for the main agent. */
const agentFields = { agentId: z.string().optional(), parentToolUseId: z.string().optional() };

export const RunnerEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run.started"), ...envelope, requestId: z.string() }),
  z.object({ type: z.literal("assistant.delta"), ...envelope, ...agentFields, text: z.string() }),
  z.object({
    type: z.literal("tool.started"),
    ...envelope,
    ...agentFields,
    toolName: z.string(),
    toolUseId: z.string(),
    input: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    type: z.literal("tool.completed"),
    ...envelope,
    ...agentFields,
    toolUseId: z.string(),
    output: z.string(),
    isError: z.boolean(),
  }),
  z.object({
    type: z.literal("run.completed"),
    ...envelope,
    result: z.string().optional(),
    sessionId: z.string().optional(),
    usage: UsageSchema.optional(),
    /** The whole conversation after this run, to send back as `history` next time. */
    transcript: z.array(TranscriptMessageSchema).optional(),
  }),
  z.object({
    type: z.literal("run.error"),
    ...envelope,
    message: z.string(),
    transcript: z.array(TranscriptMessageSchema).optional(),
  }),
]);
export type RunnerEvent = z.infer<typeof RunnerEventSchema>;
export type RunnerEventType = RunnerEvent["type"];

/** A RunnerEvent before the runner has stamped its seq on it. */
export type RunnerEventPayload = RunnerEvent extends infer E ? (E extends { seq: number } ? Omit<E, "seq"> : never) : never;
/** Events an agent backend emits while it runs; the runner adds run.started / run.completed / run.error. */
export type AgentEvent = Extract<RunnerEventPayload, { type: "assistant.delta" | "tool.started" | "tool.completed" }>;
