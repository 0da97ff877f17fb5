// Our sessions and messages in the spec's shapes, and its pagination.
import { z } from "zod";
import type { HarnessMessage, SessionSummary } from "@harness/protocol";
import { HARNESS_ID } from "./manifest.ts";
import { TOOL_STATUS } from "./run-watch.ts";

export const PaginationSchema = z.object({
  limit: z.coerce.number({ error: "must be a number" }).int("must be an integer").min(1, "must be at least 1").max(100, "must be at most 100").default(20),
  offset: z.coerce.number({ error: "must be a number" }).int("must be an integer").min(0, "must not be negative").default(0),
});
export type Pagination = z.infer<typeof PaginationSchema>;

export function page<T>(all: T[], { limit, offset }: Pagination) {
  const data = all.slice(offset, offset + limit);
  return { data, total: all.length, limit, offset, has_more: offset + data.length < all.length };
}

/** A session as the spec has it: ours are active until deleted (there is no pause). */
export function sessionShape(summary: SessionSummary) {
  return {
    id: summary.sessionId,
    harness_id: HARNESS_ID,
    ...(summary.title !== null && { name: summary.title }),
    status: "active" as const,
    message_count: summary.messageCount,
    created_at: summary.createdAt,
    updated_at: summary.updatedAt,
  };
}


/** A message as the spec has it; ours carry no time, so `createdAt` is the session's. */
export function messageShape(message: HarnessMessage, createdAt: string) {
  return {
    id: message.id,
    role: message.role,
    content: message.content,
    ...(message.toolCalls?.length && {
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        name: call.name,
        input: call.input ?? {},
        ...(call.output !== undefined && { output: { text: call.output } }),
        status: TOOL_STATUS[call.status],
      })),
    }),
    created_at: createdAt,
  };
}
